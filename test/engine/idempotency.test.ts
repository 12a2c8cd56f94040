/**
 * Idempotent requests (issue 21): `Idempotency-Key` on every REST create and action, `idempotency_key` on the
 * agent tools that create or act. A repeat within 24 hours replays the first answer and writes nothing; another
 * request with the key is 422 naming it; a repeat while the first runs is 409; keys belong to one organization;
 * a refused request keeps no key; past 24 hours the key is free again and housekeeping forgets it.
 */
import t from 'tap';
import Type from 'typebox';
import { defineFamily } from '../../engine/descriptor.ts';
import { readStore } from '../../engine/operations/context.ts';
import { runHousekeeping } from '../../outbound/tick.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const DAY = 24 * 60 * 60_000;

// a family whose create waits while a test holds the gate, so "the first is still running" is a state, not a race
let gate: Promise<void> | null = null;
let entered: () => void = () => {};
const slow = defineFamily({
  name: 'idempotency_probe',
  description: 'A throwaway family that exists only in this test: its create can be held open.',
  kind: 'collection',
  operations: ['list', 'read', 'create'],
  requiredOnCreate: ['name'],
  fields: { id: Type.String({ readOnly: true }), name: Type.String({ minLength: 1, maxLength: 40 }) },
  hooks: {
    async prepare(row) {
      entered();
      if (gate) await gate;
      return row;
    },
  },
  examples: { valid: [{ name: 'probe' }], invalid: [] },
});

const vigil = await startVigil({ extraFamilies: [slow] });
t.teardown(() => vigil.close());
const org = await vigil.organization();
const api = await org.key(['api:admin']);
const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
t.teardown(() => agent.close());

const TEAMS = `${CONFIG}/teams`;
const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });
const teamsNamed = async (client: Client, name: string) => (await client.get(TEAMS)).body.data.filter((r: { name: string }) => r.name === name);
const audits = async (client: Client, action: string, family = 'teams') =>
  (await client.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string; action: string }) => e.family === family && e.action === action).length;

t.test('REST: a repeat with the key replays the first answer (status, body, ETag, Location) and writes nothing', async (t) => {
  const headers = key('team');
  const first = await api.post(TEAMS, { name: 'Replay', description: 'once' }, headers);
  t.equal(first.status, 201);
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is no replay');
  const auditsBefore = await audits(api, 'create');
  const again = await api.post(TEAMS, { description: 'once', name: 'Replay' }, headers);
  t.equal(again.status, 201);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.same(again.body, first.body, 'the same body (keys in another order are the same body)');
  t.equal(again.headers.get('etag'), first.headers.get('etag'));
  t.equal(again.headers.get('location'), first.headers.get('location'));
  t.equal((await teamsNamed(api, 'Replay')).length, 1, 'one row');
  t.equal(await audits(api, 'create'), auditsBefore, 'no second audit entry');
  t.equal((await api.post(TEAMS, { name: 'Replay' })).status, 409, 'without the key the natural key still refuses a second row');
});

t.test('REST: the same key with another body, path or action is 422 naming the header, and writes nothing', async (t) => {
  const headers = key('other');
  t.equal((await api.post(TEAMS, { name: 'Other A' }, headers)).status, 201);
  for (const [path, body] of [[TEAMS, { name: 'Other B' }], [TEAMS, { name: 'Other A', description: 'changed' }], [`${CONFIG}/deploy_policies`, { service: 'other-a' }]] as const) {
    const refused = await api.post(path, body, headers);
    t.equal(refused.status, 422, `${path} ${JSON.stringify(body)}`);
    t.match(refused.body, { error: 'validation_failed', errors: [{ field: 'Idempotency-Key' }] });
    t.notOk(JSON.stringify(refused.body).includes(headers['idempotency-key']), 'the key is not echoed');
  }
  t.equal((await teamsNamed(api, 'Other B')).length, 0);
  t.equal((await api.get(`${CONFIG}/deploy_policies`)).body.data.filter((r: { service: string }) => r.service === 'other-a').length, 0);
});

t.test('keys belong to the organization: the same key in another organization is another key', async (t) => {
  const other = await (await vigil.organization()).key(['api:admin']);
  const headers = key('org');
  const mine = await api.post(TEAMS, { name: 'Org scoped' }, headers);
  const theirs = await other.post(TEAMS, { name: 'Org scoped' }, headers);
  t.equal(theirs.status, 201);
  t.equal(theirs.headers.get('idempotent-replayed'), null);
  t.not(theirs.body.data.id, mine.body.data.id);
  t.equal(theirs.body.organization.id, (await other.get(TEAMS)).body.organization.id, 'their own organization answers');
  const otherBody = await other.post(TEAMS, { name: 'Org scoped 2' }, headers);
  t.equal(otherBody.status, 422, 'and in their organization the key is now theirs');
});

t.test('a refused request keeps no key: corrected, the same key creates', async (t) => {
  const headers = key('refused');
  t.match((await api.post(TEAMS, { name: '' }, headers)).body, { error: 'validation_failed', errors: [{ field: 'name' }] });
  t.equal((await api.post(TEAMS, { name: 'Refused first' }, headers)).status, 201);
  const viewer = await org.key(['api:config_read']);
  const forbidden = key('forbidden');
  t.equal((await viewer.post(TEAMS, { name: 'Viewer try' }, forbidden)).status, 403);
  const created = await api.post(TEAMS, { name: 'Viewer try' }, forbidden);
  t.equal(created.status, 201);
  t.equal(created.headers.get('idempotent-replayed'), null);
});

t.test('a refusal inside the write transaction (a natural-key conflict) rolls the claim back with it: the key stays free', async (t) => {
  t.equal((await api.post(TEAMS, { name: 'Taken' })).status, 201);
  const headers = key('conflict');
  const refused = await api.post(TEAMS, { name: 'Taken' }, headers);
  t.equal(refused.status, 409);
  t.equal(refused.body.error, 'conflict');
  t.notMatch(refused.body.message, /still running/, 'the natural key refused it, not the idempotency key');
  const claims = await readStore(vigil.running.services).execute('select count(*) as n from idempotency_keys where organization_id = ? and key = ?', [org.id, headers['idempotency-key']]);
  t.equal(Number(claims[0]!.n), 0, 'no claim left behind');
  const again = await api.post(TEAMS, { name: 'Taken' }, headers);
  t.equal(again.status, 409, 'the same request runs again and is refused again (not a replay, not "still running")');
  t.equal(again.headers.get('idempotent-replayed'), null);
  const corrected = await api.post(TEAMS, { name: 'Taken, corrected' }, headers);
  t.equal(corrected.status, 201, 'the key, never stored, creates with a corrected body');
  t.equal((await api.post(TEAMS, { name: 'Taken, corrected' }, headers)).headers.get('idempotent-replayed'), 'true');
});

t.test('malformed keys are 422 naming the header (REST) or the argument (MCP), before anything is written', async (t) => {
  for (const bad of ['', 'k'.repeat(256), 'caf\u00e9']) {
    const refused = await api.post(TEAMS, { name: 'Malformed' }, { 'idempotency-key': bad });
    t.equal(refused.status, 422, `${bad.length} characters`);
    t.match(refused.body, { error: 'validation_failed', errors: [{ field: 'Idempotency-Key' }] });
  }
  t.equal((await api.post(TEAMS, { name: 'Longest key' }, { 'idempotency-key': `${'k'.repeat(254)}~` })).status, 201, '255 printable characters are a key');
  for (const bad of ['', 'k'.repeat(256), 'ключ', 'tab\there', 42]) {
    const refused = await agent.call('create_team', { name: 'Malformed', idempotency_key: bad });
    t.equal(refused.isError, true);
    t.match(refused.body, { error: 'validation_failed', errors: [{ field: 'idempotency_key' }] });
  }
  t.equal((await teamsNamed(api, 'Malformed')).length, 0);
});

t.test('past 24 hours the key is free again, and housekeeping forgets it', async (t) => {
  const headers = key('expiry');
  const first = await api.post(TEAMS, { name: 'Expiring' }, headers);
  t.equal((await api.del(`${TEAMS}/${first.body.data.id}`)).status, 204);
  const within = await api.post(TEAMS, { name: 'Expiring' }, headers);
  t.equal(within.headers.get('idempotent-replayed'), 'true', 'within 24 h the first answer comes back, even though the row is gone since');
  t.same(within.body, first.body);
  vigil.clock.advance(DAY);
  const after = await api.post(TEAMS, { name: 'Expiring' }, headers);
  t.equal(after.status, 201);
  t.equal(after.headers.get('idempotent-replayed'), null);
  t.not(after.body.data.id, first.body.data.id, 'a new row');
  const stored = async () => Number((await readStore(vigil.running.services).execute('select count(*) as n from idempotency_keys where organization_id = ?', [org.id]))[0]!.n);
  t.ok(await stored() > 1);
  vigil.clock.advance(DAY);
  await runHousekeeping(vigil.running.services);
  t.equal(await stored(), 0, 'keys older than 24 h are pruned');
});

t.test('MCP: idempotency_key replays the first tool answer, marked in _meta', async (t) => {
  const tools = new Map((await agent.client.listTools()).tools.map((tool) => [tool.name, tool]));
  for (const name of ['create_team', 'set_deploy_freeze', 'clear_deploy_freeze', 'configure_ticket_integration', 'redeliver', 'run_ticket_import', 'add_card_comment']) {
    t.match(tools.get(name)?.inputSchema.properties, { idempotency_key: { type: 'string', maxLength: 255 } }, `${name} takes idempotency_key`);
  }
  for (const name of ['update_team', 'delete_team', 'list_teams', 'get_team', 'update_card', 'list_alerts']) {
    t.notOk(Object.hasOwn(tools.get(name)?.inputSchema.properties ?? {}, 'idempotency_key'), `${name} takes none`);
  }
  const idempotency_key = key('mcp')['idempotency-key'];
  const first = await agent.client.callTool({ name: 'create_team', arguments: { name: 'Agent team', idempotency_key } });
  const again = await agent.client.callTool({ name: 'create_team', arguments: { name: 'Agent team', idempotency_key } });
  t.notOk(first._meta?.idempotent_replayed);
  t.equal(again._meta?.idempotent_replayed, true);
  t.same(again.structuredContent, first.structuredContent);
  t.equal((await teamsNamed(api, 'Agent team')).length, 1);
  const other = await agent.call('create_team', { name: 'Agent team 2', idempotency_key });
  t.match(other.body, { error: 'validation_failed', errors: [{ field: 'idempotency_key' }] });
});

t.test('actions: a replay answers the first result and does not act again (MCP and REST)', async (t) => {
  const policy = (await api.post(`${CONFIG}/deploy_policies`, { service: 'replayed-svc' })).body.data;
  const idempotency_key = key('freeze')['idempotency-key'];
  const frozen = await agent.call('set_deploy_freeze', { id: policy.id, reason: 'release', idempotency_key });
  t.equal(frozen.body.data.freeze_reason, 'release');
  t.equal((await agent.call('clear_deploy_freeze', { id: policy.id })).body.data.freeze_reason, null);
  const retried = await agent.call('set_deploy_freeze', { id: policy.id, reason: 'release', idempotency_key });
  t.same(retried.body, frozen.body, 'the first answer');
  t.equal((await api.get(`${CONFIG}/deploy_policies/${policy.id}`)).body.data.freeze_reason, null, 'a stale retry did not freeze again');
  t.equal(await audits(api, 'action:set_deploy_freeze', 'deploy_policies'), 1);
  t.match((await agent.call('set_deploy_freeze', { id: policy.id, reason: 'other', idempotency_key })).body, { errors: [{ field: 'idempotency_key' }] });

  const headers = key('override');
  const until = new Date(vigil.clock.now().getTime() + 3_600_000).toISOString();
  const path = `${CONFIG}/deploy_policies/${policy.id}/set_deploy_override`;
  const set = await api.post(path, { allow: true, reason: 'hotfix', until }, headers);
  t.equal(set.status, 200);
  const repeat = await api.post(path, { allow: true, reason: 'hotfix', until }, headers);
  t.equal(repeat.headers.get('idempotent-replayed'), 'true');
  t.same(repeat.body, set.body);
  t.equal(repeat.headers.get('etag'), set.headers.get('etag'));
  t.equal(await audits(api, 'action:set_deploy_override', 'deploy_policies'), 1);
});

t.test('a repeat that a check would refuse answers from the key: its If-Match went stale since, the replay comes first', async (t) => {
  const policy = (await api.post(`${CONFIG}/deploy_policies`, { service: 'stale-etag-svc' })).body.data;
  const etag = (await api.get(`${CONFIG}/deploy_policies/${policy.id}`)).headers.get('etag')!;
  const headers = { ...key('stale'), 'if-match': etag };
  const path = `${CONFIG}/deploy_policies/${policy.id}/set_deploy_override`;
  const body = { allow: true, reason: 'hotfix', until: new Date(vigil.clock.now().getTime() + 3_600_000).toISOString() };
  const first = await api.post(path, body, headers);
  t.equal(first.status, 200);
  const edited = await api.put(`${CONFIG}/deploy_policies/${policy.id}`, { error_budget_threshold: 5 });
  t.not(edited.headers.get('etag'), etag, 'someone changed the row since: the ETag sent is stale now');
  const repeat = await api.post(path, body, headers);
  t.equal(repeat.status, 200, 'not 412: the key holds the answer');
  t.equal(repeat.headers.get('idempotent-replayed'), 'true');
  t.same(repeat.body, first.body);
  const other = await api.post(path, { ...body, reason: 'another' }, headers);
  t.equal(other.status, 422, 'another request with the key is the key\'s 422, not the stale ETag\'s 412');
  t.match(other.body, { errors: [{ field: 'Idempotency-Key' }] });
  const unkeyed = await api.post(path, body, { 'if-match': etag });
  t.equal(unkeyed.status, 412, 'without the key the stale ETag is refused');
  t.equal(await audits(api, 'action:set_deploy_override', 'deploy_policies'), 2, 'this test\'s one override, and the earlier test\'s');
});

t.test('domain writes: configure_ticket_integration replays', async (t) => {
  const idempotency_key = key('tracker')['idempotency-key'];
  const args = { provider: 'sprint_tracker', base_url: 'https://sprints.example.com', account: 'ops-bot', api_token: 'tok-sprint-0001', idempotency_key };
  const first = await agent.client.callTool({ name: 'configure_ticket_integration', arguments: args });
  t.notOk(first.isError);
  const again = await agent.client.callTool({ name: 'configure_ticket_integration', arguments: args });
  t.equal(again._meta?.idempotent_replayed, true);
  t.same(again.structuredContent, first.structuredContent);
  t.equal(await audits(api, 'create', 'ticket_integrations'), 1);
  t.notOk(JSON.stringify(again).includes('tok-sprint-0001'), 'the stored answer holds no secret');
});

t.test('a repeat while the first still runs is 409 and writes nothing; once done it replays', async (t) => {
  const path = `${CONFIG}/idempotency_probe`;
  const headers = key('running');
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const first = api.post(path, { name: 'held' }, headers);
  await inside;
  const during = await api.post(path, { name: 'held' }, headers);
  t.equal(during.status, 409);
  t.match(during.body, { error: 'conflict', message: /retry later/ });
  t.equal(during.headers.get('retry-after'), '1');
  open();
  gate = null;
  t.equal((await first).status, 201);
  const after = await api.post(path, { name: 'held' }, headers);
  t.equal(after.headers.get('idempotent-replayed'), 'true');
  t.equal((await api.get(path)).body.data.filter((r: { name: string }) => r.name === 'held').length, 1);
});

t.test('racing repeats: one write, the others 409 or a replay', async (t) => {
  // a family without a natural key, so only the idempotency key can keep the racers to one row
  const path = `${CONFIG}/idempotency_probe`;
  const headers = key('race');
  const answers = await Promise.all(Array.from({ length: 8 }, () => api.post(path, { name: 'raced' }, headers)));
  const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
  t.equal(fresh.length, 1, 'exactly one request wrote');
  for (const a of answers) t.ok(a.status === 409 || (a.status === 201 && a.body.data.id === fresh[0]!.body.data.id), `${a.status}`);
  t.equal((await api.get(path)).body.data.filter((r: { name: string }) => r.name === 'raced').length, 1);
});

t.test('OpenAPI: the Idempotency-Key header on creates and actions, not on updates', async (t) => {
  const doc = (await api.get(`${CONFIG}/openapi.json`)).body;
  const names = (op: { parameters?: { $ref?: string; name?: string }[] }) => (op.parameters ?? []).map((p) => p.$ref ?? p.name);
  t.ok(names(doc.paths['/teams'].post).includes('#/components/parameters/IdempotencyKey'));
  t.ok(names(doc.paths['/deploy_policies/{id}/set_deploy_override'].post).includes('#/components/parameters/IdempotencyKey'));
  t.notOk(names(doc.paths['/teams/{id}'].put).includes('#/components/parameters/IdempotencyKey'));
  t.match(doc.components.parameters.IdempotencyKey, { name: 'Idempotency-Key', in: 'header', schema: { maxLength: 255 } });
  t.ok(doc.paths['/teams'].post.responses['201'].headers['Idempotent-Replayed']);
});
