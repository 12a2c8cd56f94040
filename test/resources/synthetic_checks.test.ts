/** synthetic_checks: the timeout-below-interval rule, URL schemes, HEAD without body checks, header secrets never answered, run results. */
import t from 'tap';
import syntheticChecks from '../../resources/synthetic_checks.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [syntheticChecks] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/synthetic_checks`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const SECRET = 'Bearer very-secret-probe-token';
const BODY = { name: 'checkout', url: 'https://checkout.example.com/healthz', headers: { Authorization: SECRET, 'X-Probe': 'vigil-probe-marker' } };
/** whether a header value, or a `headers` member, appears anywhere in an answer */
const leaks = (answer: unknown) => /very-secret-probe|vigil-probe-marker/.test(JSON.stringify(answer)) || /"headers":\{/.test(JSON.stringify(answer));

t.test('defaults', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { name: 'plain', url: 'http://10.0.0.7:8080/ping' });
  t.equal(made.status, 201, 'http is accepted for any host');
  t.match(made.body.data, {
    method: 'GET', expected_status: 200, body_contains: null, interval_seconds: 60, timeout_ms: 10000, service: null,
    headers_set: false, enabled: true, last_run_at: null, last_status: 'unknown', last_latency_ms: null, last_error: null,
  });
  t.notOk('headers' in made.body.data);
});

t.test('timeout_ms must stay below interval_seconds × 1000', async (t) => {
  const api = await (await vigil.organization()).key();
  const base = { url: 'https://x.example.com' };
  const cases: [string, Record<string, unknown>, number][] = [
    ['the limits meet: refused', { interval_seconds: 30, timeout_ms: 30000 }, 422],
    ['one millisecond under: accepted', { interval_seconds: 30, timeout_ms: 29999 }, 201],
    ['the longest timeout with a longer interval', { interval_seconds: 31, timeout_ms: 30000 }, 201],
    ['defaults', {}, 201],
  ];
  for (const [n, [name, body, status]] of cases.entries()) {
    const answer = await api.post(PATH, { ...base, name: `c${n}`, ...body });
    t.equal(answer.status, status, name);
    if (status === 422) t.same(fieldsOf(answer), ['timeout_ms']);
  }
  const made = await api.post(PATH, { ...base, name: 'slow', interval_seconds: 60, timeout_ms: 30000 });
  const path = `${PATH}/${made.body.data.id}`;
  const shorter = await api.put(path, { interval_seconds: 30 });
  t.equal(shorter.status, 422, 'an update that shortens the interval below the stored timeout is refused');
  t.same(fieldsOf(shorter), ['timeout_ms']);
  t.match(shorter.body.errors[0].message, /interval_seconds/);
  t.equal((await api.put(path, { interval_seconds: 30, timeout_ms: 5000 })).status, 200, 'changing both together is fine');
  const openapi = await api.get(`${CONFIG}/openapi.json`);
  t.match(JSON.stringify(openapi.body), /timeout_ms must be below interval_seconds/, 'the rule documents itself');
});

t.test('urls, methods and body checks', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, Record<string, unknown>, string][] = [
    ['an ftp URL', { url: 'ftp://files.example.com/x' }, 'url'],
    ['a file URL', { url: 'file:///etc/passwd' }, 'url'],
    ['a relative URL', { url: '/healthz' }, 'url'],
    ['credentials in the URL', { url: 'https://probe:hunter2@x.example.com/' }, 'url'],
    ['PUT', { url: 'https://x.example.com', method: 'PUT' }, 'method'],
    ['a status of 99', { url: 'https://x.example.com', expected_status: 99 }, 'expected_status'],
    ['body_contains with HEAD', { url: 'https://x.example.com', method: 'HEAD', body_contains: 'ok' }, 'body_contains'],
    ['an empty body_contains', { url: 'https://x.example.com', body_contains: '' }, 'body_contains'],
    ['an interval of an hour and a second', { url: 'https://x.example.com', interval_seconds: 3601 }, 'interval_seconds'],
    ['a timeout of 99 ms', { url: 'https://x.example.com', timeout_ms: 99 }, 'timeout_ms'],
  ];
  for (const [name, body, field] of cases) {
    const answer = await api.post(PATH, { name: 'x', ...body });
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), [field], `${name} names ${field}`);
    t.notOk(JSON.stringify(answer.body).includes('hunter2'), 'no refusal repeats a value');
  }
  const head = await api.post(PATH, { name: 'head', url: 'https://x.example.com', method: 'HEAD', expected_status: 204 });
  t.equal(head.status, 201);
  const toHead = await api.post(PATH, { name: 'get', url: 'https://x.example.com', body_contains: 'ok' });
  const refused = await api.put(`${PATH}/${toHead.body.data.id}`, { method: 'HEAD' });
  t.equal(refused.status, 422, 'switching to HEAD while a body check is stored is refused');
  t.same(fieldsOf(refused), ['body_contains']);
  t.equal((await api.put(`${PATH}/${toHead.body.data.id}`, { method: 'HEAD', body_contains: null })).status, 200);
});

t.test('headers are write-only: never answered, replaced whole, removed with {} or null', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { ...BODY, service: 'checkout' });
  t.equal(made.status, 201);
  t.equal(made.body.data.headers_set, true);
  t.notOk(leaks(made.body), 'not in the create answer');
  const path = `${PATH}/${made.body.data.id}`;
  t.notOk(leaks((await api.get(path)).body), 'not in a read');
  t.notOk(leaks((await api.get(PATH)).body), 'not in a list');
  const dup = await api.post(PATH, BODY);
  t.equal(dup.status, 409);
  t.notOk(leaks(dup.body), 'not in the 409 data');
  const stale = await api.put(path, { headers: { Authorization: SECRET } }, { 'if-match': '"stale"' });
  t.equal(stale.status, 412);
  t.notOk(leaks(stale.body), 'not in the 412 data');

  const kept = await api.put(path, { interval_seconds: 120 });
  t.equal(kept.body.data.headers_set, true, 'an omitted map keeps the stored one');
  t.equal(kept.headers.get('etag') === made.headers.get('etag'), false);
  const same = await api.put(path, { headers: BODY.headers });
  t.equal(same.headers.get('etag'), kept.headers.get('etag'), 'the same map again changes nothing');
  const replaced = await api.put(path, { headers: { 'X-Other': 'x' } });
  t.equal(replaced.body.data.headers_set, true, 'a sent map replaces the stored one');
  t.not(replaced.headers.get('etag'), kept.headers.get('etag'), 'and changes the ETag');
  const emptied = await api.put(path, { headers: {} });
  t.equal(emptied.status, 200);
  t.equal(emptied.body.data.headers_set, false, '{} removes them');
  t.equal((await api.put(path, { headers: { 'X-Again': 'y' } })).body.data.headers_set, true);
  const cleared = await api.put(path, { headers: null });
  t.equal(cleared.status, 200);
  t.equal(cleared.body.data.headers_set, false, 'null removes them too');
  t.equal((await api.put(path, { headers: {} })).headers.get('etag'), cleared.headers.get('etag'), '{} where none are stored changes nothing');

  const audit = await api.get(`${CONFIG}/audit_log`);
  t.notOk(leaks(audit.body), 'no audit entry holds a header');
  const changes = audit.body.data.filter((e: { family: string }) => e.family === 'synthetic_checks').map((e: { changes: Record<string, unknown> }) => e.changes.headers);
  t.same(changes, ['(cleared)', '(set)', '(cleared)', '(changed)', undefined, '(set)'], 'the audit log shows markers only');
  const exported = await api.get(`${CONFIG}/export?format=hcl`);
  t.equal(exported.status, 200);
  t.notOk(/very-secret-probe|vigil-probe-marker|X-Other/.test(String(exported.body)), 'the export holds no header');
});

t.test('header names and values', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, unknown, string][] = [
    ['a name with a space', { 'Bad Name': 'v' }, 'headers.Bad Name'],
    ['a value with a line break', { 'X-A': 'a\r\nX-Injected: 1' }, 'headers.X-A'],
    ['a value that is no string', { 'X-A': 1 }, 'headers.X-A'],
    ['Host, which the client sets', { host: 'evil.example.com' }, 'headers.host'],
    ['one name twice in two cases', { 'X-A': '1', 'x-a': '2' }, 'headers'],
    ['21 headers', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])), 'headers'],
  ];
  for (const [name, headers, field] of cases) {
    const answer = await api.post(PATH, { name: 'h', url: 'https://x.example.com', headers });
    t.equal(answer.status, 422, name);
    t.ok(fieldsOf(answer).includes(field), `${name} names ${field}`);
    t.notOk(JSON.stringify(answer.body).includes('evil.example.com'), 'no refusal repeats a value');
  }
});

t.test('through the agent-tool endpoint the headers are never answered either', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const made = await agent.call('create_synthetic_check', BODY);
  t.notOk(made.isError);
  t.equal(made.body.data.headers_set, true);
  t.notOk(leaks(made.body));
  const read = await agent.call('get_synthetic_check', { id: made.body.data.id });
  t.notOk(leaks(read.body));
  const refused = await agent.call('update_synthetic_check', { id: made.body.data.id, interval_seconds: 30, timeout_ms: 30000 });
  t.ok(refused.isError);
  t.same(refused.body.errors.map((e: { field: string }) => e.field), ['timeout_ms']);
  const tools = await agent.client.listTools();
  const create = tools.tools.find((tool) => tool.name === 'create_synthetic_check')!;
  t.match(create.description, /timeout_ms must be below interval_seconds/, 'the tool states the rule');
  t.notOk('headers_set' in (create.inputSchema.properties ?? {}), 'headers_set is not an input');
});

t.test('run results are read-only and never change the ETag', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { name: 'r', url: 'https://x.example.com' });
  const path = `${PATH}/${made.body.data.id}`;
  for (const field of ['last_run_at', 'last_status', 'last_latency_ms', 'last_error', 'headers_set']) {
    const answer = await api.put(path, { [field]: null });
    t.equal(answer.status, 422, `${field} is refused`);
    t.same(fieldsOf(answer), [field]);
  }
  const db = vigil.running.services.db.em.fork();
  await db.execute(`update cfg_synthetic_checks set last_run_at = ?, last_status = 'failing', last_latency_ms = 10001, last_error = 'timed out' where id = ?`, [
    '2026-03-01T11:59:00Z', made.body.data.id,
  ]);
  const read = await api.get(path);
  t.match(read.body.data, { last_status: 'failing', last_latency_ms: 10001, last_error: 'timed out', last_run_at: '2026-03-01T11:59:00.000Z' });
  t.equal(read.headers.get('etag'), made.headers.get('etag'), 'a run result is not configuration');
});
