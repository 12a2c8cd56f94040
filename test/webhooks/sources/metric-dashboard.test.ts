/** metric-dashboard: Grafana's contact-point webhook and the Alertmanager (version 4) shape, several alerts a request. */
import t from 'tap';
import { parse } from '../../../webhooks/sources/metric-dashboard.ts';
import { eventsOf, fixture, fuzz, reasonOf } from './helpers.ts';

const SRC = 'metric-dashboard' as const;

t.test('Grafana: the documented firing example gives one event per alert', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'grafana-firing')));
  t.equal(events.length, 2);
  t.same(events[0], {
    fingerprint: 'metric-dashboard:c6eadffa33fcdf37',
    status: 'firing',
    title: 'High memory usage',
    source: 'metric-dashboard',
    severity: 'critical',
    labels: { alertname: 'High memory usage', team: 'blue', zone: 'us-1', severity: 'critical', service: 'checkout' },
    service: 'checkout',
    summary: 'This alert was triggered for zone us-1',
    url: 'https://play.grafana.org/alerting/1afz29v7z/edit',
    started_at: '2021-10-12T07:51:03.157Z',
    external_id: 'c6eadffa33fcdf37',
    links: {
      runbook: 'https://myrunbook.com/runbook/1234',
      silence: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1',
      source: 'https://play.grafana.org/alerting/1afz29v7z/edit',
    },
  }, 'what the sender linked is kept: runbook_url, silenceURL, generatorURL (empty dashboardURL and panelURL left out)');
  t.strictSame(events[1], {
    fingerprint: 'metric-dashboard:bc97ff14869b13e3',
    status: 'firing',
    title: 'High CPU usage',
    source: 'metric-dashboard',
    severity: 'warning',
    labels: { alertname: 'High CPU usage', team: 'blue', zone: 'eu-1' },
    summary: 'This alert was triggered for zone eu-1',
    url: 'https://play.grafana.org/alerting/d1rdpdv7k/edit',
    started_at: '2021-10-12T07:56:03.157Z',
    external_id: 'bc97ff14869b13e3',
    links: {
      runbook: 'https://myrunbook.com/runbook/1234',
      silence: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT1%2Cteam%3Dblue%2Czone%3Deu-1',
      source: 'https://play.grafana.org/alerting/d1rdpdv7k/edit',
    },
  }, 'no severity label → warning; no service label → no service; Go zero endsAt → no ended_at');
});

t.test('Grafana: the resolution of an alert carries the same fingerprint, and its end', async (t) => {
  const [firing] = eventsOf(t, parse(fixture(SRC, 'grafana-firing')));
  const [resolved, ...rest] = eventsOf(t, parse(fixture(SRC, 'grafana-resolved')));
  t.equal(rest.length, 0);
  t.equal(resolved.status, 'resolved');
  t.equal(resolved.fingerprint, firing.fingerprint, 'stable fingerprint');
  t.equal(resolved.started_at, firing.started_at);
  t.equal(resolved.ended_at, '2021-10-12T08:21:03.157Z');
  t.equal(resolved.title, firing.title);
  t.equal(resolved.severity, firing.severity);
});

t.test('Alertmanager version 4: three firing alerts, then one of them resolved', async (t) => {
  const events = eventsOf(t, parse(fixture(SRC, 'alertmanager-firing')));
  t.same(events.map((e) => e.fingerprint), ['metric-dashboard:3a5b8d7c1e2f4a60', 'metric-dashboard:9f1e2d3c4b5a6978', 'metric-dashboard:0c0ffee0c0ffee00']);
  t.strictSame(events[0], {
    fingerprint: 'metric-dashboard:3a5b8d7c1e2f4a60',
    status: 'firing',
    title: 'InstanceDown',
    source: 'metric-dashboard',
    severity: 'high',
    labels: { alertname: 'InstanceDown', instance: '10.0.0.11:9100', job: 'node', severity: 'page' },
    service: 'node',
    summary: 'Instance 10.0.0.11:9100 down',
    url: 'http://prometheus.example.com:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=1',
    started_at: '2024-03-01T10:00:00.000Z',
    external_id: '3a5b8d7c1e2f4a60',
    links: { source: 'http://prometheus.example.com:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=1' },
  }, 'severity "page" → high; the job label is the service; a firing alert\'s future endsAt is not an end');
  t.ok(events.every((e) => e.status === 'firing' && e.ended_at === undefined));
  const [resolved] = eventsOf(t, parse(fixture(SRC, 'alertmanager-resolved')));
  t.equal(resolved.fingerprint, events[1].fingerprint, 'stable fingerprint');
  t.equal(resolved.status, 'resolved');
  t.equal(resolved.ended_at, '2024-03-01T10:20:00.000Z');
});

t.test('severity words', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ severity: 'critical' }, 'critical'],
    [{ severity: 'P1' }, 'critical'],
    [{ severity: 'error' }, 'high'],
    [{ severity: 'major' }, 'high'],
    [{ severity: 'warning' }, 'warning'],
    [{ severity: 'Warn' }, 'warning'],
    [{ severity: 'info' }, 'info'],
    [{ severity: 'none' }, 'info'],
    [{ priority: 'p2' }, 'high'],
    [{ level: 'low' }, 'info'],
    [{ severity: 'whatever' }, 'warning'],
    [{}, 'warning'],
  ];
  for (const [labels, severity] of cases) {
    const [e] = eventsOf(t, parse({ status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'X', ...labels } }] }));
    t.equal(e.severity, severity, JSON.stringify(labels));
  }
  const [fromAnnotation] = eventsOf(t, parse({ alerts: [{ status: 'firing', labels: { alertname: 'X' }, annotations: { severity: 'critical' } }] }));
  t.equal(fromAnnotation.severity, 'critical', 'a severity annotation counts when no label says');
});

t.test('an alert without a fingerprint gets a digest of its labels, whatever their order', async (t) => {
  const a = eventsOf(t, parse({ status: 'firing', alerts: [{ labels: { alertname: 'Disk', instance: 'a' } }] }))[0];
  const b = eventsOf(t, parse({ status: 'resolved', alerts: [{ labels: { instance: 'a', alertname: 'Disk' } }] }))[0];
  const c = eventsOf(t, parse({ status: 'firing', alerts: [{ labels: { alertname: 'Disk', instance: 'b' } }] }))[0];
  t.match(a.fingerprint, /^metric-dashboard:[0-9a-f]{32}$/);
  t.equal(a.fingerprint, b.fingerprint, 'the group status applies when the alert has none; same labels, same fingerprint');
  t.equal(b.status, 'resolved');
  t.not(a.fingerprint, c.fingerprint);
  t.equal(a.external_id, undefined);
});

t.test('the sender\'s links: Grafana\'s dashboard, panel and silence URLs, the runbook_url annotation, generatorURL', async (t) => {
  const [e] = eventsOf(t, parse({
    status: 'firing',
    alerts: [{
      status: 'firing', fingerprint: 'links', labels: { alertname: 'Linked' },
      annotations: { runbook_url: 'wiki:Runbooks/Linked' },
      dashboardURL: 'https://grafana.example.com/d/abc', panelURL: 'https://grafana.example.com/d/abc?viewPanel=2', silenceURL: 'https://grafana.example.com/alerting/silence/new?matchers=x',
      generatorURL: 'https://u:p@grafana.example.com/alerting/grafana/abc/view?api_key=k3y-secret',
    }],
  }));
  t.match(e.links, {
    runbook: 'wiki:Runbooks/Linked', dashboard: 'https://grafana.example.com/d/abc', panel: 'https://grafana.example.com/d/abc?viewPanel=2',
    silence: 'https://grafana.example.com/alerting/silence/new?matchers=x',
  }, 'a runbook that is not http(s) is kept as text (the console shows it unlinked)');
  t.notMatch(JSON.stringify(e.links), /k3y-secret|u:p@/, 'a link is cleaned of credentials as the alert\'s url is');
});

t.test('secrets stay out of titles, summaries, labels and links', async (t) => {
  const [e] = eventsOf(t, parse({
    status: 'firing',
    alerts: [{
      status: 'firing',
      fingerprint: 'abc',
      labels: { alertname: 'Login failing token=s3cr3t-value', api_key: 'AKIA-very-secret', db_password: 'hunter2', team: 'a' },
      annotations: { summary: 'Connect with password: hunter2 and Authorization Bearer abcdefghijklmnop' },
      generatorURL: 'https://user:pw@grafana.example.com/alerting/x/view?token=s3cr3t-value&orgId=1',
    }],
  }));
  const all = JSON.stringify(e);
  for (const secret of ['s3cr3t-value', 'AKIA-very-secret', 'hunter2', 'abcdefghijklmnop', 'user:pw']) t.notMatch(all, secret, `${secret} is gone`);
  t.equal(e.title, 'Login failing token=[redacted]');
  t.equal(e.labels['api_key'], '[redacted]');
  t.equal(e.labels['team'], 'a');
  t.equal(e.url, 'https://grafana.example.com/alerting/x/view?token=redacted&orgId=1');
});

t.test('payloads that are not alerts are unreadable, with the reason', async (t) => {
  t.match(reasonOf(t, parse({ receiver: 'x', status: 'firing' })), /alerts is missing/);
  t.match(reasonOf(t, parse({ alerts: 'nope' })), /alerts is missing/);
  t.match(reasonOf(t, parse({ alerts: [{ labels: { alertname: 'x' } }] })), /alerts\[0\]\.status must be "firing" or "resolved" and is missing/);
  const odd = reasonOf(t, parse({ alerts: [{ status: 'pending-secret-value', labels: { alertname: 'x' } }] }));
  t.match(odd, /alerts\[0\]\.status must be "firing" or "resolved"$/);
  t.notMatch(odd, /pending-secret-value/, 'the value sent is not repeated');
  t.match(reasonOf(t, parse({ alerts: [{ status: 'pending', labels: {} }] })), /alerts\[0\]\.status/);
  t.match(reasonOf(t, parse({ status: 'firing', alerts: [{ labels: { alertname: 'a' } }, 7] })), /alerts\[1\] is not an object/);
  t.match(reasonOf(t, parse({ status: 'firing', alerts: [{ annotations: {} }] })), /neither labels nor a fingerprint/);
  t.match(reasonOf(t, parse({ status: 'firing', alerts: Array.from({ length: 1001 }, () => ({ labels: { alertname: 'a' } })) })), /at most 1000/);
  t.match(reasonOf(t, parse([])), /expected a JSON object/);
  t.same(parse({ status: 'firing', alerts: [] }), { kind: 'alerts', events: [] }, 'an empty group is zero alerts');
});

t.test('fuzz: junk is unreadable and nothing throws', async (t) => {
  fuzz(t, parse, ['grafana-firing', 'grafana-resolved', 'alertmanager-firing', 'alertmanager-resolved'].map((n) => fixture(SRC, n)));
});
