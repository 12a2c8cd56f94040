/** The authorization matrix, continued from authorization-matrix.test.ts: read-only keys, role ceilings, foreign ids. */
import t from 'tap';
import { CONFIG, client } from '../helpers/harness.ts';
import { matrixWorld } from '../helpers/authorization-matrix.ts';
import { connectAgent } from '../helpers/mcp.ts';

const { vigil, agents, a, admin, ids, other, personalToken, revoked, disabledKey, routes, roleRefusal, call } = await matrixWorld(t);

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
