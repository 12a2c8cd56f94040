/** monitoring-a: Datadog webhooks with the payload Vigil documents, and Datadog's default payload. */
import t from 'tap';
import { parse } from '../../../webhooks/sources/monitoring-a.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'monitoring-a' as const;
const FP = 'monitoring-a:1234567:host:web-1,service:checkout';
const LABELS = {
  service: 'checkout',
  host: 'web-1',
  env: 'prod',
  team: 'payments',
  metric: 'system.cpu.user',
  priority: 'P2',
  alert_id: '1234567',
  org: 'Acme',
};

t.test('Triggered', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'triggered')));
  t.equal(events.length, 1);
  t.strictSame(events[0], {
    fingerprint: FP,
    status: 'firing',
    title: 'High CPU on checkout',
    source: 'monitoring-a',
    severity: 'high',
    labels: { ...LABELS, transition: 'Triggered' },
    service: 'checkout',
    summary: 'system.cpu.user over host:web-1,service:checkout was > 90.0 on average during the last 5m.',
    url: 'https://app.datadoghq.com/event/event?id=7000000000000000000',
    started_at: '2024-03-01T10:00:00.000Z',
    external_id: '1234567',
  });
});

t.test('Recovered resolves the same alert (same monitor and scope → same fingerprint)', async (t) => {
  const [triggered] = eventsOf(t, parse(fixture(SRC, 'triggered')));
  const [recovered] = eventsOf(t, parse(fixture(SRC, 'recovered')));
  t.strictSame(recovered, {
    fingerprint: FP,
    status: 'resolved',
    title: 'High CPU on checkout',
    source: 'monitoring-a',
    severity: 'high',
    labels: { ...LABELS, transition: 'Recovered' },
    service: 'checkout',
    summary: 'system.cpu.user over host:web-1,service:checkout was <= 90.0 on average during the last 5m.',
    url: 'https://app.datadoghq.com/event/event?id=7000000000000000000',
    ended_at: '2024-03-01T10:30:00.000Z',
    external_id: '1234567',
  });
  t.equal(recovered.fingerprint, triggered.fingerprint);
});

t.test('another group of the same monitor is another alert; its unfilled priority counts as absent', async (t) => {
  const [other] = eventsOf(t, parse(fixture(SRC, 'triggered-other-group')));
  t.equal(other.fingerprint, 'monitoring-a:1234567:host:web-2,service:checkout');
  t.equal(other.labels['priority'], undefined, '"$ALERT_PRIORITY" left unfilled');
  t.equal(other.severity, 'high', 'alert_type error → high');
  t.equal(other.labels['host'], 'web-2');
});

t.test('Warn and No Data fire at warning whatever the priority', async (t) => {
  const [warn] = eventsOf(t, parse(fixture(SRC, 'warn')));
  t.equal(warn.status, 'firing');
  t.equal(warn.severity, 'warning');
  t.equal(warn.labels['priority'], 'P1');
  t.equal(warn.fingerprint, FP, 'a warning and its later trigger are the same alert');
  const [noData] = eventsOf(t, parse(fixture(SRC, 'no-data')));
  t.equal(noData.status, 'firing');
  t.equal(noData.severity, 'warning');
});

t.test('transitions and severities', async (t) => {
  const base = fixture(SRC, 'triggered');
  const statuses: [string, string][] = [
    ['Triggered', 'firing'], ['Re-Triggered', 'firing'], ['Renotify', 'firing'], ['Re-Warn', 'firing'],
    ['Re-No Data', 'firing'], ['Null', 'firing'], ['Recovered', 'resolved'], ['recovered', 'resolved'],
  ];
  for (const [transition, status] of statuses) t.equal(eventsOf(t, parse({ ...base, transition }))[0].status, status, transition);
  const severities: [Record<string, string>, string][] = [
    [{ priority: 'P1' }, 'critical'], [{ priority: 'P2' }, 'high'], [{ priority: 'P3' }, 'warning'], [{ priority: 'P4' }, 'info'], [{ priority: 'P5' }, 'info'],
    [{ priority: '', alert_type: 'error' }, 'high'], [{ priority: '', alert_type: 'warning' }, 'warning'],
    [{ priority: '', alert_type: 'info' }, 'info'], [{ priority: '', alert_type: '' }, 'high'],
  ];
  for (const [fields, severity] of severities) t.equal(eventsOf(t, parse({ ...base, ...fields }))[0].severity, severity, JSON.stringify(fields));
});

t.test('the scope is read in any order; without an alert id the aggregation key is the fingerprint', async (t) => {
  const base = fixture(SRC, 'triggered');
  t.equal(eventsOf(t, parse({ ...base, scope: 'host:web-1,service:checkout' }))[0].fingerprint, FP);
  const [agg] = eventsOf(t, parse({ ...base, alert_id: '$ALERT_ID' }));
  t.equal(agg.fingerprint, 'monitoring-a:agg:9bd4ac313a4d1e8fae2482df7b77628');
  t.equal(agg.external_id, '9bd4ac313a4d1e8fae2482df7b77628');
});

t.test('Datadog\'s default payload: transition from the title, fingerprint from the bare title and scope', async (t) => {
  const [firing] = eventsOf(t, parse(fixture(SRC, 'default-payload')));
  const [resolved] = eventsOf(t, parse(fixture(SRC, 'default-payload-recovered')));
  t.match(firing, { status: 'firing', title: 'High CPU on checkout', severity: 'high', started_at: '2024-03-01T10:00:00.000Z', labels: { host: 'web-1', transition: 'Triggered' } });
  t.match(resolved, { status: 'resolved', title: 'High CPU on checkout', ended_at: '2024-03-01T10:30:00.000Z', labels: { transition: 'Recovered' } });
  t.match(firing.fingerprint, /^monitoring-a:title:[0-9a-f]{32}$/);
  t.equal(resolved.fingerprint, firing.fingerprint, 'stable fingerprint');
  const otherHost = { ...fixture(SRC, 'default-payload'), title: '[Triggered on {host:web-2}] High CPU on checkout' };
  t.not(eventsOf(t, parse(otherHost))[0].fingerprint, firing.fingerprint, 'another group is another alert');
});

t.test('unreadable payloads', async (t) => {
  t.match(reasonOf(t, parse({ transition: 'Triggered' })), /title is missing/);
  t.match(reasonOf(t, parse({ title: 'CPU high' })), /transition is missing/);
  t.match(reasonOf(t, parse({ title: 'CPU high', transition: '$ALERT_TRANSITION' })), /transition is missing/);
  t.match(reasonOf(t, parse({ title: 'CPU high', transition: 'Exploded' })), /not a Datadog alert transition/);
  t.match(reasonOf(t, parse({ title: 'CPU high', transition: 'constructor' })), /not a Datadog alert transition/);
  t.match(reasonOf(t, parse(null)), /expected a JSON object from Datadog, got null/);
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['triggered', 'recovered', 'warn', 'default-payload'].map((n) => fixture(SRC, n)));
});
