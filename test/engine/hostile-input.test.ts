/**
 * What a careless or hostile client can send, through every surface (REST, the agent-tool endpoint, the operator
 * API): numbers past what a column holds, lone surrogates, bodies nested past the documented depth, bodies whose
 * Content-Encoding does not decode, NUL characters in ids, keys named like Object.prototype members. Each is a
 * 4xx `{ error, message }` naming what was wrong, and changes nothing (the rows and the audit log stay as they were).
 */
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { CONFIG, client, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { digest } from '../fuzz/surfaces.fuzz.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';
const org = await vigil.organization('enterprise');
const api = await org.key(['api:admin']);
const mcpKey = await org.key(['mcp:admin']);
const agent = await connectAgent(vigil.url, mcpKey.token);
t.teardown(() => agent.close());
const team = (await api.post(`${CONFIG}/teams`, { name: 'Payments' })).body.data;

const RPC_HEADERS = { authorization: `Bearer ${mcpKey.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A tools/call sent as raw JSON text (what JSON.stringify cannot make: unsafe integers written out, deep nesting). */
async function rawToolCall(name: string, argumentsJson: string) {
  const answer = await client(vigil.url).post('/api/mcp', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`, RPC_HEADERS);
  return { status: answer.status, body: answer.body, tool: answer.body?.result?.structuredContent, isError: answer.body?.result?.isError === true };
}

/** Runs `act` and checks that no configuration row, key, organization or audit entry changed. */
async function unchanged(t: Test, act: () => Promise<void>): Promise<void> {
  const before = await digest(vigil);
  await act();
  t.equal(await digest(vigil), before, 'nothing changed (rows and audit log as before)');
}

const fields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

t.test('integers past what the column holds are refused by name, on REST and MCP', async (t) => {
  for (const raw of ['3000000000', '2147483648', '9007199254740993', '1e23', '-2147483649']) {
    await unchanged(t, async () => {
      const rest = await api.put(`${CONFIG}/organization_settings`, `{"alert_storm_threshold":${raw}}`);
      t.equal(rest.status, 422, `REST ${raw}`);
      t.equal(rest.body.error, 'validation_failed');
      t.same(fields(rest.body), ['alert_storm_threshold']);
      const tool = await rawToolCall('update_organization_settings', `{"alert_storm_threshold":${raw}}`);
      t.ok(tool.isError, `MCP ${raw}`);
      t.equal(tool.tool.error, 'validation_failed');
      t.same(fields(tool.tool), ['alert_storm_threshold']);
    });
  }
  for (const field of ['priority', 'max_tokens', 'rate_limit_rpm', 'timeout_ms']) {
    await unchanged(t, async () => {
      const rest = await api.post(`${CONFIG}/ai_providers`, `{"name":"p-${field}","provider":"vendor_a","${field}":3000000000}`);
      t.equal(rest.status, 422, `ai_providers.${field}`);
      t.same(fields(rest.body), [field]);
      const tool = await rawToolCall('create_ai_provider', `{"name":"p-${field}","provider":"vendor_a","${field}":1e23}`);
      t.equal(tool.tool.error, 'validation_failed');
      t.same(fields(tool.tool), [field]);
    });
  }
  await unchanged(t, async () => {
    const fraction = await api.put(`${CONFIG}/organization_settings`, '{"alert_storm_threshold":1e-7}');
    t.same([fraction.status, fields(fraction.body)], [422, ['alert_storm_threshold']], 'a fraction in an integer field');
    const infinite = await api.put(`${CONFIG}/organization_settings`, '{"monthly_ai_budget_usd":1e400}');
    t.same([infinite.status, fields(infinite.body)], [422, ['monthly_ai_budget_usd']], 'a number that is not finite');
  });
  const zero = await api.put(`${CONFIG}/organization_settings`, '{"investigation_cooldown_minutes":-0}');
  t.equal(zero.status, 200, '-0 is the integer 0');
  t.equal(zero.body.data.investigation_cooldown_minutes, 0);
});

t.test('the column bound shows in OpenAPI and in the tool schemas', async (t) => {
  const doc = (await api.get(`${CONFIG}/openapi.json`)).body;
  const settings = JSON.stringify(doc.components.schemas);
  t.match(settings, /"alert_storm_threshold":\{[^}]*"maximum":2147483647/, 'OpenAPI');
  const { tools } = await agent.client.listTools();
  const update = tools.find((tool) => tool.name === 'update_organization_settings')!;
  t.equal((update.inputSchema.properties as any).alert_storm_threshold.maximum, 2147483647, 'MCP inputSchema');
  const create = tools.find((tool) => tool.name === 'create_ai_provider')!;
  t.equal((create.inputSchema.properties as any).max_tokens.anyOf[0].maximum, 2147483647, 'a nullable integer too');
  t.equal((create.inputSchema.properties as any).timeout_ms.anyOf[0].maximum, 600000, 'a tighter bound of the descriptor stays');
});

t.test('a lone surrogate is refused with 422 naming the field, on REST and MCP', async (t) => {
  await unchanged(t, async () => {
    const rest = await api.post(`${CONFIG}/teams`, '{"name":"x\\ud800y"}');
    t.equal(rest.status, 422);
    t.equal(rest.body.error, 'validation_failed');
    t.same(fields(rest.body), ['name']);
    const update = await api.put(`${CONFIG}/teams/${team.id}`, '{"description":"\\udc00"}');
    t.same([update.status, fields(update.body)], [422, ['description']]);
    const tool = await rawToolCall('create_team', '{"name":"x\\ud800y"}');
    t.equal(tool.tool.error, 'validation_failed');
    t.same(fields(tool.tool), ['name']);
    const nested = await rawToolCall('update_team', `{"id":"${team.id}","member_emails":["a\\ud800@example.com"]}`);
    t.equal(nested.tool.error, 'validation_failed');
  });
  const pair = await api.post(`${CONFIG}/teams`, '{"name":"x\\ud83d\\ude00y"}');
  t.equal(pair.status, 201, 'a surrogate pair (an emoji) is fine');
});

t.test('a body nested past the documented depth is refused before validation, on every JSON surface', async (t) => {
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  await unchanged(t, async () => {
    const rest = await api.put(`${CONFIG}/organization_settings`, `{"alert_storm_threshold":${deep(20_000)}}`);
    t.equal(rest.status, 400, 'REST');
    t.equal(rest.body.error, 'bad_request');
    t.match(rest.body.message, /64/);
    const arrays = await api.post(`${CONFIG}/teams`, `{"name":"x","member_emails":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
    t.equal(arrays.status, 400, 'arrays count too');
    const tool = await rawToolCall('create_team', `{"name":"x","description":${deep(20_000)}}`);
    t.equal(tool.status, 400, 'MCP');
    t.equal(tool.body.error, 'bad_request');
    const operator = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, `{"flags":${deep(20_000)}}`);
    t.equal(operator.status, 400, 'operator API');
    t.equal(operator.body.error, 'bad_request');
  });
  const within = await api.put(`${CONFIG}/organization_settings`, `{"alert_storm_threshold":${deep(60)}}`);
  t.same([within.status, fields(within.body)], [422, ['alert_storm_threshold']], 'within the depth: validated as usual');
});

t.test('a body whose Content-Encoding does not decode is a 400, not a 500', async (t) => {
  await unchanged(t, async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const answer = await api.post(`${CONFIG}/teams`, '{"name":"not compressed"}', { 'content-encoding': encoding });
      t.equal(answer.status, 400, encoding);
      t.equal(answer.body.error, 'bad_request');
      t.match(answer.body.message, /Content-Encoding/);
    }
    const unknown = await api.post(`${CONFIG}/teams`, '{"name":"x"}', { 'content-encoding': 'compress' });
    t.same([unknown.status, unknown.body.error], [415, 'unsupported_media_type'], 'an encoding the API does not decode');
    t.match(unknown.body.message, /Content-Encoding/);
    const truncated = gzipSync(Buffer.from('{"name":"cut short"}')).subarray(0, 12);
    const cut = await fetch(`${vigil.url}${CONFIG}/teams`, { method: 'POST', headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: truncated });
    t.equal(cut.status, 400, 'a truncated gzip stream');
  });
  const good = await fetch(`${vigil.url}${CONFIG}/teams`, { method: 'POST', headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(Buffer.from('{"name":"Gzipped"}')) });
  t.equal(good.status, 201, 'a body that decodes is accepted');
});

t.test('a NUL character in an id changes nothing: a path is 404, a tool argument is refused naming id', async (t) => {
  await unchanged(t, async () => {
    // a tool's id is an argument like any other: checked against its schema, which holds no NUL
    for (const name of ['get_team', 'update_team', 'delete_team']) {
      const tool = await rawToolCall(name, '{"id":"a\\u0000b","name":"y"}');
      t.ok(tool.isError, name);
      t.equal(tool.tool.error, 'validation_failed', name);
      t.same(fields(tool.tool), ['id'], `${name} names id`);
    }
    for (const [method, path] of [['GET', `${CONFIG}/teams/a%00b`], ['PUT', `${CONFIG}/teams/a%00b`], ['DELETE', `${CONFIG}/teams/%00`]] as const) {
      const answer = await api.call(method, path, method === 'PUT' ? { name: 'y' } : undefined);
      t.equal(answer.status, 404, `REST ${method}`);
    }
    const operator = await vigil.operator.get(`${ADMIN}/organizations/a%00b`);
    t.equal(operator.status, 404, 'operator API');
    const key = await vigil.operator.del(`${ADMIN}/organizations/${org.id}/api_keys/%00`);
    t.equal(key.status, 404, 'operator API, second id');
  });
});

t.test('unknown fields named like Object.prototype members are refused by name', async (t) => {
  for (const key of ['toString', 'valueOf', 'hasOwnProperty', 'constructor', 'isPrototypeOf', 'propertyIsEnumerable']) {
    await unchanged(t, async () => {
      const rest = await api.post(`${CONFIG}/teams`, `{"name":"proto ${key}","${key}":{}}`);
      t.equal(rest.status, 422, `REST create ${key}`);
      t.same(fields(rest.body), [key]);
      const update = await api.put(`${CONFIG}/organization_settings`, `{"${key}":1}`);
      t.same([update.status, fields(update.body)], [422, [key]], `REST singleton ${key}`);
      const tool = await rawToolCall('create_team', `{"name":"proto ${key}","${key}":"x"}`);
      t.equal(tool.tool.error, 'validation_failed', `MCP ${key}`);
      t.same(fields(tool.tool), [key]);
    });
  }
  await unchanged(t, async () => {
    // the body parser refuses a "__proto__" key outright, on every JSON surface
    const rest = await api.post(`${CONFIG}/teams`, '{"name":"proto","__proto__":{"polluted":true}}');
    t.same([rest.status, rest.body.error], [400, 'bad_request'], 'REST __proto__');
    const tool = await rawToolCall('create_team', '{"name":"proto","__proto__":{}}');
    t.same([tool.status, tool.body.error], [400, 'bad_request'], 'MCP __proto__');
    const operator = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, '{"features":{"__proto__":true}}');
    t.same([operator.status, operator.body.error], [400, 'bad_request'], 'operator API __proto__');
  });
});

t.test('a webhook word named like an Object.prototype member is no synonym', async (t) => {
  for (const [field, word] of [['status', 'constructor'], ['event_type', '__proto__'], ['status', '__proto__'], ['event_type', 'constructor']]) {
    const answer = await client(vigil.url).post(`/webhooks/deployments/${org.webhookToken}`, { service: 'checkout', [field]: word }, { 'user-agent': 'hostile-test' });
    t.equal(answer.status, 422, `${field} ${word}`);
    t.equal(answer.body.error, 'validation_failed');
    t.same(fields(answer.body), [field]);
  }
});

t.test('the operator API grants only known scopes, features, plans and roles', async (t) => {
  for (const scope of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    await unchanged(t, async () => {
      const key = await vigil.operator.post(`${ADMIN}/organizations/${org.id}/api_keys`, { name: 'k', scopes: [scope] });
      t.equal(key.status, 422, `scope ${scope}`);
      t.same(fields(key.body), ['scopes']);
    });
  }
  for (const feature of ['toString', 'constructor', 'valueOf']) {
    await unchanged(t, async () => {
      const patch = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, `{"features":{"${feature}":true}}`);
      t.equal(patch.status, 422, `feature ${feature}`);
      t.same(fields(patch.body), [`features.${feature}`]);
      const plan = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, { plan: feature });
      t.same([plan.status, fields(plan.body)], [422, ['plan']], `plan ${feature}`);
    });
  }
  await unchanged(t, async () => {
    const unknown = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, '{"toString":1}');
    t.same([unknown.status, fields(unknown.body)], [422, ['toString']]);
  });
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: 'proto@example.com', name: 'Proto' });
  for (const role of ['toString', 'constructor']) {
    await unchanged(t, async () => {
      const member = await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role });
      t.equal(member.status, 422, `role ${role}`);
      t.same(fields(member.body), ['role']);
    });
  }
});

t.test('a singleton answers the organization\'s creation time as updated_at until its first write', async (t) => {
  const fresh = await vigil.organization('enterprise');
  const created = (await vigil.operator.get(`${ADMIN}/organizations/${fresh.id}`)).body.created_at;
  vigil.clock.advance(60_000);
  const key = await fresh.key(['api:admin']);
  const read = await key.get(`${CONFIG}/organization_settings`);
  t.equal(read.body.data.updated_at, created, 'REST');
  const freshAgent = await connectAgent(vigil.url, (await fresh.key(['mcp:admin'])).token);
  t.teardown(() => freshAgent.close());
  t.equal((await freshAgent.call('get_organization_settings')).body.data.updated_at, created, 'MCP');
  const stale = await key.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 12 }, { 'if-match': '"stale"' });
  t.same([stale.status, stale.body.data.updated_at], [412, created], 'the current row of a 412 too');
  const written = await key.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 12 });
  t.not(written.body.data.updated_at, created, 'the first write sets it');
});
