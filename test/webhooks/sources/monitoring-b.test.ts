/** monitoring-b: New Relic workflow webhooks (the default payload, and an accumulations-based one). */
import t from 'tap';
import { parse } from '../../../webhooks/sources/monitoring-b.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'monitoring-b' as const;
const ISSUE = '0ea2df1c-adab-45d2-aae0-042b609d2322';
const LABELS = {
  priority: 'CRITICAL',
  condition: 'Memory high',
  policy: 'Checkout production',
  entities: 'checkout-web-1',
  sources: 'newrelic',
  workflow: 'Vigil',
  total_incidents: '1',
};

t.test('ACTIVATED (the default payload)', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'activated')));
  t.equal(events.length, 1);
  t.strictSame(events[0], {
    fingerprint: `monitoring-b:${ISSUE}`,
    status: 'firing',
    title: "Memory Used % > 90 for at least 2 minutes on 'checkout-web-1'",
    source: 'monitoring-b',
    severity: 'critical',
    labels: { ...LABELS, state: 'ACTIVATED' },
    summary: 'Policy: Checkout production; Condition: Memory high',
    url: `https://radar-api.service.newrelic.com/accounts/1234567/issues/${ISSUE}?notifier=WEBHOOK`,
    started_at: '2024-03-01T10:00:00.123Z',
    external_id: ISSUE,
  });
});

t.test('ACKNOWLEDGED and CLOSED deliveries of the issue keep its fingerprint', async (t) => {
  const [activated] = eventsOf(t, parse(fixture(SRC, 'activated')));
  const [acked] = eventsOf(t, parse(fixture(SRC, 'acknowledged')));
  const [closed] = eventsOf(t, parse(fixture(SRC, 'closed')));
  t.strictSame(acked, { ...activated, status: 'acknowledged', labels: { ...activated.labels, state: 'ACKNOWLEDGED' } });
  t.strictSame(closed, { ...activated, status: 'resolved', labels: { ...activated.labels, state: 'CLOSED' }, ended_at: '2024-03-01T10:30:00.000Z' });
  t.equal(acked.fingerprint, activated.fingerprint);
  t.equal(closed.fingerprint, activated.fingerprint);
  const [investigating] = eventsOf(t, parse({ ...(fixture(SRC, 'activated') as object), state: 'INVESTIGATING' }));
  t.equal(investigating.status, 'acknowledged', 'the workflow\'s Investigating trigger counts as acknowledged');
});

t.test('issueId, a title list and accumulations with tags', async (t) => {
  const [e] = eventsOf(t, parse(fixture(SRC, 'accumulations')));
  t.strictSame(e, {
    fingerprint: 'monitoring-b:7c0b6c3a-1f0e-4d7a-9a50-1b2d3c4e5f60',
    status: 'firing',
    title: 'Error rate > 5% on payments-api',
    source: 'monitoring-b',
    severity: 'high',
    labels: { service: 'payments', env: 'production', team: 'payments', priority: 'HIGH', state: 'CREATED', condition: 'Error rate high', policy: 'Payments' },
    service: 'payments',
    summary: 'More than 5% of requests to payments-api are failing.',
    url: 'https://radar-api.service.newrelic.com/accounts/1234567/issues/7c0b6c3a-1f0e-4d7a-9a50-1b2d3c4e5f60',
    started_at: '2024-03-01T10:10:00.000Z',
    external_id: '7c0b6c3a-1f0e-4d7a-9a50-1b2d3c4e5f60',
  }, 'CREATED fires; HIGH → high; tag.service is the service');
  const nested = eventsOf(t, parse({ issueId: 'i-1', state: 'activated', title: 'x', accumulations: { tag: { service: ['billing'], region: ['eu'] } } }))[0];
  t.equal(nested.service, 'billing', 'tags as a nested object too');
  t.equal(nested.labels['region'], 'eu');
  t.equal(nested.status, 'firing', 'state in any case');
});

t.test('priorities', async (t) => {
  const cases: [unknown, string][] = [['CRITICAL', 'critical'], ['HIGH', 'high'], ['MEDIUM', 'warning'], ['LOW', 'info'], ['low', 'info'], [undefined, 'high']];
  for (const [priority, severity] of cases) {
    t.equal(eventsOf(t, parse({ ...fixture(SRC, 'activated'), priority }))[0].severity, severity, String(priority));
  }
  const untitled = eventsOf(t, parse({ id: 'i-2', state: 'ACTIVATED', alertConditionNames: ['Disk full'] }))[0];
  t.equal(untitled.title, 'Disk full', 'no title → the condition name');
});

t.test('unreadable payloads', async (t) => {
  t.match(reasonOf(t, parse({ state: 'ACTIVATED', title: 'x' })), /id is missing/);
  t.match(reasonOf(t, parse({ id: 'i-1', title: 'x' })), /state is missing/);
  t.match(reasonOf(t, parse({ id: 'i-1', state: 'EXPLODED' })), /not a New Relic issue state/);
  t.match(reasonOf(t, parse({ id: { nested: true }, state: 'ACTIVATED' })), /id is missing/);
  t.match(reasonOf(t, parse([1, 2])), /got an array/);
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['activated', 'acknowledged', 'closed', 'accumulations'].map((n) => fixture(SRC, n)));
});
