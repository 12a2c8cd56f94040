/**
 * get_insights on a seeded history whose answer is known by construction, through REST (JSON and CSV) and the agent
 * tool: alerts fired through the Alertmanager webhook at set instants, acknowledged through REST and by a signed chat
 * press, resolved, flapping; an alert raised before the range and acknowledged in it, one raised in it and resolved
 * after it, one raised at its end; an incident acknowledged and closed; pages to people recorded by the escalation
 * engine's own writer, read in the zone of the person's schedule across New York's spring-forward night; hours on
 * call from that schedule. Then the refusals: ranges that end before they start or span more than a year (422 naming
 * from or to), the free plan (no insights) and the team plan (the last 7 days only).
 */
import { createHmac, randomUUID } from 'node:crypto';
import t from 'tap';
import { startFakeChat } from '../../helpers/fake-chat.ts';
import { person } from '../../helpers/console.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { recordEffects } from '../../../domain/paging/effects.ts';
import { sqlExecutor } from '../../../engine/persistence/sql.ts';

const BOT = 'xoxb-insights-token-7f3a';
const SECRET = 'insights-chat-signing-secret-0099';
const WORKSPACE = 'T0INSIGHTS';
const chat = await startFakeChat({ token: BOT, channels: ['#ops'] });
t.teardown(() => chat.close());
const vigil = await startVigil({ chat: { apiUrl: chat.url, responseOrigin: new URL(chat.url).origin, retryDelaysSeconds: [0.2] } });
t.teardown(() => vigil.close());

const FROM = '2026-03-02T00:00:00.000Z';
const TO = '2026-03-12T00:00:00.000Z';
const RANGE = `from=${FROM}&to=${TO}`;

const org = await alertOrg(vigil, { auto_open_incidents: true, auto_close_incidents: true, incident_severity_floor: 'critical', alert_refire_cooldown_minutes: 0, investigation_paused: true });
t.teardown(() => org.agent.close());
const put = await org.api.put(`${CONFIG}/chat`, { workspace_id: WORKSPACE, bot_token: BOT, default_channel: '#ops', signing_secret: SECRET });
if (put.status !== 200) throw new Error(JSON.stringify(put.body));
const member = await person(vigil, { [org.id]: 'member' }, 'alice@example.com');
await person(vigil, { [org.id]: 'member' }, 'bob@example.com');
chat.users.set('UALICE', member.email);
const webhookToken = (await vigil.operator.get(`/api/admin/v1/organizations/${org.id}`)).body.webhook_token as string;

const at = (iso: string) => vigil.clock.set(iso);
const id = async (name: string) => (await org.alert(name)).id as string;

/** A signed Acknowledge press in the chat workspace by the chat user mapped to alice. */
async function pressAcknowledge(alertId: string) {
  const payload = {
    type: 'block_actions', user: { id: 'UALICE', username: 'alice', team_id: WORKSPACE }, team: { id: WORKSPACE, domain: 'acme' }, api_app_id: 'A0VIGIL',
    trigger_id: `1.2.${randomUUID()}`, response_url: `${chat.url}/response/1`, container: { type: 'message', message_ts: '1772366400.000001', channel_id: 'C000001' },
    actions: [{ type: 'button', action_id: 'vigil_ack_alert', block_id: 'vigil_alert_actions', value: alertId, text: { type: 'plain_text', text: 'Acknowledge' }, action_ts: '1772366401.000001' }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = Math.floor(vigil.clock.now().getTime() / 1000);
  const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const res = await fetch(`${vigil.url}/webhooks/chat/${webhookToken}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature },
    body,
  });
  if (res.status !== 200) throw new Error(`press answered ${res.status}`);
}

async function acknowledge(name: string) {
  const res = await org.api.post(`${CONFIG}/alerts/${await id(name)}/acknowledge`, {});
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
}

// ---- the history ----
// the previous range [2026-02-20, 03-02): one alert acknowledged after 600 s and resolved after 1800 s
at('2026-02-25T10:00:00Z'); await org.fire({ name: 'Prev', severity: 'warning', service: 'web' });
at('2026-02-25T10:10:00Z'); await acknowledge('Prev');
at('2026-02-25T10:30:00Z'); await org.resolve({ name: 'Prev', severity: 'warning', service: 'web' });
// raised before the range, acknowledged inside it: belongs to no range's timings here
at('2026-03-01T23:50:00Z'); await org.fire({ name: 'Edge', severity: 'warning', service: 'web' });
at('2026-03-02T00:05:00Z'); await acknowledge('Edge');
// Disk (critical: opens an incident): acknowledged after 120 s, the incident after 180 s, resolved (and closed) after 1200 s
at('2026-03-02T10:00:00Z'); await org.fire({ name: 'Disk', severity: 'critical', service: 'db' });
at('2026-03-02T10:02:00Z'); await acknowledge('Disk');
at('2026-03-02T10:03:00Z');
const incidentId = (await org.alert('Disk')).incident_id as string;
const ackIncident = await org.agent.call('acknowledge_incident', { id: incidentId });
if (ackIncident.isError) throw new Error(JSON.stringify(ackIncident.body));
at('2026-03-02T10:20:00Z'); await org.resolve({ name: 'Disk', severity: 'critical', service: 'db' });
// Cpu: acknowledged by a chat press after 300 s, resolved after 2700 s
at('2026-03-03T10:00:00Z'); await org.fire({ name: 'Cpu', severity: 'warning', service: 'web' });
at('2026-03-03T10:05:00Z'); await pressAcknowledge(await id('Cpu'));
at('2026-03-03T10:45:00Z'); await org.resolve({ name: 'Cpu', severity: 'warning', service: 'web' });
// Flap: four fire/resolve cycles on 03-04, each resolved after 600 s, never acknowledged
for (const hour of ['09', '10', '11', '12']) {
  at(`2026-03-04T${hour}:00:00Z`); await org.fire({ name: 'Flap', severity: 'warning', service: 'web' });
  at(`2026-03-04T${hour}:10:00Z`); await org.resolve({ name: 'Flap', severity: 'warning', service: 'web' });
}
// Late: raised in the range, resolved after it (2100 s), never acknowledged
at('2026-03-11T23:55:00Z'); await org.fire({ name: 'Late', severity: 'warning', service: 'web' });
at('2026-03-12T00:30:00Z'); await org.resolve({ name: 'Late', severity: 'warning', service: 'web' });
// After: raised at the range's end, which is excluded
at(TO); await org.fire({ name: 'After', severity: 'warning', service: 'web' });

// alice is on call on a New York schedule from before the range to after it
const schedule = await org.api.post(`${CONFIG}/schedules`, {
  name: 'NY primary', time_zone: 'America/New_York',
  layers: [{ name: 'Alice', participants: ['alice@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2026-02-01T00:00' }],
});
if (schedule.status !== 201) throw new Error(JSON.stringify(schedule.body));

// pages as the escalation engine records them (its own writer): New York moves to EDT on 2026-03-08 at 07:00 UTC
const sql = sqlExecutor(vigil.running.services.db);
const escalation = randomUUID();
let step = 0;
async function notified(email: string, alert: string, iso: string, channel = 'sms', sameStep = false) {
  if (!sameStep) step++;
  await recordEffects(sql, new Date(iso), [{ organizationId: org.id, alertId: await id(alert), kind: 'notified', detail: { escalation_id: escalation, step, loop: 0, email, channel, queued: true } }]);
}
await notified('alice@example.com', 'Disk', '2026-03-06T13:30:00Z'); // Fri 08:30 EST: off hours (09:30 were it EDT)
await notified('alice@example.com', 'Disk', '2026-03-07T03:30:00Z'); // Fri 22:30 EST: night
await notified('alice@example.com', 'Disk', '2026-03-09T13:30:00Z'); // Mon 09:30 EDT: working hours (08:30 were it EST)
await notified('alice@example.com', 'Disk', '2026-03-09T13:31:00Z', 'voice', true); // the same page by another channel: not a second page
await notified('alice@example.com', 'Disk', '2026-03-10T02:30:00Z'); // Mon 22:30 EDT: night (21:30 were it EST)
await notified('alice@example.com', 'Disk', '2026-03-12T01:00:00Z'); // after the range
await notified('bob@example.com', 'Cpu', '2026-03-08T12:00:00Z'); // Sunday noon UTC (bob has no schedule): off hours
at('2026-03-12T06:00:00Z');

t.test('every figure of the seeded range, through REST', async (t) => {
  const res = await org.api.get(`${CONFIG}/insights?${RANGE}`);
  t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const d = res.body.data;
  t.same(d.previous, { from: '2026-02-20T00:00:00.000Z', to: FROM }, 'the previous range is as long and ends where this starts');
  t.match(d.alerts, { fires: 7, alerts_fired: 4, raised: 7, resolved_unacknowledged: 5, opened_incidents: 1, incident_share: 0.25 },
    'Disk, Cpu, four Flap cycles and Late; not Edge (raised before) nor After (raised at the end); Flap\'s four cycles and Late resolved unacknowledged');
  t.match(d.alerts.time_to_acknowledge, { count: 2, median: 120, p90: 300, previous: { count: 2, median: 600, p90: 900 }, median_change: -480, p90_change: -600 },
    'Disk by REST (120 s) and Cpu by chat (300 s); Edge, raised before the range and acknowledged inside it, counts in the previous range (900 s) beside Prev (600 s)');
  t.match(d.alerts.time_to_resolve, { count: 7, median: 600, p90: 2700, previous: { count: 1, median: 1800 } }, 'Flap 600 four times (every cycle), Disk 1200, Late 2100 (resolved after the range), Cpu 2700');
  t.match(d.incidents, { opened: 1, time_to_acknowledge: { count: 1, median: 180 }, time_to_resolve: { count: 1, median: 1200 } });
  t.equal(d.volume_by_day.length, 10, 'every day of the range is listed');
  t.same(d.volume_by_day.filter((v: any) => v.fires).map((v: any) => [v.day, v.fires]), [['2026-03-02', 1], ['2026-03-03', 1], ['2026-03-04', 4], ['2026-03-11', 1]]);
  t.same(d.noisiest.map((n: any) => [n.fingerprint, n.fires]), [['metric-dashboard:flap', 4], ['metric-dashboard:cpu', 1], ['metric-dashboard:disk', 1], ['metric-dashboard:late', 1]]);
  t.match(d.flapping, [{ fingerprint: 'metric-dashboard:flap', day: '2026-03-04', cycles: 4, flapping_days: 1 }]);
  t.equal(d.flapping.length, 1, 'one fire a day is not flapping');
  t.same(d.resolved_unacknowledged.map((a: any) => a.fingerprint), ['metric-dashboard:flap', 'metric-dashboard:late']);
  t.same(d.pages_by_person, [
    { email: 'alice@example.com', total: 4, working_hours: 1, off_hours: 1, night: 2 },
    { email: 'bob@example.com', total: 1, working_hours: 0, off_hours: 1, night: 0 },
  ], 'alice\'s pages read in New York time on both sides of the clock change; bob, on no schedule, in UTC');
  t.same(d.on_call, [{ email: 'alice@example.com', hours_on_call: 240, pages: 4 }, { email: 'bob@example.com', hours_on_call: 0, pages: 1 }],
    'ten days on call are 240 hours, the short night included');
});

t.test('filters narrow every figure', async (t) => {
  const db = (await org.api.get(`${CONFIG}/insights?${RANGE}&service=db`)).body.data;
  t.match(db.alerts, { fires: 1, alerts_fired: 1, opened_incidents: 1, incident_share: 1 });
  t.same(db.noisiest.map((n: any) => n.fingerprint), ['metric-dashboard:disk']);
  t.same(db.pages_by_person.map((p: any) => [p.email, p.total]), [['alice@example.com', 4]], 'only the pages of the db alert');
  t.equal(db.incidents.opened, 1, 'the incident has an alert of the service');
  const web = (await org.api.get(`${CONFIG}/insights?${RANGE}&service=web`)).body.data;
  t.equal(web.incidents.opened, 0, 'no incident has an alert of web');
  const warning = (await org.api.get(`${CONFIG}/insights?${RANGE}&severity=warning&source=metric-dashboard`)).body.data;
  t.match(warning.alerts, { fires: 6, alerts_fired: 3 });
  t.equal(warning.incidents.opened, 0, 'the incident is critical');
  const other = (await org.api.get(`${CONFIG}/insights?${RANGE}&source=heartbeat`)).body.data;
  t.match(other.alerts, { fires: 0, alerts_fired: 0, incident_share: null, time_to_acknowledge: { count: 0, median: null, median_change: null } });
});

t.test('the agent tool answers the same figures', async (t) => {
  const rest = (await org.api.get(`${CONFIG}/insights?${RANGE}`)).body;
  const tool = await org.agent.call('get_insights', { from: FROM, to: TO });
  t.notOk(tool.isError);
  t.same(tool.body, rest);
});

t.test('CSV when the client asks for it', async (t) => {
  const { token } = await org.key(['api:config_read']);
  const res = await fetch(`${vigil.url}${CONFIG}/insights?${RANGE}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/csv/);
  const lines = (await res.text()).split('\r\n');
  t.equal(lines[0], 'figure,subject,measure,value');
  t.ok(lines.includes('noisiest,metric-dashboard:flap,fires,4'));
  t.ok(lines.includes('alerts.time_to_acknowledge,,median,120'));
  t.ok(lines.includes('pages_by_person,alice@example.com,night,2'));
  t.ok(lines.includes('on_call,alice@example.com,hours_on_call,240'));
  const json = await fetch(`${vigil.url}${CONFIG}/insights?${RANGE}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/csv;q=0.5' } });
  t.match(json.headers.get('content-type'), /^application\/json/, 'JSON when it is preferred');
});

t.test('ranges that end before they start, span more than a year or name no instant are 422 naming the field', async (t) => {
  const cases: [string, string][] = [
    ['from=2026-03-05T00:00:00Z&to=2026-03-04T00:00:00Z', 'to'],
    ['from=2026-03-05T00:00:00Z&to=2026-03-05T00:00:00Z', 'to'],
    ['from=2025-03-01T00:00:00Z&to=2026-03-05T00:00:00Z', 'from'],
    ['from=yesterday&to=2026-03-05T00:00:00Z', 'from'],
    ['from=2026-03-01T00:00:00Z&to=1772668800', 'to'],
  ];
  for (const [query, field] of cases) {
    const res = await org.api.get(`${CONFIG}/insights?${query}`);
    t.equal(res.status, 422, query);
    t.match(res.body, { error: 'validation_failed', errors: [{ field }] }, query);
  }
  const unknown = await org.api.get(`${CONFIG}/insights?${RANGE}&colour=red`);
  t.equal(unknown.status, 422, 'an unknown filter is refused');
});

t.test('plans: free has no insights; team sees the last 7 days only', async (t) => {
  const free = await vigil.organization('free', { config_api: true });
  const freeKey = await free.key(['api:admin']);
  const refused = await freeKey.get(`${CONFIG}/insights`);
  t.equal(refused.status, 403);
  t.match(refused.body, { error: 'plan_required', feature: 'insights' });

  const team = await vigil.organization('team', { config_api: true });
  const teamKey = await team.key(['api:admin']);
  const recent = await teamKey.get(`${CONFIG}/insights`);
  t.equal(recent.status, 200, 'the default range is the last 7 days');
  t.equal(recent.body.data.from, '2026-03-05T06:00:00.000Z');
  const old = await teamKey.get(`${CONFIG}/insights?from=2026-03-01T00:00:00Z&to=2026-03-06T00:00:00Z`);
  t.equal(old.status, 403);
  t.match(old.body, { error: 'plan_required', feature: 'insights_history' });
  const addOn = await vigil.operator.patch(`/api/admin/v1/organizations/${team.id}`, { features: { config_api: true, insights_history: true } });
  t.equal(addOn.status, 200);
  t.equal((await teamKey.get(`${CONFIG}/insights?from=2026-03-01T00:00:00Z&to=2026-03-06T00:00:00Z`)).status, 200, 'the history add-on lifts the limit');
});

t.test('team_id: the alerts a route of the team matched, and the team\'s schedules only', async (t) => {
  const other = await alertOrg(vigil, { investigation_paused: true });
  t.teardown(() => other.agent.close());
  const payments = await other.create('teams', { name: 'Payments' });
  const platform = await other.create('teams', { name: 'Platform' });
  await other.create('alert_routes', { name: 'Payments', team_id: payments.id, matchers: [{ field: 'service', operator: 'equals', value: 'payments' }] });
  at('2026-03-13T09:00:00Z');
  await other.fire({ name: 'CardDeclines', severity: 'warning', service: 'payments' });
  await other.fire({ name: 'BuildSlow', severity: 'warning', service: 'ci' });
  at('2026-03-13T12:00:00Z');
  const range = 'from=2026-03-13T00:00:00Z&to=2026-03-14T00:00:00Z';
  const all = (await other.api.get(`${CONFIG}/insights?${range}`)).body.data;
  t.equal(all.alerts.alerts_fired, 2);
  const mine = (await other.api.get(`${CONFIG}/insights?${range}&team_id=${payments.id}`)).body.data;
  t.same(mine.noisiest.map((n: any) => n.fingerprint), ['metric-dashboard:carddeclines'], 'only the alert the team\'s route matched');
  const none = (await other.api.get(`${CONFIG}/insights?${range}&team_id=${platform.id}`)).body.data;
  t.equal(none.alerts.fires, 0, 'another team\'s view has none of it');
});

t.test('the figures computed in SQL: nearest-rank percentiles, ties by fingerprint in code-point order, days and flapping on a history written straight to the tables', async (t) => {
  // PGlite and PostgreSQL answer the same: the counts, days and percentiles are the database's (percentile_disc)
  const seeded = await vigil.organization('business', { config_api: true });
  const key = await seeded.key(['api:admin']);
  const alert = async (fingerprint: string, raised: string, ack: number | null, resolved: number | null, fires: string[]) => {
    const id = randomUUID();
    const r = Date.parse(raised);
    const after = (s: number | null) => (s === null ? null : new Date(r + s * 1000));
    await sql(
      `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, labels, status, started_at, raised_at, acknowledged_at, resolved_at, last_received_at, created_at, updated_at)
       values (?, ?, ?, 'metric-dashboard', ?, 'web', 'warning', '{}'::jsonb, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, seeded.id, fingerprint, `Title ${fingerprint}`, resolved === null ? 'firing' : 'resolved', new Date(r), new Date(r), after(ack), after(resolved), new Date(r), new Date(r), new Date(r)],
    );
    for (const at of fires) await sql(`insert into alert_effects (organization_id, alert_id, at, kind, detail) values (?, ?, ?, 'page', '{}'::jsonb)`, [seeded.id, id, new Date(at)]);
  };
  // ten alerts acknowledged after 1..10 minutes and resolved after 10..100 minutes, each fired once on 04-01
  for (let i = 0; i < 10; i++) {
    const raised = new Date(Date.parse('2026-04-01T01:00:00Z') + i * 60_000).toISOString();
    await alert(`t${i}`, raised, (i + 1) * 60, (i + 1) * 600, [raised]);
  }
  // the range before: acknowledged after 100, 200, 300 s; resolved after 1000, 2000, 3000 s
  for (const [i, s] of [100, 200, 300].entries()) await alert(`p${i}`, `2026-03-31T10:0${i}:00Z`, s, s * 10, []);
  // three alerts with two fires each: code-point order puts the capital first and '-' before '_'
  await alert('a_under', '2026-04-01T02:00:00Z', null, 60, ['2026-04-01T02:00:00Z', '2026-04-01T03:00:00Z']);
  await alert('a-lower', '2026-04-01T02:00:00Z', null, null, ['2026-04-01T02:00:00Z', '2026-04-01T03:00:00Z']);
  await alert('B-upper', '2026-04-01T02:00:00Z', null, null, ['2026-04-01T02:00:00Z', '2026-04-01T03:00:00Z']);
  // flapping four times on both days: the worst day is the earlier of the two
  await alert('Zflap', '2026-04-02T05:00:00Z', null, null, ['01', '02', '03', '04'].flatMap((h) => [`2026-04-01T${h}:30:00Z`, `2026-04-02T${h}:30:00Z`]));
  const answer = await key.get(`${CONFIG}/insights?from=2026-04-01T00:00:00Z&to=2026-04-03T00:00:00Z`);
  t.equal(answer.status, 200);
  const d = answer.body.data;
  t.same(d.alerts.time_to_acknowledge, { count: 10, median: 300, p90: 540, previous: { count: 3, median: 200, p90: 300 }, median_change: 100, p90_change: 240 }, 'nearest rank: the 5th and 9th of ten, the 2nd and 3rd of three');
  t.same(d.alerts.time_to_resolve, { count: 11, median: 3000, p90: 5400, previous: { count: 3, median: 2000, p90: 3000 }, median_change: 1000, p90_change: 2400 }, 'a_under\'s 60 s counts among eleven');
  t.match(d.alerts, { fires: 24, alerts_fired: 14, raised: 14, resolved_unacknowledged: 1 });
  t.same(d.volume_by_day, [{ day: '2026-04-01', fires: 20 }, { day: '2026-04-02', fires: 4 }]);
  t.same(d.noisiest.map((n: any) => [n.fingerprint, n.fires]), [['Zflap', 8], ['B-upper', 2], ['a-lower', 2], ['a_under', 2], ...Array.from({ length: 10 }, (_, i) => [`t${i}`, 1])], 'most first, equals by fingerprint in code-point order');
  t.same(d.flapping, [{ fingerprint: 'Zflap', title: 'Title Zflap', service: 'web', day: '2026-04-01', cycles: 4, flapping_days: 2 }]);
  t.same(d.resolved_unacknowledged, [{ fingerprint: 'a_under', title: 'Title a_under', service: 'web' }]);
});

t.test('thousands of alerts tied for the noisiest list: the first 20 by fingerprint, read by one scan of the organization\'s alerts', async (t) => {
  const many = await vigil.organization('business', { config_api: true });
  const key = await many.key(['api:admin']);
  // 2,500 alerts fired once each (more than the 2,000 joined one by one), and one fired twice
  await sql(
    `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, labels, status, started_at, raised_at, last_received_at, created_at, updated_at)
     select gen_random_uuid(), ?, 'f' || lpad(g::text, 5, '0'), 'metric-dashboard', 'T' || g, null, 'warning', '{}'::jsonb, 'firing', t, t, t, t, t
       from (select g, ?::timestamptz + g * interval '1 second' as t from generate_series(1, 2500) g) s`,
    [many.id, new Date('2026-04-05T00:00:00Z')],
  );
  await sql(
    `insert into alert_effects (organization_id, alert_id, at, kind, detail)
     select organization_id, id, raised_at, 'page', '{}'::jsonb from alerts where organization_id = ?
     union all select organization_id, id, raised_at + interval '1 hour', 'page_skipped', '{}'::jsonb from alerts where organization_id = ? and fingerprint = 'f02000'`,
    [many.id, many.id],
  );
  const d = (await key.get(`${CONFIG}/insights?from=2026-04-05T00:00:00Z&to=2026-04-06T00:00:00Z`)).body.data;
  t.match(d.alerts, { fires: 2501, alerts_fired: 2500 });
  t.same(d.noisiest.map((n: any) => [n.fingerprint, n.fires]), [['f02000', 2], ...Array.from({ length: 19 }, (_, i) => [`f${String(i + 1).padStart(5, '0')}`, 1])]);
  t.same(d.noisiest[1], { fingerprint: 'f00001', title: 'T1', service: null, fires: 1 });
});

t.test('every cycle of a re-fired alert is measured: the ended ones recorded as the alert is raised again', async (t) => {
  const cycles = await alertOrg(vigil, { alert_refire_cooldown_minutes: 0, investigation_paused: true });
  t.teardown(() => cycles.agent.close());
  const ack = async (name: string) => {
    const res = await cycles.api.post(`${CONFIG}/alerts/${(await cycles.alert(name)).id}/acknowledge`, {});
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  };
  const cycle = async (name: string, raised: string, acked: number | null, resolved: number) => {
    const r = Date.parse(raised);
    at(raised); await cycles.fire({ name, severity: 'warning', service: 'web' });
    if (acked !== null) { at(new Date(r + acked * 1000).toISOString()); await ack(name); }
    at(new Date(r + resolved * 1000).toISOString()); await cycles.resolve({ name, severity: 'warning', service: 'web' });
  };
  await cycle('Straddle', '2026-03-19T23:00:00Z', 120, 1200); // the previous range
  await cycle('Straddle', '2026-03-20T01:00:00Z', 60, 600); // raised again in the range
  await cycle('Twice', '2026-03-20T10:00:00Z', 60, 600);
  await cycle('Twice', '2026-03-20T11:00:00Z', 300, 1800);
  await cycle('Once', '2026-03-21T09:00:00Z', 120, 900);
  await cycle('Quiet', '2026-03-21T12:00:00Z', null, 300);
  await cycle('Quiet', '2026-03-21T13:00:00Z', null, 300);
  at('2026-03-22T06:00:00Z');

  const twice = await cycles.alert('Twice');
  t.same(twice.effects.filter((e: any) => e.kind === 'cycle_ended'), [{ kind: 'cycle_ended', at: '2026-03-20T11:00:00.000Z', detail: {
    raised_at: '2026-03-20T10:00:00.000Z', acknowledged_at: '2026-03-20T10:01:00.000Z', resolved_at: '2026-03-20T10:10:00.000Z',
  } }], 'the raise again recorded the cycle it ended, in the same transaction as its page');
  t.notOk((await cycles.alert('Once')).effects.some((e: any) => e.kind === 'cycle_ended'), 'a first raise ends no cycle');

  const d = (await cycles.api.get(`${CONFIG}/insights?from=2026-03-20T00:00:00Z&to=2026-03-22T00:00:00Z`)).body.data;
  t.match(d.alerts, { fires: 6, alerts_fired: 4, raised: 6, resolved_unacknowledged: 2 }, 'six cycles raised in the range: both of Twice and Quiet, the second of Straddle, Once');
  t.same(d.alerts.time_to_acknowledge, { count: 4, median: 60, p90: 300, previous: { count: 1, median: 120, p90: 120 }, median_change: -60, p90_change: 180 },
    'acknowledged after 60 (Straddle), 60 and 300 (Twice), 120 (Once); Straddle\'s first cycle, raised before the range, is the previous range\'s');
  t.same(d.alerts.time_to_resolve, { count: 6, median: 600, p90: 1800, previous: { count: 1, median: 1200, p90: 1200 }, median_change: -600, p90_change: 600 },
    'resolved after 300 and 300 (Quiet), 600 (Straddle), 600 and 1800 (Twice), 900 (Once): nearest rank, the 3rd and 6th of six');
  t.same(d.resolved_unacknowledged.map((a: any) => a.fingerprint), ['metric-dashboard:quiet'], 'an alert with two such cycles is listed once');
  const quiet = (await cycles.api.get(`${CONFIG}/insights?from=2026-03-20T00:00:00Z&to=2026-03-22T00:00:00Z&service=db`)).body.data;
  t.match(quiet.alerts, { raised: 0, time_to_resolve: { count: 0 } }, 'the filters apply to the recorded cycles too');
});
