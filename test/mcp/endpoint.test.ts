/** The agent-tool endpoint: credentials, role ceilings, the plan, the tool list, and tool errors. */
import t from 'tap';
import { Compile } from 'typebox/compile';
import { actionTransports } from '../../engine/descriptor.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, client, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';

async function personalToken(orgIds: string[], role: string, maxRole: string) {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: `u${Math.random().toString(36).slice(2)}@example.com` });
  for (const id of orgIds) await vigil.operator.put(`${ADMIN}/organizations/${id}/members/${user.body.id}`, { role });
  const token = await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 't', organizations: orgIds, max_role: maxRole });
  return { userId: user.body.id as string, token: token.body.token as string };
}

/** A raw JSON-RPC POST, to see HTTP-level answers an SDK client would turn into exceptions. */
async function rpc(token: string | undefined, headers: Record<string, string> = {}) {
  return client(vigil.url, token).post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream', ...headers });
}

t.test('tools/list: every family\'s tools, valid schemas, truthful annotations, no override tool', async (t) => {
  const org = await vigil.organization('enterprise');
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const { tools } = await agent.client.listTools();
  const names = new Set(tools.map((tool) => tool.name));
  for (const d of families) {
    const plural = d.name;
    if (d.kind === 'collection' && d.operations.includes('list')) t.ok(names.has(`list_${plural}`), `list_${plural}`);
    for (const [action, spec] of Object.entries(d.actions ?? {})) t.equal(names.has(action), actionTransports(spec).includes('mcp'), `${action}: listed only when served on the agent-tool endpoint`);
  }
  for (const name of ['get_organization_settings', 'update_organization_settings', 'get_ai_provider', 'create_ai_provider', 'delete_ai_provider', 'get_deploy_policy', 'set_deploy_freeze', 'clear_deploy_freeze', 'list_audit_log']) {
    t.ok(names.has(name), name);
  }
  t.notOk(names.has('update_alert_mute'), 'no tool for an operation a family does not offer');
  t.notOk(names.has('update_cloud_external_id'));
  for (const tool of tools) {
    t.doesNotThrow(() => Compile(tool.inputSchema as never), `${tool.name}: the input schema compiles`);
    t.equal(tool.inputSchema.type, 'object');
    const a = tool.annotations!;
    if (/^(list|get)_/.test(tool.name)) t.ok(a.readOnlyHint && !a.destructiveHint, `${tool.name} is read-only`);
    if (/^delete_/.test(tool.name)) t.ok(!a.readOnlyHint && a.destructiveHint, `${tool.name} is destructive`);
    if (/^create_/.test(tool.name)) t.ok(!a.readOnlyHint && !a.destructiveHint && !a.idempotentHint, `${tool.name} adds`);
    if (/^update_/.test(tool.name)) t.ok(a.idempotentHint && !a.readOnlyHint && a.destructiveHint, `${tool.name} is idempotent and overwrites`);
    if (/^add_/.test(tool.name)) t.ok(!a.readOnlyHint && !a.destructiveHint && !a.idempotentHint, `${tool.name} only adds`);
    t.notOk(Object.keys((tool.inputSchema.properties ?? {}) as object).some((p) => p.startsWith('override_')), `${tool.name} cannot set the deploy override`);
  }
});

t.test('keys: mcp scopes only; api keys refused with where they work; plan below business refused', async (t) => {
  const org = await vigil.organization();
  const apiKey = await org.key(['api:admin']);
  const refused = await rpc(apiKey.token);
  t.equal(refused.status, 403);
  t.match(refused.body.message, /\/api\/v1\/config/);
  t.equal((await rpc(undefined)).status, 401);
  t.equal((await rpc('vigil_ak_unknown')).status, 401);
  const mcpKey = await org.key(['mcp:read']);
  t.equal((await rpc(mcpKey.token)).status, 200);
  await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, { plan: 'team' });
  const plan = await rpc(mcpKey.token);
  t.equal(plan.status, 403);
  t.equal(plan.body.error, 'plan_required');
  t.equal(plan.body.message, 'The agent-tool server is not included in the team plan.');
  t.equal((await client(vigil.url, mcpKey.token).get('/api/mcp')).status, 405, 'GET is not offered: the endpoint is stateless');
});

t.test('roles: mcp:read reads, mcp:write writes, org-admin operations need mcp:admin', async (t) => {
  const org = await vigil.organization();
  const reader = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  const writer = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(async () => {
    await reader.close();
    await writer.close();
  });
  t.notOk((await reader.call('list_ai_providers')).isError);
  const denied = await reader.call('create_alert_mute', { pattern: 'disk' });
  t.ok(denied.isError);
  t.equal(denied.body.error, 'read_only_key');
  t.notOk((await writer.call('create_alert_mute', { pattern: 'disk' })).isError);
  const admin = await writer.call('update_organization_settings', { alert_storm_threshold: 4 });
  t.equal(admin.body.error, 'forbidden', 'settings need an org admin');
  t.equal((await writer.call('list_audit_log')).body.error, 'forbidden');
});

t.test('personal tokens: membership role capped by the ceiling; one organization per request', async (t) => {
  const a = await vigil.organization();
  const b = await vigil.organization();
  const capped = await personalToken([a.id], 'org_admin', 'viewer');
  const viewer = await connectAgent(vigil.url, capped.token);
  t.notOk((await viewer.call('get_organization_settings')).isError, 'reads');
  t.equal((await viewer.call('create_alert_mute', { pattern: 'disk' })).body.error, 'forbidden', 'the viewer ceiling stops writes');
  await viewer.close();

  const admin = await personalToken([a.id, b.id], 'org_admin', 'unlimited');
  t.equal((await rpc(admin.token)).status, 400, 'a token for several organizations must name one');
  const inA = await connectAgent(vigil.url, admin.token, { 'x-vigil-organization': a.id });
  const signup = await inA.call('update_organization_settings', { social_joins_enabled: false });
  t.notOk(signup.isError, 'an org admin user may change the sign-up policies');
  t.equal(signup.body.data.social_joins_enabled, false);
  const audit = (await inA.call('list_audit_log')).body.data[0];
  t.match(audit, { transport: 'mcp', actor: { kind: 'personal_token', id: admin.userId } });
  await inA.close();
  const other = await vigil.organization();
  t.equal((await rpc(admin.token, { 'x-vigil-organization': other.id })).status, 403, 'an organization the token does not name');
  t.equal((await rpc(admin.token, { 'x-vigil-organization': 'not-a-uuid' })).status, 403);
  await vigil.operator.del(`${ADMIN}/organizations/${b.id}/members/${admin.userId}`);
  t.equal((await rpc(admin.token, { 'x-vigil-organization': b.id })).status, 403, 'a user who left the organization');

  const key = await (await vigil.organization()).key(['mcp:admin']);
  const keyAgent = await connectAgent(vigil.url, key.token);
  t.equal((await keyAgent.call('update_organization_settings', { restrict_domain_signups: true })).body.error, 'user_token_required', 'an organization key cannot');
  await keyAgent.close();
});

t.test('actions by natural key; refusals are tool errors; unknown tools are protocol errors', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => agent.close());
  await agent.call('create_deploy_policy', { service: 'checkout' });
  const frozen = await agent.call('set_deploy_freeze', { service: 'checkout', reason: 'release train' });
  t.equal(frozen.body.data.frozen, true);
  const missing = await agent.call('set_deploy_freeze', { service: 'nope', reason: 'x' });
  t.equal(missing.body.error, 'not_found');
  const bad = await agent.call('set_deploy_freeze', { service: 'checkout' });
  t.equal(bad.body.error, 'validation_failed');
  t.equal(bad.body.errors[0].field, 'reason');
  t.notOk((await agent.call('clear_deploy_freeze', { service: 'checkout' })).isError);
  await t.rejects(agent.call('no_such_tool'), /Unknown tool/);
  const api = await org.key(['api:config_read']);
  t.equal((await api.get(`${CONFIG}/deploy_policies`)).body.data[0].frozen, false, 'REST sees what the agent did');
});

t.test('a tools/call with arguments that are not an object is invalid params (-32602), not an internal error', async (t) => {
  const org = await vigil.organization();
  const key = (await org.key(['mcp:read'])).token;
  const call = (params: unknown) =>
    client(vigil.url, key).post('/api/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/call', params }, { accept: 'application/json, text/event-stream' });
  for (const [params, field] of [[{ name: 'list_teams', arguments: 5 }, 'arguments'], [{ name: 'list_teams', arguments: ['a'] }, 'arguments'], [{ name: 42 }, 'name'], ['x', 'params']] as const) {
    const answer = await call(params);
    t.equal(answer.status, 200, JSON.stringify(params));
    t.equal(answer.body.error.code, -32602);
    t.equal(answer.body.id, 7);
    t.match(answer.body.error.message, field);
  }
  t.same((await call({ name: 'list_teams', arguments: {} })).body.result.structuredContent.data, [], 'an object is fine');
});
