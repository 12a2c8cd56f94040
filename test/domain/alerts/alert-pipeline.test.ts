/**
 * The alert pipeline through HTTP: real-shaped Alertmanager/Grafana and PagerDuty payloads into alerts, and
 * every rule of the spec's settings and mutes (mute, re-fire cooldown, storm, investigation cooldown, pause,
 * budget, auto open/close), read back through list_alerts (REST) and get_alert (agent tool).
 */
import t from 'tap';
import { CONFIG, startVigil, type Vigil } from '../../helpers/harness.ts';
import { drainJobs } from '../../helpers/jobs.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const MINUTE = 60_000;
const UA = { 'user-agent': 'Alertmanager/0.27.0', 'content-type': 'application/json' };

interface Spec {
  name: string;
  fp?: string;
  status?: 'firing' | 'resolved';
  severity?: string;
  service?: string;
}

/** An Alertmanager webhook (version 4) carrying these alerts. */
function alertmanager(alerts: Spec[]) {
  return {
    version: '4', groupKey: '{}:{alertname="x"}', truncatedAlerts: 0, status: alerts[0]?.status ?? 'firing', receiver: 'vigil',
    groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://alertmanager.example.com:9093',
    alerts: alerts.map((a) => ({
      status: a.status ?? 'firing',
      labels: { alertname: a.name, severity: a.severity ?? 'critical', ...(a.service ? { service: a.service } : {}) },
      annotations: { summary: `${a.name} summary` },
      startsAt: '2026-03-01T11:59:00.000Z', endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example.com:9090/graph', fingerprint: a.fp ?? a.name.toLowerCase(),
    })),
  };
}

interface Org {
  token: string;
  api: Awaited<ReturnType<Awaited<ReturnType<Vigil['organization']>>['key']>>;
  agent: Agent;
  id: string;
}

async function organization(settings: Record<string, unknown> = {}): Promise<Org> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  if (Object.keys(settings).length) {
    const put = await api.put(`${CONFIG}/organization_settings`, settings);
    if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  }
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  return { token: org.webhookToken, api, agent, id: org.id };
}

async function deliver(org: Org, body: unknown, source = 'metric-dashboard') {
  const res = await fetch(`${vigil.url}/webhooks/${source}/${org.token}`, { method: 'POST', headers: UA, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const fire = (org: Org, ...alerts: Spec[]) => deliver(org, alertmanager(alerts));
const resolve = (org: Org, ...alerts: Spec[]) => deliver(org, alertmanager(alerts.map((a) => ({ ...a, status: 'resolved' as const }))));

async function alert(org: Org, name: string) {
  const got = await org.agent.call('get_alert', { fingerprint: `metric-dashboard:${name.toLowerCase()}` });
  if (got.isError) throw new Error(JSON.stringify(got.body));
  return got.body.data;
}
const kinds = (a: { effects: { kind: string }[] }) => a.effects.map((e) => e.kind);
const count = (a: { effects: { kind: string }[] }, kind: string) => a.effects.filter((e) => e.kind === kind).length;
const skipped = (a: { effects: { kind: string; detail: any }[] }) => a.effects.filter((e) => e.kind === 'investigation_skipped').map((e) => e.detail.reason);

t.test('a firing alert is recorded, pages once, opens a chat thread and requests an investigation; repeats are duplicates', async (t) => {
  const org = await organization();
  const first = await fire(org, { name: 'DiskFull', service: 'db' });
  t.same(first, { status: 200, body: { status: 'ok', processed: 1, total: 1 } });
  let a = await alert(org, 'DiskFull');
  t.match(a, { status: 'firing', title: 'DiskFull', severity: 'critical', service: 'db', source: 'metric-dashboard', occurrences: 1, incident: null });
  t.same(kinds(a), ['page', 'chat_post', 'investigation_requested']);
  // an organization with no route, no outbound rule, no email and no chat: the effects say no one was reached (issue 35)
  t.match(a.effects[0].detail, { reason: 'alert fired', teams: [], outbound: [], email: false, notified: false, not_notified: 'no_route' });
  t.same(a.effects[1].detail, { queued: false, not_posted: 'chat_not_configured' });

  t.same((await fire(org, { name: 'DiskFull', service: 'db' })).body, { status: 'ok', processed: 1, total: 1 });
  a = await alert(org, 'DiskFull');
  t.equal(a.occurrences, 2);
  t.equal(count(a, 'page'), 1, 'a repeat pages no one');

  const deliveries = await org.api.get(`${CONFIG}/webhook_deliveries`);
  t.same(deliveries.body.data.map((d: any) => d.outcome), ['duplicate', 'created']);

  t.same((await resolve(org, { name: 'DiskFull' })).body, { status: 'ok', processed: 1, total: 1 });
  a = await alert(org, 'DiskFull');
  t.equal(a.status, 'resolved');
  t.ok(a.resolved_at);
  t.same(a.effects.at(-1), { kind: 'chat_thread_update', at: a.resolved_at, detail: { reason: 'resolved', queued: false, not_posted: 'chat_not_configured' } });

  const unknown = await resolve(org, { name: 'NeverFired' });
  t.same(unknown.body, { status: 'ok', processed: 0, total: 1 }, 'a resolve of an alert never seen is counted, not processed');

  const list = await org.api.get(`${CONFIG}/alerts?status=resolved`);
  t.equal(list.status, 200);
  t.same(list.body.data.map((x: any) => x.title), ['DiskFull']);
  t.equal((await org.api.get(`${CONFIG}/alerts?status=firing`)).body.data.length, 0);
  t.equal((await org.api.get(`${CONFIG}/alerts?status=exploded`)).status, 422, 'an unknown status is refused');
});

t.test('several alerts in one request; list_alerts filters by status, source, service and since', async (t) => {
  const org = await organization();
  t.same((await fire(org, { name: 'A1', service: 'api' }, { name: 'A2', service: 'web' })).body, { status: 'ok', processed: 2, total: 2 });
  vigil.clock.advance(MINUTE);
  const since = vigil.clock.now().toISOString();
  await fire(org, { name: 'A3', service: 'api' });
  const call = async (args: Record<string, unknown>) => (await org.agent.call('list_alerts', args)).body.data.map((a: any) => a.title).sort();
  t.same(await call({}), ['A1', 'A2', 'A3']);
  t.same(await call({ service: 'api' }), ['A1', 'A3']);
  t.same(await call({ since }), ['A3']);
  t.same(await call({ source: 'incident-pager' }), []);
  t.same(await call({ status: 'firing', source: 'metric-dashboard', service: 'web' }), ['A2']);
  const other = await organization();
  t.same((await other.agent.call('list_alerts', {})).body.data, [], 'another organization sees none of them');
  t.equal((await other.agent.call('get_alert', { fingerprint: 'metric-dashboard:a1' })).isError, true);
});

t.test('a payload that cannot be read as an alert answers 400 and records nothing', async (t) => {
  const org = await organization();
  for (const body of ['not json', '[]', JSON.stringify({ alerts: 'nope' }), JSON.stringify({ alerts: [{ status: 'firing' }] })]) {
    const res = await deliver(org, body);
    t.equal(res.status, 400, body);
    t.equal(res.body.error, 'unreadable_alert');
    t.match(res.body.message, /Grafana or Alertmanager/);
  }
  t.same((await org.agent.call('list_alerts', {})).body.data, []);
  const log = await org.api.get(`${CONFIG}/webhook_deliveries`);
  t.equal(log.body.data.length, 4, 'each refusal is in the delivery log');
  t.ok(log.body.data.every((d: any) => d.status === 400 && d.outcome === 'refused: unreadable'));
});

t.test('an in-force mute records the alert as muted: no page, no investigation; an expired mute does not', async (t) => {
  const org = await organization();
  const mute = await org.api.post(`${CONFIG}/alert_mutes`, { pattern: 'DISK', duration_minutes: 10 });
  t.equal(mute.status, 201);
  t.same((await fire(org, { name: 'diskfull' })).body, { status: 'ok', processed: 1, total: 1 });
  let a = await alert(org, 'diskfull');
  t.equal(a.status, 'muted');
  t.equal(a.muted_by, mute.body.data.id);
  t.same(kinds(a), ['muted', 'page_skipped', 'investigation_skipped']);
  t.same(skipped(a), ['muted']);

  // by source and by fingerprint, any case
  await org.api.post(`${CONFIG}/alert_mutes`, { pattern: 'Metric-Dashboard:CPU' });
  await fire(org, { name: 'CpuHigh', fp: 'cpu-7' });
  t.equal((await org.agent.call('get_alert', { fingerprint: 'metric-dashboard:cpu-7' })).body.data.status, 'muted');

  t.same((await fire(org, { name: 'diskfull' })).body, { status: 'ok', processed: 1, total: 1 });
  a = await alert(org, 'diskfull');
  t.equal(a.effects.length, 3, 'a repeat of a muted alert adds nothing');

  vigil.clock.advance(11 * MINUTE);
  await fire(org, { name: 'diskfull' });
  a = await alert(org, 'diskfull');
  t.equal(a.status, 'firing', 'once the mute expired, the still-firing alert pages');
  t.equal(count(a, 'page'), 1);
  t.equal(count(a, 'cycle_ended'), 0, 'an alert stored muted was never raised: no cycle ended');
  await fire(org, { name: 'DiskSlow' });
  t.equal((await alert(org, 'DiskSlow')).status, 'firing', 'an expired mute matches nothing new');
  const log = await org.api.get(`${CONFIG}/webhook_deliveries?limit=5`);
  t.same(log.body.data.map((d: any) => d.outcome), ['created', 'fired', 'muted', 'muted', 'muted']);
});

t.test('re-fire cooldown: inside it a re-fire stays quiet and updates the thread; at the boundary it pages; 0 pages every re-fire', async (t) => {
  const org = await organization({ alert_refire_cooldown_minutes: 30, investigation_cooldown_minutes: 0 });
  const raised = vigil.clock.now().toISOString();
  await fire(org, { name: 'Flappy' });
  vigil.clock.advance(MINUTE);
  await resolve(org, { name: 'Flappy' });
  vigil.clock.advance(30 * MINUTE - 1000);
  await fire(org, { name: 'Flappy' });
  let a = await alert(org, 'Flappy');
  t.equal(a.status, 'firing');
  t.equal(count(a, 'page'), 1, 'no second page 29:59 after resolving');
  t.equal(count(a, 'investigation_requested'), 1, 'no second investigation');
  t.same(a.effects.slice(-3).map((e: any) => [e.kind, e.detail.reason]), [
    ['chat_thread_update', 'fired again inside the re-fire cooldown'], ['page_skipped', 'refire_cooldown'], ['investigation_skipped', 'refire_cooldown'],
  ]);
  t.equal((await org.api.get(`${CONFIG}/webhook_deliveries?limit=1`)).body.data[0].outcome, 'cooldown');

  t.equal(count(a, 'cycle_ended'), 0, 'a quiet re-fire continues the cycle');
  await resolve(org, { name: 'Flappy' });
  const resolved = vigil.clock.now().toISOString();
  vigil.clock.advance(30 * MINUTE);
  await fire(org, { name: 'Flappy' });
  a = await alert(org, 'Flappy');
  t.equal(count(a, 'page'), 2, 'exactly 30 minutes after resolving it pages again');
  t.same(a.effects.filter((e: any) => e.kind === 'cycle_ended').map((e: any) => e.detail), [{ raised_at: raised, acknowledged_at: null, resolved_at: resolved }],
    'the raise records the cycle it ended: raised by the first fire, resolved by the last resolve (the quiet re-fire was part of it)');
  t.same(kinds(a).slice(-4), ['cycle_ended', 'page', 'chat_post', 'investigation_requested'], 'recorded with the page, in the same transaction');
  t.equal(count(a, 'investigation_requested'), 2);

  const zero = await organization({ alert_refire_cooldown_minutes: 0, investigation_cooldown_minutes: 0 });
  for (let i = 0; i < 3; i++) {
    await fire(zero, { name: 'Flappy' });
    await resolve(zero, { name: 'Flappy' });
  }
  t.equal(count(await alert(zero, 'Flappy'), 'page'), 3, 'with 0, every re-fire pages');
});

t.test('storms: the threshold-th alert inside the window forms one storm that pages once; later alerts join it quietly', async (t) => {
  const org = await organization({ alert_storm_threshold: 3, alert_storm_window_seconds: 60 });
  await fire(org, { name: 'S1' });
  vigil.clock.advance(30_000);
  await fire(org, { name: 'S2' });
  vigil.clock.advance(29_000);
  await fire(org, { name: 'S3' }); // 59 s after S1: three inside the window
  const [s1, s2, s3] = [await alert(org, 'S1'), await alert(org, 'S2'), await alert(org, 'S3')];
  t.ok(s3.storm_id);
  t.equal(s1.storm_id, s3.storm_id);
  t.equal(s2.storm_id, s3.storm_id);
  t.same(kinds(s3), ['storm_grouped', 'page', 'chat_post', 'investigation_requested']);
  t.match(s3.effects.find((e: any) => e.kind === 'page').detail, { reason: 'storm', storm_id: s3.storm_id, alerts: 3, notified: false });
  t.equal(count(s1, 'storm_grouped'), 1, 'earlier alerts are grouped too');

  vigil.clock.advance(50_000);
  await fire(org, { name: 'S4' }, { name: 'S5' });
  for (const name of ['S4', 'S5']) {
    const s = await alert(org, name);
    t.equal(s.storm_id, s3.storm_id, `${name} joins the storm`);
    t.same(kinds(s), ['storm_grouped', 'page_skipped', 'investigation_skipped']);
  }
  t.equal((await org.api.get(`${CONFIG}/webhook_deliveries?limit=1`)).body.data[0].outcome, 'storm ×2');

  vigil.clock.advance(61_000);
  await fire(org, { name: 'After' });
  const after = await alert(org, 'After');
  t.equal(after.storm_id, null, 'a window without alerts ends the storm');
  t.same(kinds(after), ['page', 'chat_post', 'investigation_requested']);
});

t.test('one delivery: each event sees the ones before it (three new alerts make a storm; a fire then a resolve of one alert ends resolved)', async (t) => {
  const org = await organization({ alert_storm_threshold: 3, alert_storm_window_seconds: 60 });
  const answer = await fire(org, { name: 'D1' }, { name: 'D2' }, { name: 'D3' });
  t.same(answer.body, { status: 'ok', processed: 3, total: 3 });
  const [d1, d2, d3] = [await alert(org, 'D1'), await alert(org, 'D2'), await alert(org, 'D3')];
  t.same([kinds(d1).slice(0, 3), kinds(d2).slice(0, 3)], [['page', 'chat_post', 'investigation_requested'], ['page', 'chat_post', 'investigation_requested']], 'the first two page alone');
  t.ok(d3.storm_id, 'the third counts the first two, written earlier in the same transaction');
  t.same([d1.storm_id, d2.storm_id], [d3.storm_id, d3.storm_id]);
  t.match(d3.effects.find((e: any) => e.kind === 'page').detail, { reason: 'storm', storm_id: d3.storm_id, alerts: 3, notified: false });

  const both = await deliver(org, alertmanager([{ name: 'Flap' }, { name: 'Flap', status: 'resolved' }]));
  t.same(both.body, { status: 'ok', processed: 2, total: 2 });
  const flap = await alert(org, 'Flap');
  t.equal(flap.status, 'resolved', 'the resolve, second in the delivery, saw the fire');
  t.equal(flap.storm_id, d3.storm_id, 'the fire joined the active storm');
  t.same(kinds(flap), ['storm_grouped', 'page_skipped', 'investigation_skipped'], 'the resolve adds no effect (no chat thread)');
});

t.test('storm boundary: an alert exactly one window old no longer counts', async (t) => {
  const org = await organization({ alert_storm_threshold: 3, alert_storm_window_seconds: 60 });
  await fire(org, { name: 'B1' });
  vigil.clock.advance(30_000);
  await fire(org, { name: 'B2' });
  vigil.clock.advance(30_000);
  await fire(org, { name: 'B3' });
  for (const name of ['B1', 'B2', 'B3']) {
    const b = await alert(org, name);
    t.equal(b.storm_id, null, name);
    t.equal(count(b, 'page'), 1, `${name} paged on its own`);
  }
});

t.test('investigations: cooldown per alert, pause, and the monthly AI budget from the spend ledger', async (t) => {
  const org = await organization({ investigation_cooldown_minutes: 15, alert_refire_cooldown_minutes: 0 });
  await fire(org, { name: 'Inv' });
  await resolve(org, { name: 'Inv' });
  vigil.clock.advance(14 * MINUTE + 59_000);
  await fire(org, { name: 'Inv' });
  let a = await alert(org, 'Inv');
  t.equal(count(a, 'page'), 2, 'the re-fire pages');
  t.same(skipped(a), ['cooldown'], 'but no investigation inside the cooldown');
  await resolve(org, { name: 'Inv' });
  vigil.clock.advance(1000);
  await fire(org, { name: 'Inv' });
  a = await alert(org, 'Inv');
  t.equal(count(a, 'investigation_requested'), 2, '15 minutes after the first one, a new one');

  const paused = await organization({ investigation_paused: true });
  await fire(paused, { name: 'Inv' });
  t.same(skipped(await alert(paused, 'Inv')), ['paused']);

  const budgeted = await organization({ monthly_ai_budget_usd: 10, timezone: 'America/New_York' });
  const sql = vigil.running.services.db.em.getConnection();
  const spend = (at: string, usd: number) => sql.execute(`insert into ai_spend (organization_id, occurred_at, cost_usd, purpose) values (?, ?, ?, 'investigation')`, [budgeted.id, new Date(at), usd]);
  // the clock is in March; in New York the month began at 05:00 UTC on March 1st
  vigil.clock.set('2026-03-20T12:00:00.000Z');
  await spend('2026-03-01T04:59:00.000Z', 50); // still February in New York
  await spend('2026-03-02T10:00:00.000Z', 9.99);
  await fire(budgeted, { name: 'Under' });
  t.equal(count(await alert(budgeted, 'Under'), 'investigation_requested'), 1, '9.99 of 10 spent: still investigates');
  await spend('2026-03-03T10:00:00.000Z', 0.01);
  await fire(budgeted, { name: 'Over' });
  const over = await alert(budgeted, 'Over');
  t.equal(count(over, 'page'), 1, 'a spent budget does not stop paging');
  t.same(over.effects.find((e: any) => e.kind === 'investigation_skipped').detail, { reason: 'budget', spent_usd: 10, budget_usd: 10 });
});

t.test('incidents: opened at the severity floor, closed when the last alert resolves (if asked)', async (t) => {
  const org = await organization({ auto_open_incidents: true, auto_close_incidents: true, incident_severity_floor: 'critical' });
  await fire(org, { name: 'Crit', severity: 'critical' }, { name: 'Hi', severity: 'high' });
  const crit = await alert(org, 'Crit');
  t.match(crit.incident, { status: 'open', title: 'Crit', severity: 'critical' });
  t.equal(count(crit, 'incident_opened'), 1);
  t.equal((await alert(org, 'Hi')).incident, null, 'high is below the critical floor');
  await resolve(org, { name: 'Crit' });
  const closed = await alert(org, 'Crit');
  t.equal(closed.incident.status, 'closed');
  t.ok(closed.incident.closed_at);
  t.equal(kinds(closed).at(-1), 'incident_closed');

  const high = await organization({ auto_open_incidents: true, incident_severity_floor: 'high' });
  await fire(high, { name: 'Hi', severity: 'high' }, { name: 'Warn', severity: 'warning' });
  t.equal((await alert(high, 'Hi')).incident.status, 'open', 'the high floor opens for high');
  t.equal((await alert(high, 'Warn')).incident, null);
  await resolve(high, { name: 'Hi' });
  t.equal((await alert(high, 'Hi')).incident.status, 'open', 'without auto_close_incidents it stays open');

  const off = await organization();
  await fire(off, { name: 'Crit', severity: 'critical' });
  t.equal((await alert(off, 'Crit')).incident, null, 'auto_open_incidents is off by default');
});

t.test('a storm opens one incident, which closes only when its last alert resolves', async (t) => {
  const org = await organization({ alert_storm_threshold: 3, auto_open_incidents: true, auto_close_incidents: true });
  await fire(org, { name: 'W1', severity: 'warning' }, { name: 'W2', severity: 'warning' }, { name: 'C3', severity: 'critical' });
  await fire(org, { name: 'C4', severity: 'critical' });
  const c3 = await alert(org, 'C3');
  const c4 = await alert(org, 'C4');
  t.ok(c3.incident_id);
  t.equal(c4.incident_id, c3.incident_id, 'a later critical alert of the storm joins its incident');
  t.equal(count(c4, 'incident_joined'), 1);
  await resolve(org, { name: 'C3' });
  t.equal((await alert(org, 'C3')).incident.status, 'open', 'C4 still fires');
  await resolve(org, { name: 'C4' });
  t.equal((await alert(org, 'C4')).incident.status, 'closed');
});

t.test('incident-pager: triggered, acknowledged and resolved kept in step', async (t) => {
  const org = await organization();
  const incident = (event_type: string) => ({
    event: {
      id: `01DEN${event_type.length}`, event_type, resource_type: 'incident', occurred_at: '2026-03-01T12:00:00.000Z',
      agent: null, client: null,
      data: {
        id: 'PGR0VU2', type: 'incident', self: 'https://api.pagerduty.com/incidents/PGR0VU2', html_url: 'https://acme.pagerduty.com/incidents/PGR0VU2',
        number: 2, status: event_type.split('.')[1], incident_key: 'd3640fbd41094207a1c11e58e46b1662', title: 'A little bump in the road',
        service: { id: 'PF9KMXH', summary: 'API Service', type: 'service_reference' }, urgency: 'high', priority: { summary: 'P1' },
        created_at: '2026-03-01T11:58:00Z',
      },
    },
  });
  t.same((await deliver(org, incident('incident.triggered'), 'incident-pager')).body, { status: 'ok', processed: 1, total: 1 });
  const fp = (await org.agent.call('list_alerts', {})).body.data[0].fingerprint;
  const get = async () => (await org.agent.call('get_alert', { fingerprint: fp })).body.data;
  t.equal((await get()).status, 'firing');
  await deliver(org, incident('incident.acknowledged'), 'incident-pager');
  const acked = await get();
  t.equal(acked.status, 'acknowledged');
  t.ok(acked.acknowledged_at);
  t.equal(kinds(acked).at(-1), 'chat_thread_update');
  await deliver(org, incident('incident.unacknowledged'), 'incident-pager');
  const back = await get();
  t.equal(back.status, 'firing', 'an un-acknowledgement puts it back to firing');
  t.equal(back.acknowledged_at, null);
  t.equal((await org.api.get(`${CONFIG}/webhook_deliveries?limit=1`)).body.data[0].outcome, 'unacknowledged');
  await deliver(org, incident('incident.acknowledged'), 'incident-pager');
  await deliver(org, incident('incident.resolved'), 'incident-pager');
  t.equal((await get()).status, 'resolved');
  t.equal(count(await get(), 'page'), 1, 'it paged once through all of it');
});

t.test('50 concurrent deliveries of one firing alert create one alert and page once', async (t) => {
  const org = await organization();
  const answers = await Promise.all(Array.from({ length: 50 }, () => fire(org, { name: 'Herd' })));
  t.ok(answers.every((a) => a.status === 200), 'all accepted');
  const list = (await org.agent.call('list_alerts', {})).body.data;
  t.equal(list.length, 1, 'one alert');
  const a = await alert(org, 'Herd');
  t.equal(a.occurrences, 50);
  t.equal(count(a, 'page'), 1, 'one page');
  t.equal(count(a, 'investigation_requested'), 1);
  const log = await org.api.get(`${CONFIG}/webhook_deliveries?limit=50`);
  t.same(log.body.data.map((d: any) => d.outcome).sort(), ['created', ...Array(49).fill('duplicate')]);
});

t.test('get_alert: either id or fingerprint; unknown ones are 404-like tool errors', async (t) => {
  const org = await organization();
  await fire(org, { name: 'One' });
  // its investigation's job settles first, so the readings compared below are not on either side of it
  await drainJobs(vigil.running.services);
  const byFp = await alert(org, 'One');
  const byId = await org.agent.call('get_alert', { id: byFp.id });
  t.same(byId.body.data, byFp);
  t.match((await org.agent.call('get_alert', { id: 'not-a-uuid' })).body, { error: 'not_found' });
  const rest = await org.api.get(`${CONFIG}/alerts/${byFp.id}`);
  t.equal(rest.status, 200, 'REST reads it at /alerts/{id}');
  t.same(rest.body.data, byFp, 'the same answer as the agent tool');
  t.equal((await org.api.get(`${CONFIG}/alerts/${crypto.randomUUID()}`)).status, 404);
  t.equal((await org.api.post(`${CONFIG}/alerts/${byFp.id}`, {})).status, 405);
  t.match((await org.agent.call('get_alert', {})).body, { error: 'validation_failed' });
  t.match((await org.agent.call('get_alert', { id: byFp.id, fingerprint: 'x' })).body, { error: 'validation_failed' });
});

t.test('hostile alert payloads are recorded or refused, never a 500', async (t) => {
  const org = await organization();
  const nul = '\u0000';
  const hostile = [
    alertmanager([{ name: `Disk${nul}Full`, fp: `fp${nul}1`, service: `svc${nul}` }]),
    { ...alertmanager([{ name: 'LabelKeys' }]), alerts: [{ status: 'firing', fingerprint: 'k1', labels: { [`a${nul}b`]: `v${nul}`, alertname: 'LabelKeys' } }] },
    alertmanager([{ name: 'x'.repeat(100_000) }]),
    alertmanager([{ name: '\ud800 lone surrogate' }]),
    alertmanager(Array.from({ length: 300 }, (_, i) => ({ name: `Many${i}` }))),
  ];
  for (const body of hostile) {
    const res = await deliver(org, body);
    t.ok(res.status === 200 || res.status === 400, `answered ${res.status}: ${JSON.stringify(res.body).slice(0, 120)}`);
  }
  const nulAlert = await org.agent.call('get_alert', { fingerprint: 'metric-dashboard:fp1' });
  t.equal(nulAlert.body.data.title, 'DiskFull', 'NUL characters are dropped, the alert is kept');
  const log = await org.api.get(`${CONFIG}/webhook_deliveries?limit=${hostile.length}`);
  t.equal(log.body.data.length, hostile.length, 'every delivery is in the log');
});

t.test('20 concurrent new alerts with a storm threshold of 3: two page alone, the third forms one storm, the rest join it', async (t) => {
  const org = await organization({ alert_storm_threshold: 3, auto_open_incidents: true, incident_severity_floor: 'critical' });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fire(org, { name: `Burst${i}` })));
  t.ok(answers.every((a) => a.status === 200), 'all accepted');
  const alerts = await Promise.all(Array.from({ length: 20 }, (_, i) => alert(org, `Burst${i}`)));
  const pages = alerts.reduce((n, a) => n + count(a, 'page'), 0);
  t.equal(pages, 3, 'three pages in all: two alone, one for the storm');
  t.equal(new Set(alerts.map((a) => a.storm_id)).size, 1, 'one storm holds them all');
  t.ok(alerts[0].storm_id);
  t.equal(alerts.reduce((n, a) => n + count(a, 'incident_opened'), 0), 2, 'the two lone alerts opened incidents; the storm adopted one');
  t.equal(new Set(alerts.map((a) => a.incident_id)).size, 2, 'every later alert joined the storm\'s incident');
  t.equal(alerts.reduce((n, a) => n + count(a, 'investigation_requested'), 0), 3, 'three investigations, not twenty');
});
