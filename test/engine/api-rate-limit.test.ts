/**
 * The per-credential rate limit of the configuration API and the agent-tool endpoint (issue 21, "Rate limits you can
 * see"): the IETF RateLimit fields on every answer, 429 (REST, and MCP at the door) or a `rate_limited` tool error
 * (an MCP tool call) past the limit, credentials counted apart, unauthenticated requests not counted, 0 turns it
 * off, and the shared stores. The window is an hour so no test straddles a reset: the tests count, they never wait.
 */
import t from 'tap';
import { CONFIG, client, scratchStorage, startVigil, type Client } from '../helpers/harness.ts';
import { testRedis, TEST_REDIS_URL } from '../helpers/redis.ts';

const LIMIT = { points: 3, durationSeconds: 3600 };
const POLICY = '"default";q=3;w=3600';
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

/** `"default";r=<remaining>;t=<seconds>` → remaining and seconds */
function parseRateLimit(value: string | null): { r: number; t: number } | null {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(value ?? '');
  return match ? { r: Number(match[1]), t: Number(match[2]) } : null;
}

const listMutes = (api: Client) => api.get(`${CONFIG}/alert_mutes`);
const toolCall = (api: Client) => api.post('/api/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_alert_mutes', arguments: {} } }, MCP_ACCEPT);

// one service for the tests of the limit: each counts with credentials of its own, and credentials are counted apart
const limited = await startVigil({ apiRateLimit: LIMIT });
t.teardown(() => limited.close());

t.test('REST: the fields on every answer, remaining counting down, then 429 with Retry-After', async (t) => {
  const api = await (await limited.organization()).key();
  // a refusal counts like a success: the second request is a 404
  const answers = [await listMutes(api), await api.get(`${CONFIG}/no_such_family`), await listMutes(api)];
  t.same(answers.map((a) => a.status), [200, 404, 200]);
  t.same(answers.map((a) => parseRateLimit(a.headers.get('ratelimit'))?.r), [2, 1, 0], 'remaining counts down on successes and refusals alike');
  for (const a of answers) {
    t.equal(a.headers.get('ratelimit-policy'), POLICY);
    const reset = parseRateLimit(a.headers.get('ratelimit'))!.t;
    t.ok(reset >= 1 && reset <= 3600, 'the reset is within the window');
    t.equal(a.headers.get('retry-after'), null, 'no Retry-After while allowed');
  }
  const refused = await listMutes(api);
  t.equal(refused.status, 429);
  t.equal(refused.body.error, 'rate_limited');
  t.type(refused.body.message, 'string');
  const wait = Number(refused.headers.get('retry-after'));
  t.ok(Number.isInteger(wait) && wait >= 1 && wait <= 3600, 'Retry-After in whole seconds');
  t.equal(refused.body.retry_after, wait);
  t.equal(refused.headers.get('ratelimit-policy'), POLICY);
  t.same(parseRateLimit(refused.headers.get('ratelimit')), { r: 0, t: wait });
  t.equal((await api.post(`${CONFIG}/alert_mutes`, { pattern: 'not written' })).status, 429, 'a write is refused too');
});

t.test('OpenAPI: every authenticated operation documents the 429 and the fields on its answers but the 401', async (t) => {
  const doc = (await client(limited.url).get(`${CONFIG}/openapi.json`)).body;
  const { headers, responses } = doc.components;
  for (const name of ['RateLimit', 'RateLimit-Policy', 'Retry-After']) t.ok(headers[name]?.description, `${name} is described`);
  t.same(Object.keys(responses.rate_limited.headers).sort(), ['RateLimit', 'RateLimit-Policy', 'Retry-After']);
  t.same(responses.rate_limited.content['application/json'].schema.properties.error.enum, ['rate_limited']);
  t.notOk(responses.unauthorized.headers.RateLimit, 'a 401 is not counted and carries no fields');
  const resolve = (r: any) => (r.$ref ? responses[r.$ref.split('/').pop()] : r);
  let operations = 0;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (!operation.responses || operation.security?.length === 0) continue;
      operations++;
      t.same(operation.responses[429], { $ref: '#/components/responses/rate_limited' }, `${method} ${path}: 429`);
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (status === '401') continue;
        const fields = resolve(response).headers ?? {};
        if (!fields.RateLimit || !fields['RateLimit-Policy']) t.fail(`${method} ${path} ${status} lacks the RateLimit fields`);
      }
    }
  }
  t.ok(operations > 50, `${operations} operations checked`);
});

t.test('credentials are counted apart; an unauthenticated request counts against no one', async (t) => {
  const org = await limited.organization();
  const [first, second] = [await org.key(), await org.key()];
  const stranger = client(limited.url, 'vk_not_a_key');
  const stolen = client(limited.url, first.token.slice(0, -2) + 'xx');
  for (const who of [stranger, stolen, client(limited.url)]) {
    const answer = await listMutes(who);
    t.equal(answer.status, 401);
    t.equal(answer.headers.get('ratelimit'), null, 'no fields before the credential is known');
  }
  for (let i = 0; i < 3; i++) t.equal((await listMutes(first)).status, 200);
  t.equal((await listMutes(first)).status, 429);
  const other = await listMutes(second);
  t.equal(other.status, 200, 'another key of the same organization has its own count');
  t.equal(parseRateLimit(other.headers.get('ratelimit'))?.r, 2);
  t.equal((await toolCall(first)).status, 403, 'an api key is still refused at the agent-tool endpoint (its scopes), not counted');
});

t.test('MCP: the fields on the answer; a tool call over the limit is a tool error, anything else a 429 at the door', async (t) => {
  const org = await limited.organization();
  const agent = await org.key(['mcp:admin']);
  const list = await agent.post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, MCP_ACCEPT);
  t.equal(list.status, 200);
  const calls = [list, await toolCall(agent), await toolCall(agent)];
  t.same(calls.map((a) => parseRateLimit(a.headers.get('ratelimit'))?.r), [2, 1, 0]);
  for (const a of calls) t.equal(a.headers.get('ratelimit-policy'), POLICY);
  t.equal(calls[2]!.body.result.isError, undefined, 'the last allowed call is served');

  const refused = await toolCall(agent);
  t.equal(refused.status, 200, 'a JSON-RPC result');
  t.equal(refused.body.id, 7);
  t.equal(refused.body.result.isError, true);
  t.equal(refused.body.result.structuredContent.error, 'rate_limited');
  t.type(refused.body.result.structuredContent.retry_after, 'number');
  t.same(JSON.parse(refused.body.result.content[0].text), refused.body.result.structuredContent);
  t.same(parseRateLimit(refused.headers.get('ratelimit'))?.r, 0);
  t.equal(refused.headers.get('ratelimit-policy'), POLICY);

  const door = await agent.post('/api/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, MCP_ACCEPT);
  t.equal(door.status, 429);
  t.equal(door.body.error, 'rate_limited');
  t.ok(Number(door.headers.get('retry-after')) >= 1);
  t.equal(door.headers.get('ratelimit-policy'), POLICY);
  // a personal token of a member of the same organization has its own count, by the token's id
  const user = await limited.operator.post('/api/admin/v1/users', { email: 'rate@example.com' });
  await limited.operator.put(`/api/admin/v1/organizations/${org.id}/members/${user.body.id}`, { role: 'member' });
  const made = await limited.operator.post(`/api/admin/v1/users/${user.body.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' });
  const person = client(limited.url, made.body.token);
  const personal = [await toolCall(person), await toolCall(person)];
  t.same(personal.map((a) => [a.status, a.body.result.isError, parseRateLimit(a.headers.get('ratelimit'))?.r]), [[200, undefined, 2], [200, undefined, 1]]);
});

t.test('VIGIL_API_RATE_LIMIT=0: no limit and no fields', async (t) => {
  const vigil = await startVigil({ apiRateLimit: null });
  t.teardown(() => vigil.close());
  const api = await (await vigil.organization()).key();
  for (let i = 0; i < 5; i++) {
    const answer = await listMutes(api);
    t.equal(answer.status, 200);
    t.equal(answer.headers.get('ratelimit'), null);
    t.equal(answer.headers.get('ratelimit-policy'), null);
  }
});

t.test('the postgres store shares one count between two services of one database', { skip: !process.env.DATABASE_URL && 'PostgreSQL only (set DATABASE_URL)' }, async (t) => {
  const storage = await scratchStorage();
  t.teardown(() => storage.drop());
  const a = await startVigil({ storage, apiRateLimit: LIMIT });
  t.teardown(() => a.close());
  const b = await startVigil({ storage, apiRateLimit: LIMIT });
  t.teardown(() => b.close());
  const key = await (await a.organization()).key();
  const onB = client(b.url, key.token);
  t.same([await listMutes(key), await listMutes(onB), await listMutes(key)].map((x) => parseRateLimit(x.headers.get('ratelimit'))?.r), [2, 1, 0]);
  t.equal((await listMutes(onB)).status, 429, 'the other service sees the same count');
});

const redis = await testRedis();
t.test('the redis store counts in Redis, by the credential id, never the secret', { skip: !redis && 'no Redis answers' }, async (t) => {
  t.teardown(() => redis!.quit());
  const vigil = await startVigil({ webhooks: { rateLimitStore: 'redis', redisUrl: TEST_REDIS_URL }, apiRateLimit: LIMIT });
  t.teardown(() => vigil.close());
  const key = await (await vigil.organization()).key();
  for (let i = 0; i < 3; i++) t.equal((await listMutes(key)).status, 200);
  t.equal((await listMutes(key)).status, 429);
  t.equal(await redis!.get(`vigil_api:api_key:${key.keyId}`), '4', 'every request counted under the key id');
  const names = await redis!.keys('vigil_api:*');
  t.notOk(names.some((name) => name.includes(key.token)), 'no Redis key holds the secret');
});
