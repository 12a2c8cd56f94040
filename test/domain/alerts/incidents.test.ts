/**
 * Incidents as a read model and as something people act on, through REST and MCP: list_incidents (filters, pages with
 * inserts between them, cursors bound to their list), get_incident with a timeline of every kind (its alert and
 * effects, deployments of its service around it, chat messages, investigations, notes, actions), and the incident
 * actions with their consequences (alerts acknowledged/resolved through the pipeline, incident.closed / opened going
 * out, audit entries with the actor), the note's Idempotency-Key replay, and the refusals.
 */
import t from 'tap';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs } from '../../helpers/jobs.ts';
import { startFakeChat } from '../../helpers/fake-chat.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { alertOrg, effects, type AlertOrg } from '../../helpers/outbound.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const BOT = 'xoxb-incidents-test-token-51c2d0';
const chat = await startFakeChat({ token: BOT, channels: ['#ops'] });
t.teardown(() => chat.close());
const vigil = await startVigil({ chat: { apiUrl: chat.url, retryDelaysSeconds: [0.2] } });
t.teardown(() => vigil.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());

const MINUTE = 60_000;

async function org(settings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const o = await alertOrg(vigil, { auto_open_incidents: true, ...settings });
  t.teardown(() => o.agent.close());
  return o;
}

async function incidentOf(o: AlertOrg, alertName: string): Promise<string> {
  const id = (await o.alert(alertName)).incident_id;
  if (!id) throw new Error(`${alertName} opened no incident`);
  return id;
}

async function deploy(o: AlertOrg, body: Record<string, unknown>) {
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token;
  const res = await fetch(`${vigil.url}/webhooks/deployments/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'ci/1.0' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(await res.text());
}

/**
 * An incident as two reads moments apart agree on it: chat messages are being sent and the investigation run
 * meanwhile, and their state may move on between the reads (an investigation's entry moves to when it finished),
 * so those are compared by what they are, not where they stand.
 */
const settled = (data: any) => ({
  ...data,
  timeline: data.timeline
    .filter((e: any) => e.kind !== 'investigation')
    .map((e: any) => (e.kind === 'chat_message' ? { kind: e.kind, at: e.at, alert_id: e.alert_id, detail: { message_id: e.detail.message_id } } : e)),
  investigations: data.timeline.filter((e: any) => e.kind === 'investigation').map((e: any) => e.detail.investigation_id).sort(),
});

t.test('list_incidents filters and pages; get_incident answers its alerts and a timeline of every kind', async (t) => {
  const o = await org();
  t.equal((await o.api.put(`${CONFIG}/chat`, { workspace_id: 'T0CHAT', bot_token: BOT, default_channel: '#ops' })).status, 200);
  const start = vigil.clock.now().getTime();
  await deploy(o, { service: 'checkout', version: 'v1', dedup_key: 'old', status: 'succeeded', completed_at: new Date(start - 3 * 60 * MINUTE).toISOString() });
  await deploy(o, { service: 'checkout', version: 'v2', environment: 'production', dedup_key: 'suspect', status: 'succeeded' });
  await deploy(o, { service: 'search', version: 'v9', dedup_key: 'elsewhere', status: 'succeeded' });
  vigil.clock.advance(5 * MINUTE);
  await o.fire({ name: 'Checkout5xx', service: 'checkout' });
  vigil.clock.advance(MINUTE);
  await o.fire({ name: 'SearchDown', service: 'search', severity: 'critical' });
  await o.fire({ name: 'Quiet', severity: 'warning' });

  const listed = await o.api.get(`${CONFIG}/incidents`);
  t.equal(listed.status, 200);
  t.same(listed.body.data.map((i: any) => [i.title, i.status, i.services]), [['SearchDown', 'open', ['search']], ['Checkout5xx', 'open', ['checkout']]], 'newest first; a warning opened none (incident_severity_floor)');
  t.same([listed.body.next_cursor, listed.body.truncated], [null, false]);
  t.same((await o.api.get(`${CONFIG}/incidents?service=checkout`)).body.data.map((i: any) => i.title), ['Checkout5xx'], 'by service (its alerts\')');
  t.same((await o.api.get(`${CONFIG}/incidents?status=closed`)).body.data, []);
  t.equal((await o.api.get(`${CONFIG}/incidents?severity=loud`)).body.errors[0].field, 'severity');
  const since = new Date(start + 6 * MINUTE).toISOString();
  t.same((await o.agent.call('list_incidents', { since })).body.data.map((i: any) => i.title), ['SearchDown'], 'since: opened at or after');

  const id = await incidentOf(o, 'Checkout5xx');
  await o.agent.call('add_incident_note', { id, body: 'Rolling back v2', idempotency_key: 'note-1' });
  await o.api.post(`${CONFIG}/incidents/${id}/acknowledge`);
  const got = await o.agent.call('get_incident', { id });
  t.equal(got.isError, false);
  const incident = got.body.data;
  t.match(incident, { id, title: 'Checkout5xx', severity: 'critical', status: 'open', acknowledged_at: new Date(start + 6 * MINUTE).toISOString(), assignee: null, resolved_by: null });
  t.same(incident.alerts.map((a: any) => [a.title, a.status]), [['Checkout5xx', 'acknowledged']]);
  const kinds = new Set(incident.timeline.map((e: any) => e.kind));
  t.same([...kinds].sort(), ['action', 'alert', 'alert_effect', 'chat_message', 'deployment', 'investigation', 'note'], 'every kind of entry');
  t.ok(incident.timeline.some((e: any) => e.kind === 'chat_message' && e.detail.event_type === 'alert.acknowledged'), 'the acknowledgement reached its chat thread');
  t.same(incident.timeline.filter((e: any) => e.kind === 'deployment').map((e: any) => e.detail.version), ['v2'], 'deployments of its service from 2 h before it opened: not the older one, not another service\'s');
  t.match(incident.timeline.find((e: any) => e.kind === 'note'), { summary: 'Rolling back v2', detail: { body: 'Rolling back v2', by: { kind: 'api_key' } } });
  t.same(incident.timeline.filter((e: any) => e.kind === 'action').map((e: any) => e.detail.action), ['add_incident_note', 'acknowledge_incident'], 'the actions on it');
  const times = incident.timeline.map((e: any) => e.at);
  t.same(times, [...times].sort(), 'oldest first');
  const rest = await o.api.get(`${CONFIG}/incidents/${id}`);
  t.same(settled(rest.body.data), settled(got.body.data), 'REST answers what MCP does');
  t.equal((await o.api.get(`${CONFIG}/incidents/00000000-0000-4000-8000-000000000000`)).status, 404);
  t.equal((await (await org()).api.get(`${CONFIG}/incidents/${id}`)).status, 404, 'another organization\'s incident is unknown');
});

t.test('incident pages: no incident skipped or repeated while others open; a cursor reads only on its list', async (t) => {
  const o = await org();
  for (let i = 1; i <= 5; i++) await o.fire({ name: `Inc${i}` });
  const seen: string[] = [];
  let url = `${CONFIG}/incidents?limit=2`;
  for (let page = 1; ; page++) {
    const got = await o.api.get(url);
    seen.push(...got.body.data.map((i: any) => i.title));
    if (!got.body.next_cursor) break;
    await o.fire({ name: `New${page}` });
    const link = got.headers.get('link')!;
    url = link.slice(link.indexOf(CONFIG), link.indexOf('>'));
  }
  t.same(seen, ['Inc5', 'Inc4', 'Inc3', 'Inc2', 'Inc1']);
  const first = await o.agent.call('list_incidents', { limit: 1 });
  const alertsCursor = (await o.agent.call('list_alerts', { limit: 1 })).body.next_cursor;
  const refused = await o.agent.call('list_incidents', { limit: 1, cursor: alertsCursor });
  t.same([refused.isError, refused.body.errors[0].field], [true, 'cursor'], 'list_alerts\' cursor is not list_incidents\'');
  const filtered = await o.agent.call('list_incidents', { limit: 1, status: 'open', cursor: first.body.next_cursor });
  t.same(filtered.body.errors[0].field, 'cursor', 'nor one issued under other filters');
});

t.test('incident actions: their consequences through the pipeline, repeats, replays, audit', async (t) => {
  const o = await org({ auto_close_incidents: false });
  const config = await o.create('outbound_configs', { name: 'events', kind: 'webhook', url: `${receiver.url}/events` });
  await o.create('outbound_rules', { name: 'all', events: ['alert.acknowledged', 'alert.resolved', 'incident.opened', 'incident.closed'], outbound_config_id: config.id });
  await o.fire({ name: 'Payments', service: 'payments' });
  // the alert's investigation settles first (it fails here: no AI provider), so the answers compared below are not
  // two readings on either side of its job, which now starts the moment the alert commits
  await drainJobs(vigil.running.services);
  const id = await incidentOf(o, 'Payments');
  const alertId = (await o.alert('Payments')).id;
  const keyId = (o.api as unknown as { keyId: string }).keyId;
  const by = { kind: 'api_key', id: keyId };

  const acked = await o.api.post(`${CONFIG}/incidents/${id}/acknowledge`);
  t.equal(acked.status, 200);
  t.match(acked.body.data, { status: 'open', acknowledged_by: by, alerts: [{ status: 'acknowledged' }] }, 'its firing alert is acknowledged');
  t.same(effects(await o.alert('Payments'), 'chat_thread_update'), [{ reason: 'acknowledged', by, queued: false, not_posted: 'chat_not_configured' }], 'the thread update recorded, and why it was not posted');
  t.equal((await o.deliveries({ event_type: 'alert.acknowledged' })).length, 1);
  const repeat = await o.api.post(`${CONFIG}/incidents/${id}/acknowledge`);
  t.same(repeat.body.data, acked.body.data, 'a repeat answers the incident unchanged');

  const unacked = await o.agent.call('unacknowledge_incident', { id });
  t.match(unacked.body.data, { acknowledged_at: null, acknowledged_by: null, alerts: [{ status: 'firing' }] });

  const severity = await o.api.post(`${CONFIG}/incidents/${id}/set_severity`, { severity: 'high' });
  t.equal(severity.body.data.severity, 'high');
  const user = await vigil.operator.post('/api/admin/v1/users', { email: `lead-${Date.now()}@example.com` });
  await vigil.operator.put(`/api/admin/v1/organizations/${o.id}/members/${user.body.id}`, { role: 'member' });
  t.same((await o.agent.call('assign_incident', { id, assignee: user.body.email })).body.data.assignee, { id: user.body.id, email: user.body.email, name: null });

  const note = await o.api.post(`${CONFIG}/incidents/${id}/notes`, { body: 'Card processor timing out' }, { 'idempotency-key': 'note-a' });
  t.equal(note.status, 200);
  const replay = await o.api.post(`${CONFIG}/incidents/${id}/notes`, { body: 'Card processor timing out' }, { 'idempotency-key': 'note-a' });
  t.same([replay.headers.get('idempotent-replayed'), replay.body], ['true', note.body], 'the same key replays the first answer');
  const other = await o.api.post(`${CONFIG}/incidents/${id}/notes`, { body: 'something else' }, { 'idempotency-key': 'note-a' });
  t.same([other.status, other.body.errors[0].field], [422, 'Idempotency-Key'], 'the same key with another body is refused');
  await o.api.post(`${CONFIG}/incidents/${id}/notes`, { body: 'Escalated to the processor' });
  const notes = (await o.api.get(`${CONFIG}/incidents/${id}`)).body.data.timeline.filter((e: any) => e.kind === 'note').map((e: any) => e.detail.body);
  t.same(notes, ['Card processor timing out', 'Escalated to the processor'], 'one note per request, not per retry');

  vigil.clock.advance(MINUTE);
  const resolved = await o.agent.call('resolve_incident', { id });
  t.match(resolved.body.data, { status: 'closed', closed_at: vigil.clock.now().toISOString(), resolved_by: { kind: 'api_key' }, alerts: [{ status: 'resolved' }] },
    'its alert resolved and the incident closed, though auto_close_incidents is off');
  const closedEffects = effects(await o.alert('Payments'), 'incident_closed');
  t.equal(closedEffects.length, 1);
  t.equal(closedEffects[0].incident_id, id);
  t.same((await o.deliveries({ event_type: 'incident.closed' })).map((d: any) => d.subject_id), [id], 'incident.closed goes out once');
  t.same((await o.deliveries({ event_type: 'alert.resolved' })).map((d: any) => d.subject_id), [alertId]);
  t.same(settled((await o.agent.call('resolve_incident', { id })).body.data), settled(resolved.body.data), 'resolving a closed incident changes nothing');
  const conflict = await o.api.post(`${CONFIG}/incidents/${id}/acknowledge`);
  t.match([conflict.status, conflict.body], [409, { error: 'conflict', message: /closed/, data: { id, status: 'closed' } }]);

  const reopened = await o.api.post(`${CONFIG}/incidents/${id}/reopen`);
  t.match(reopened.body.data, { status: 'open', closed_at: null, resolved_by: null, alerts: [{ status: 'resolved' }] }, 'open again; its alert stays resolved');
  t.equal((await o.deliveries({ event_type: 'incident.opened' })).length, 2, 'incident.opened goes out again');
  t.equal((await o.api.post(`${CONFIG}/incidents/${id}/reopen`)).status, 200, 'reopening an open incident changes nothing');

  const log = await o.api.get(`${CONFIG}/audit_log`);
  t.same(log.body.data.filter((e: any) => e.family === 'incidents').map((e: any) => [e.action, e.actor.id === keyId || e.actor.kind === 'api_key', e.transport]).reverse(), [
    ['action:acknowledge_incident', true, 'rest'],
    ['action:unacknowledge_incident', true, 'mcp'],
    ['action:set_incident_severity', true, 'rest'],
    ['action:assign_incident', true, 'mcp'],
    ['action:add_incident_note', true, 'rest'],
    ['action:add_incident_note', true, 'rest'],
    ['action:resolve_incident', true, 'mcp'],
    ['action:reopen_incident', true, 'rest'],
  ], 'one entry per change, none for repeats or the replay');
});

t.test('incident refusals: read-only keys, another organization, bad input', async (t) => {
  const o = await org();
  await o.fire({ name: 'Refusals' });
  const id = await incidentOf(o, 'Refusals');
  const readOnly = client(vigil.url, (await o.key(['api:config_read'])).token);
  t.same((await readOnly.post(`${CONFIG}/incidents/${id}/resolve`)).status, 403);
  t.equal((await readOnly.get(`${CONFIG}/incidents/${id}`)).status, 200, 'a read-only key reads it');
  const viewer = await connectAgent(vigil.url, (await o.key(['mcp:read'])).token);
  t.teardown(() => viewer.close());
  t.equal((await viewer.call('add_incident_note', { id, body: 'x' })).body.error, 'read_only_key');
  const stranger = await org();
  t.equal((await stranger.api.post(`${CONFIG}/incidents/${id}/resolve`)).status, 404, 'another organization\'s incident');
  const badSeverity = await o.api.post(`${CONFIG}/incidents/${id}/set_severity`, { severity: 'loud' });
  t.same([badSeverity.status, badSeverity.body.errors.map((e: any) => e.field)], [422, ['severity']]);
  const blank = await o.agent.call('add_incident_note', { id, body: '   ' });
  t.same(blank.body.errors.map((e: any) => e.field), ['body']);
  const incident = (await o.api.get(`${CONFIG}/incidents/${id}`)).body.data;
  t.match(incident, { status: 'open', severity: 'critical' }, 'nothing changed');
  t.same(incident.timeline.filter((e: any) => e.kind === 'note' || e.kind === 'action'), []);
});

t.test('the agent tools say what each action is: idempotent or keyed, reaching outside or not', async (t) => {
  const o = await org();
  const { tools } = await o.agent.client.listTools();
  const hints = (name: string) => {
    const tool = tools.find((x) => x.name === name)!;
    const a = tool.annotations!;
    return [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint, 'idempotency_key' in ((tool.inputSchema.properties ?? {}) as object)];
  };
  t.same(hints('list_incidents'), [true, false, true, false, false]);
  t.same(hints('acknowledge_alert'), [false, true, true, true, false], 'a repeat changes nothing; chat and outbound hear of it');
  t.same(hints('resolve_incident'), [false, true, true, true, false]);
  t.same(hints('set_incident_severity'), [false, true, true, false, false], 'changes the incident alone');
  t.same(hints('add_incident_note'), [false, false, false, false, true], 'adds a note each time: it takes an idempotency key');
});

t.test('a storm\'s incident: acknowledging and resolving it act on each of its alerts', async (t) => {
  const o = await org({ alert_storm_threshold: 3, auto_close_incidents: true });
  await o.fire({ name: 'StormA' }, { name: 'StormB' }, { name: 'StormC' });
  const listed = (await o.api.get(`${CONFIG}/incidents`)).body.data;
  const storm = (await Promise.all(listed.map((i: any) => o.api.get(`${CONFIG}/incidents/${i.id}`)))).map((r) => r.body.data).find((i) => i.alerts.length > 1);
  t.ok(storm, 'an incident holds several alerts');
  const acked = await o.api.post(`${CONFIG}/incidents/${storm.id}/acknowledge`);
  t.same(acked.body.data.alerts.map((a: any) => a.status), storm.alerts.map(() => 'acknowledged'), 'each of its firing alerts is acknowledged');
  const resolved = await o.agent.call('resolve_incident', { id: storm.id });
  t.same(resolved.body.data.alerts.map((a: any) => a.status), storm.alerts.map(() => 'resolved'), 'each is resolved');
  t.equal(resolved.body.data.status, 'closed');
  const closings = resolved.body.data.timeline.filter((e: any) => e.kind === 'alert_effect' && e.detail.effect === 'incident_closed');
  t.equal(closings.length, 1, 'closed once: by the last alert\'s resolve (auto_close_incidents)');
  t.equal(closings[0].alert_id, storm.alerts.at(-1).id);
  t.ok(closings[0].detail.by, 'naming who');
});
