/**
 * Alerts people can act on, through REST and MCP: list_alerts in pages (no skip, no repeat while alerts arrive;
 * cursors bound to their list), and acknowledge, un-acknowledge, resolve, reopen and assign with the consequences the
 * same event from a source has (effects with `by`, outbound events, incident auto-close), audited with the actor;
 * repeats change nothing; refusals (viewer, read-only key, another organization, bad input, state conflicts).
 */
import t from 'tap';
import { client, CONFIG, startVigil, type Client } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';
import { alertOrg, effects, kinds, type AlertOrg } from '../../helpers/outbound.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());

async function org(settings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const o = await alertOrg(vigil, settings);
  t.teardown(() => o.agent.close());
  return o;
}

/** Every page of list_alerts (REST), following `next_cursor`, firing `between` after each page. */
async function pages(api: Client, query: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let url = `${CONFIG}/alerts?${query}`;
  for (let page = 1; page < 50; page++) {
    const got = await api.get(url);
    if (got.status !== 200) throw new Error(JSON.stringify(got.body));
    seen.push(...got.body.data.map((a: any) => a.title));
    if (got.body.next_cursor === null) {
      if (got.headers.get('link') !== null) throw new Error('a Link header on the last page');
      return seen;
    }
    if (got.body.truncated !== true) throw new Error('truncated is false on a page with a next one');
    const link = got.headers.get('link')!;
    url = link.slice(link.indexOf(CONFIG), link.indexOf('>'));
    await between(page);
  }
  throw new Error('too many pages');
}

t.test('list_alerts pages: newest first, no alert skipped or repeated while others arrive; cursors only read on their list', async (t) => {
  const o = await org();
  for (let i = 1; i <= 7; i++) await o.fire({ name: `Page${i}`, service: i % 2 ? 'odd' : 'even' });
  let added = 0;
  const seen = await pages(o.api, 'limit=3', async () => {
    added++;
    await o.fire({ name: `Later${added}` }, { name: 'Page2', status: 'resolved' });
  });
  t.same(seen, ['Page7', 'Page6', 'Page5', 'Page4', 'Page3', 'Page2', 'Page1'], 'each alert once, in the order they were first recorded; later ones start the next reading');
  t.same(await pages(o.api, 'limit=2&service=odd'), ['Page7', 'Page5', 'Page3', 'Page1'], 'a filter holds across pages');

  const first = await o.api.get(`${CONFIG}/alerts?limit=2&service=odd`);
  const cursor = first.body.next_cursor as string;
  for (const [what, url] of [
    ['another filter', `${CONFIG}/alerts?limit=2&service=even&cursor=${encodeURIComponent(cursor)}`],
    ['a forged cursor', `${CONFIG}/alerts?limit=2&service=odd&cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`],
    ['a limit over the maximum (200, as documented)', `${CONFIG}/alerts?limit=201`],
  ] as const) {
    const refused = await o.api.get(url);
    t.equal(refused.status, 422, what);
    t.equal(refused.body.errors[0].field, what.includes('limit') ? 'limit' : 'cursor', `${what} names its field`);
  }
  const other = await org();
  const foreign = await other.api.get(`${CONFIG}/alerts?limit=2&service=odd&cursor=${encodeURIComponent(cursor)}`);
  t.same([foreign.status, foreign.body.errors[0].field], [422, 'cursor'], 'another organization\'s cursor is refused');

  const viaMcp = await o.agent.call('list_alerts', { limit: 4 });
  t.equal(viaMcp.body.data.length, 4);
  const rest = await o.agent.call('list_alerts', { limit: 200, cursor: viaMcp.body.next_cursor });
  t.same([rest.body.next_cursor, rest.body.truncated], [null, false], 'the last page over MCP');
  t.equal(viaMcp.body.data.length + rest.body.data.length, 9);
});

t.test('acknowledge, un-acknowledge, resolve and reopen: the consequences of the same event from a source, by whom', async (t) => {
  const o = await org({ auto_open_incidents: true, auto_close_incidents: true });
  const config = await o.create('outbound_configs', { name: 'events', kind: 'webhook', url: `${receiver.url}/events` });
  await o.create('outbound_rules', { name: 'all alerts', events: ['alert.acknowledged', 'alert.resolved', 'incident.closed', 'alert.fired'], outbound_config_id: config.id });
  await o.fire({ name: 'DiskFull', service: 'db' });
  const fired = await o.alert('DiskFull');
  t.equal(fired.status, 'firing');
  const keyId = (o.api as Client & { keyId: string }).keyId;

  const acked = await o.api.post(`${CONFIG}/alerts/${fired.id}/acknowledge`);
  t.equal(acked.status, 200);
  t.match(acked.body.data, { id: fired.id, status: 'acknowledged', acknowledged_at: '2026-03-01T12:00:00.000Z' }, 'answers the alert after the action');
  t.same(effects(acked.body.data, 'chat_thread_update'), [{ reason: 'acknowledged', by: { kind: 'api_key', id: keyId }, queued: false, not_posted: 'chat_not_configured' }], 'its chat thread update is recorded, naming who, and says it was not posted: no chat here');
  t.same((await o.deliveries({ event_type: 'alert.acknowledged' })).map((d: any) => d.subject_id), [fired.id], 'alert.acknowledged goes out');

  const again = await o.api.post(`${CONFIG}/alerts/${fired.id}/acknowledge`);
  t.same([again.status, again.body.data.effects.length], [200, acked.body.data.effects.length], 'a repeat answers the alert and does nothing');
  t.equal((await o.deliveries({ event_type: 'alert.acknowledged' })).length, 1, 'no second event');

  const unacked = await o.agent.call('unacknowledge_alert', { id: fired.id });
  t.equal(unacked.isError, false);
  t.match(unacked.body.data, { status: 'firing', acknowledged_at: null });
  t.equal(effects(unacked.body.data, 'chat_thread_update').at(-1).reason, 'unacknowledged', 'as the pager\'s un-acknowledge');
  t.equal(kinds(unacked.body.data).filter((k) => k === 'page').length, 1, 'nobody is paged again');

  vigil.clock.advance(60_000);
  const resolved = await o.agent.call('resolve_alert', { id: fired.id });
  t.match(resolved.body.data, { status: 'resolved', resolved_at: '2026-03-01T12:01:00.000Z', incident: { status: 'closed' } }, 'its incident closes (auto_close_incidents)');
  const mcpKey = resolved.body.data.effects.at(-1).detail.by;
  t.equal(mcpKey.kind, 'api_key');
  t.same(effects(resolved.body.data, 'incident_closed'), [{ incident_id: fired.incident_id, by: mcpKey }]);
  t.same((await o.deliveries({ event_type: 'incident.closed' })).map((d: any) => d.subject_id), [fired.incident_id], 'incident.closed goes out');
  t.equal((await o.deliveries({ event_type: 'alert.resolved' })).length, 1, 'alert.resolved goes out');

  const conflict = await o.api.post(`${CONFIG}/alerts/${fired.id}/acknowledge`);
  t.equal(conflict.status, 409, 'a resolved alert cannot be acknowledged');
  t.match(conflict.body, { error: 'conflict', message: /resolved/, data: { id: fired.id, status: 'resolved' } });
  t.equal((await o.api.post(`${CONFIG}/alerts/${fired.id}/unacknowledge`)).status, 409);

  vigil.clock.advance(60 * 60_000);
  const reopened = await o.api.post(`${CONFIG}/alerts/${fired.id}/reopen`);
  t.match(reopened.body.data, { status: 'firing', resolved_at: null });
  const pages = effects(reopened.body.data, 'page');
  t.match(pages.at(-1), { reason: 'alert fired again', by: { kind: 'api_key', id: keyId }, notified: true, outbound: [String] }, 'a reopen fires again: past the re-fire cooldown it pages, through the outbound config');
  t.not(reopened.body.data.incident_id, fired.incident_id, 'and opens a new incident (the old one closed)');
  t.equal((await o.api.post(`${CONFIG}/alerts/${fired.id}/reopen`)).body.data.effects.length, reopened.body.data.effects.length, 'reopening an open alert does nothing');

  const log = await o.api.get(`${CONFIG}/audit_log`);
  const entries = log.body.data.filter((e: any) => e.family === 'alerts').map((e: any) => [e.action, e.actor.kind, e.transport, e.changes.status]);
  t.same(entries, [
    ['action:reopen_alert', 'api_key', 'rest', { before: 'resolved', after: 'firing' }],
    ['action:resolve_alert', 'api_key', 'mcp', { before: 'firing', after: 'resolved' }],
    ['action:unacknowledge_alert', 'api_key', 'mcp', { before: 'acknowledged', after: 'firing' }],
    ['action:acknowledge_alert', 'api_key', 'rest', { before: 'firing', after: 'acknowledged' }],
  ], 'one audit entry per change, with its actor and transport; none for the repeats');
});

t.test('assign_alert names a member by email or id, answered with the email; unassign with null', async (t) => {
  const o = await org();
  await o.fire({ name: 'Latency' });
  const alert = await o.alert('Latency');
  const user = await vigil.operator.post('/api/admin/v1/users', { email: `oncall-${Date.now()}@example.com` });
  t.equal((await vigil.operator.put(`/api/admin/v1/organizations/${o.id}/members/${user.body.id}`, { role: 'member' })).status, 200);
  const assigned = await o.api.post(`${CONFIG}/alerts/${alert.id}/assign`, { assignee: user.body.email.toUpperCase() });
  t.equal(assigned.status, 200);
  t.same(assigned.body.data.assignee, { id: user.body.id, email: user.body.email, name: null });
  const byId = await o.agent.call('assign_alert', { id: alert.id, assignee: user.body.id });
  t.same(byId.body.data.assignee, { id: user.body.id, email: user.body.email, name: null }, 'by user id: the same');
  const stranger = await vigil.operator.post('/api/admin/v1/users', { email: `stranger-${Date.now()}@example.com` });
  const refused = await o.api.post(`${CONFIG}/alerts/${alert.id}/assign`, { assignee: stranger.body.email });
  t.same([refused.status, refused.body.errors.map((e: any) => e.field)], [422, ['assignee']], 'someone who is not a member is refused');
  t.equal((await o.api.post(`${CONFIG}/alerts/${alert.id}/assign`, { assignee: null })).body.data.assignee, null, 'unassigned');
  const log = await o.api.get(`${CONFIG}/audit_log`);
  t.same(log.body.data.filter((e: any) => e.action === 'action:assign_alert').map((e: any) => e.changes.assignee.after), [null, user.body.id], 'two changes audited (the repeat by id changed nothing)');
});

t.test('refusals: read-only credentials, another organization, unknown ids, bad input; nothing changes', async (t) => {
  const o = await org();
  await o.fire({ name: 'Refused' });
  const alert = await o.alert('Refused');
  const viewerApi = client(vigil.url, (await o.key(['api:config_read'])).token);
  const ro = await viewerApi.post(`${CONFIG}/alerts/${alert.id}/acknowledge`);
  t.same([ro.status, ro.body.error], [403, 'read_only_key']);
  const viewer = await connectAgent(vigil.url, (await o.key(['mcp:read'])).token);
  t.teardown(() => viewer.close());
  const mcpRefused = await viewer.call('resolve_alert', { id: alert.id });
  t.same([mcpRefused.isError, mcpRefused.body.error], [true, 'read_only_key'], 'an mcp:read key (a viewer) is refused');

  const other = await org();
  const foreign = await other.api.post(`${CONFIG}/alerts/${alert.id}/acknowledge`);
  t.same([foreign.status, foreign.body.error], [404, 'not_found'], 'another organization\'s alert reads as unknown');
  t.equal((await o.api.post(`${CONFIG}/alerts/00000000-0000-4000-8000-000000000000/resolve`)).status, 404);
  t.equal((await o.api.post(`${CONFIG}/alerts/not-an-id/resolve`)).status, 404);
  const extra = await o.api.post(`${CONFIG}/alerts/${alert.id}/acknowledge`, { note: 'x' });
  t.same([extra.status, extra.body.errors.map((e: any) => e.field)], [422, ['note']], 'an unknown field is named');
  const badAssignee = await o.agent.call('assign_alert', { id: alert.id, assignee: 42 });
  t.same([badAssignee.body.error, badAssignee.body.errors.map((e: any) => e.field)], ['validation_failed', ['assignee']]);
  const wrongMethod = await o.api.get(`${CONFIG}/alerts/${alert.id}/acknowledge`);
  t.same([wrongMethod.status, wrongMethod.headers.get('allow')], [405, 'POST'], 'an action is a POST');
  t.equal((await o.alert('Refused')).status, 'firing', 'nothing changed');
});

t.test('a person\'s token: a member acts and is named as the user; a viewer is refused', async (t) => {
  const o = await org();
  await o.fire({ name: 'PersonActs' });
  const alert = await o.alert('PersonActs');
  const person = async (role: string) => {
    const user = await vigil.operator.post('/api/admin/v1/users', { email: `${role}-${Date.now()}@example.com` });
    await vigil.operator.put(`/api/admin/v1/organizations/${o.id}/members/${user.body.id}`, { role });
    const token = (await vigil.operator.post(`/api/admin/v1/users/${user.body.id}/tokens`, { name: 'test', organizations: [o.id], max_role: 'unlimited' })).body.token;
    const agent = await connectAgent(vigil.url, token);
    t.teardown(() => agent.close());
    return { id: user.body.id as string, agent };
  };
  const viewer = await person('viewer');
  const refused = await viewer.agent.call('acknowledge_alert', { id: alert.id });
  t.same([refused.isError, refused.body.error], [true, 'forbidden'], 'a viewer may read but not act');
  t.equal((await viewer.agent.call('get_alert', { id: alert.id })).isError, false);
  const member = await person('member');
  const acked = await member.agent.call('acknowledge_alert', { id: alert.id });
  t.match(effects(acked.body.data, 'chat_thread_update').at(-1).by, { kind: 'personal_token', id: member.id, name: null, email: String }, 'the effect names the user');
  const entry = (await o.api.get(`${CONFIG}/audit_log`)).body.data.find((e: any) => e.action === 'action:acknowledge_alert');
  t.same(entry.actor, { kind: 'personal_token', id: member.id }, 'so does the audit entry');
});
