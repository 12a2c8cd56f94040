/**
 * The authorization matrix: every route of the OpenAPI document and every agent tool, against every kind of
 * credential, with the exact answer each must give. Ids of another organization's rows answer exactly as an id
 * that exists nowhere, so existence is never revealed.
 *
 * Configuration API: no credential, an unknown key, a revoked key and the operator token → 401 `unauthorized`;
 * an `mcp:*` key → 403 `forbidden`; a personal token → 403 `personal_token_not_accepted`; a disabled
 * organization's key → 403 `organization_disabled`; a read-only key reads (except what needs a higher role, which
 * says so) and every write is 403 `read_only_key`. The reference documents (OpenAPI, docs) are public.
 * Agent-tool endpoint: no credential or an `api:*` key → HTTP 401 / 403; `mcp:read` → every write tool refused with
 * `read_only_key`, a read tool refused only when it needs a higher role (the audit log), saying which; a personal token with the viewer ceiling → every write tool
 * `forbidden`; with the member ceiling → only tools that need org admin refused, each saying so.
 */
import t from 'tap';
import { CONFIG, client, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent, type Agent } from '../helpers/mcp.ts';
import { seedOrganization } from '../helpers/seed.ts';

const vigil = await startVigil();
const agents: Agent[] = [];
t.teardown(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await vigil.close();
});
const ADMIN = '/api/admin/v1';

const a = await vigil.organization('enterprise');
const admin = await a.key(['api:admin']);
const { ids } = await seedOrganization(admin);
const b = await vigil.organization('enterprise');
const other = await b.key(['api:admin']);

async function personalToken(orgId: string, maxRole: string): Promise<string> {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: `matrix-${maxRole}-${Math.random().toString(36).slice(2)}@example.com` });
  await vigil.operator.put(`${ADMIN}/organizations/${orgId}/members/${user.body.id}`, { role: 'org_admin' });
  return (await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 'matrix', organizations: [orgId], max_role: maxRole })).body.token;
}

const revoked = await a.key(['api:admin']);
await vigil.operator.del(`${ADMIN}/organizations/${a.id}/api_keys/${revoked.keyId}`);
const disabledOrg = await vigil.organization('enterprise');
const disabledKey = await disabledOrg.key(['api:admin']);
await vigil.operator.patch(`${ADMIN}/organizations/${disabledOrg.id}`, { disabled: true });

const doc = (await admin.get(`${CONFIG}/openapi.json`)).body;
/** The reference documents are public (they describe the API, hold no data); every other route needs a credential. */
const PUBLIC = ['/openapi.json', '/docs'];
const routes: { method: string; path: string }[] = [];
for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
  if (PUBLIC.includes(path)) continue;
  for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) routes.push({ method: method.toUpperCase(), path });
}
/** A read some role above viewer needs (the audit log: org admin) is refused as `forbidden`, naming that role. */
const roleRefusal = (answer: { body: any }) => answer.body?.error === 'forbidden' && /needs the (member|org_admin) role/.test(answer.body.message);

/** The route with a real row id of organization A where the family has one, else an id that exists nowhere. */
function concrete(path: string): string {
  const family = path.split('/')[1] ?? '';
  return `${CONFIG}${path.replace(/\{[^}]+\}/g, ids[family] ?? 'no-such-row')}`;
}

const call = (c: Client, route: { method: string; path: string }, path = concrete(route.path)) =>
  c.call(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});

t.test('the reference documents are public', async (t) => {
  for (const path of PUBLIC) t.equal((await client(vigil.url).get(`${CONFIG}${path}`)).status, 200, path);
});

t.test('configuration API: every route refuses every wrong credential with the exact answer', async (t) => {
  const cases: [string, Client, number, string][] = [
    ['no credential', client(vigil.url), 401, 'unauthorized'],
    ['an unknown key', client(vigil.url, 'vigil_ak_not_a_key'), 401, 'unauthorized'],
    ['a revoked key', client(vigil.url, revoked.token), 401, 'unauthorized'],
    ['the operator token', client(vigil.url, 'test-operator-token'), 401, 'unauthorized'],
    ['an mcp:admin key', client(vigil.url, (await a.key(['mcp:admin'])).token), 403, 'forbidden'],
    ['a personal token', client(vigil.url, await personalToken(a.id, 'unlimited')), 403, 'personal_token_not_accepted'],
    ["a disabled organization's key", client(vigil.url, disabledKey.token), 403, 'organization_disabled'],
  ];
  t.ok(routes.length > 50, `${routes.length} routes`);
  for (const [name, c, status, error] of cases) {
    const wrong: string[] = [];
    for (const route of routes) {
      const answer = await call(c, route);
      if (answer.status !== status || answer.body?.error !== error) wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.body?.error}`);
    }
    t.same(wrong, [], `${name}: ${status} ${error} on every route`);
  }
});

t.test('configuration API: a read-only key reads everything and every write is read_only_key', async (t) => {
  const reader = await a.key(['api:config_read']);
  const wrong: string[] = [];
  for (const route of routes) {
    const answer = await call(reader, route);
    if (route.method === 'GET') {
      if ([401, 403].includes(answer.status) && !roleRefusal(answer)) wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.body?.error}`);
    } else if (answer.status !== 403 || answer.body.error !== 'read_only_key') {
      // a method the family does not offer answers 405 before the role is considered: that reveals nothing
      if (answer.status !== 405) wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.body?.error}`);
    }
  }
  t.same(wrong, []);
});

t.test("another organization's row ids answer exactly as ids that exist nowhere", async (t) => {
  const rowRoutes = routes.filter((r) => r.path.includes('{') && ids[r.path.split('/')[1] ?? '']);
  t.ok(rowRoutes.length >= 10, `${rowRoutes.length} row routes with a row of organization A`);
  const wrong: string[] = [];
  for (const route of rowRoutes) {
    const foreign = await call(other, route);
    const nowhere = await call(other, route, `${CONFIG}${route.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')}`);
    if (foreign.status !== nowhere.status || foreign.body?.error !== nowhere.body?.error || foreign.body?.message !== nowhere.body?.message) {
      wrong.push(`${route.method} ${route.path}: foreign ${foreign.status} ${foreign.body?.error} vs nowhere ${nowhere.status} ${nowhere.body?.error}`);
    }
    if (foreign.status >= 200 && foreign.status < 300) wrong.push(`${route.method} ${route.path}: answered ${foreign.status} for another organization's row`);
  }
  t.same(wrong, []);
  for (const [family, id] of Object.entries(ids)) {
    const still = await admin.get(`${CONFIG}/${family}/${id}`);
    if (still.status !== 200) t.fail(`${family} ${id} was changed by another organization's key (${still.status})`);
  }
});

t.test('agent-tool endpoint: credentials at the HTTP level', async (t) => {
  const rpc = (token?: string) => client(vigil.url, token).post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' });
  t.equal((await rpc()).body.error, 'unauthorized');
  t.equal((await rpc(revoked.token)).status, 401);
  t.equal((await rpc(admin.token)).body.error, 'forbidden', 'an api:* key');
  t.equal((await rpc('test-operator-token')).status, 401, 'the operator token');
  t.equal((await rpc(disabledKey.token)).body.error, 'organization_disabled');
});

t.test('agent-tool endpoint: read-only keys and role ceilings on every tool', async (t) => {
  const connect = async (token: string) => {
    const agent = await connectAgent(vigil.url, token);
    agents.push(agent);
    return agent;
  };
  const full = await connect(await personalToken(a.id, 'unlimited'));
  const { tools } = await full.client.listTools();
  t.ok(tools.length > 80, `${tools.length} tools`);
  const readKey = await connect((await a.key(['mcp:read'])).token);
  const viewer = await connect(await personalToken(a.id, 'viewer'));
  const member = await connect(await personalToken(a.id, 'member'));
  const wrong: string[] = [];
  let memberRefusals = 0;
  for (const tool of tools) {
    const write = tool.annotations?.readOnlyHint !== true;
    const [byKey, byViewer, byMember] = await Promise.all([readKey, viewer, member].map((agent) => agent.call(tool.name, {})));
    const error = (r: { isError: boolean; body: any }) => (r.isError ? String(r.body?.error) : 'ok');
    if (write && error(byKey!) !== 'read_only_key') wrong.push(`${tool.name}: mcp:read got ${error(byKey!)}`);
    if (!write && error(byKey!) === 'read_only_key') wrong.push(`${tool.name}: a read refused to mcp:read as a write`);
    if (!write && error(byKey!) === 'forbidden' && !roleRefusal(byKey!)) wrong.push(`${tool.name}: a read refused to mcp:read`);
    if (write && error(byViewer!) !== 'forbidden') wrong.push(`${tool.name}: viewer got ${error(byViewer!)}`);
    if (!write && error(byViewer!) === 'forbidden' && !roleRefusal(byViewer!)) wrong.push(`${tool.name}: a read refused to a viewer`);
    if (error(byMember!) === 'forbidden') {
      memberRefusals++;
      if (!/org_admin/.test(byMember!.body.message)) wrong.push(`${tool.name}: member refused without naming org_admin`);
    }
  }
  t.same(wrong, []);
  t.ok(memberRefusals >= 5, `${memberRefusals} tools need org admin and refuse a member`);
});
