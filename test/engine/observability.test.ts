/**
 * Observability: structured JSON logs (one access line per request with its request id, route, status and, once
 * authenticated, organization and credential ids; never a secret or a token, webhook tokens in URLs included) and
 * Prometheus metrics at GET /metrics behind the operator token (requests by route and status, latency, webhook
 * outcomes by source, jobs by queue and state), with routes bounded so random paths cannot grow the series.
 */
import { Writable } from 'node:stream';
import t from 'tap';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { createLogger, loggedError } from '../../engine/logger.ts';
import { CONFIG, OPERATOR_TOKEN, client, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const vigil = await startVigil({ log: createLogger('debug', sink) });
t.teardown(() => vigil.close());

const org = await vigil.organization('enterprise');
const api = await org.key(['api:admin']);
const secrets = ['sk-provider-secret-0123456789abcdef', 'pager-signing-secret-abcdef0123', org.webhookToken, api.token, OPERATOR_TOKEN];

t.test('every request logs one JSON access line with its ids; no secret or token in any line', async (t) => {
  lines.length = 0;
  const created = await api.post(`${CONFIG}/ai_providers`, { name: 'primary', provider: 'vendor_a', api_key: secrets[0] }, { 'x-request-id': 'trace-42' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('x-request-id'), 'trace-42', 'a sent request id is kept and answered');
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: ['incident-pager'] } });
  t.equal((await api.post(`${CONFIG}/request_signing`, { source: 'incident-pager', secret: secrets[1] })).status, 201);
  const hook = await fetch(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, {
    method: 'POST', headers: { 'user-agent': 'Grafana/11.0', 'content-type': 'application/json' }, body: JSON.stringify({ status: 'firing', alerts: [] }),
  });
  t.equal(hook.status, 200);
  t.equal((await fetch(`${vigil.url}/webhooks/tickets/${org.webhookToken}/%3Cscript%3E`, { method: 'POST', headers: { 'user-agent': 'x/1' }, body: 'not json' })).status >= 400, true);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  await agent.call('list_teams');
  await agent.close();
  await api.get(`${CONFIG}/no_such_family/x/y`);

  const parsed = lines.map((l) => JSON.parse(l));
  const access = parsed.filter((l) => l.msg === 'request');
  t.ok(access.length >= 6, `${access.length} access lines`);
  const first = access.find((l) => l.request_id === 'trace-42');
  t.match(first, { method: 'POST', route: '/api/v1/config/ai_providers', status: 201, organization_id: org.id, credential_id: api.keyId }, 'ids of the caller');
  t.ok(access.some((l) => l.route === '/webhooks/metric-dashboard/:token' && l.status === 200), 'a webhook is logged by its route');
  t.ok(access.some((l) => l.route === '/webhooks/tickets/:token/:card'), 'the card path too');
  t.ok(access.some((l) => l.route === '/api/mcp' && l.status === 200 && l.organization_id === org.id), 'the agent-tool endpoint with its status and organization');
  t.ok(access.some((l) => l.route === '/api/v1/config/:unknown/:id/…'), 'an unknown path is folded');
  t.ok(access.every((l) => typeof l.request_id === 'string' && typeof l.ms === 'number'));
  for (const secret of secrets) t.notOk(lines.some((l) => l.includes(secret)), `no log line holds ${secret.slice(0, 12)}…`);
  t.notOk(lines.some((l) => l.includes('/webhooks/metric-dashboard/vigil_wh_')), 'no raw webhook path');
});

t.test('GET /metrics needs the operator token and answers Prometheus text', async (t) => {
  t.equal((await client(vigil.url).get('/metrics')).status, 401);
  t.equal((await client(vigil.url, api.token).get('/metrics')).status, 401, 'an organization key is not the operator token');
  const res = await fetch(`${vigil.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/plain/);
  const text = await res.text();
  t.match(text, /vigil_http_requests_total\{method="POST",route="\/api\/v1\/config\/ai_providers",status="201"\} 1/);
  t.match(text, /vigil_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/api\/v1\/config\/ai_providers"\}/);
  t.match(text, /vigil_webhook_deliveries_total\{source="metric-dashboard",status="200",outcome="no alerts"\} 1/);
  t.match(text, /vigil_webhook_deliveries_total\{source="tickets",status="422",outcome="refused"\} 1/, 'outcome details are folded');
  t.match(text, /# TYPE vigil_jobs gauge/);
  t.match(text, /vigil_process_resident_memory_bytes/);
  for (const secret of secrets) t.notOk(text.includes(secret), 'no secret in the metrics');
});

t.test('random paths do not grow the metric series', async (t) => {
  const operator = { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } };
  const before = (await (await fetch(`${vigil.url}/metrics`, operator)).text()).split('\n').filter((l) => l.startsWith('vigil_http_requests_total')).length;
  for (let i = 0; i < 20; i++) {
    await api.get(`${CONFIG}/random-${i}/x${i}`);
    await fetch(`${vigil.url}/webhooks/source-${i}/token-${i}`, { method: 'POST', headers: { 'user-agent': 'x/1' } });
    await fetch(`${vigil.url}/somewhere-${i}`);
  }
  const after = (await (await fetch(`${vigil.url}/metrics`, operator)).text()).split('\n').filter((l) => l.startsWith('vigil_http_requests_total')).length;
  t.ok(after - before <= 3, `at most one new series per folded route (${after - before})`);
});

t.test('what of an error is logged: a database error keeps only its class, others their message', async (t) => {
  const driver = new UniqueConstraintViolationException(Object.assign(new Error('duplicate key: Key (token)=(vigil_wh_secret_value) already exists'), { code: '23505' }));
  const logged = loggedError(driver);
  t.equal(logged.name, 'UniqueConstraintViolationException');
  t.notOk(JSON.stringify(logged).includes('vigil_wh_secret_value'), 'no value of the statement');
  t.same(loggedError(new Error('the tracker answered 502')), { name: 'Error', message: 'the tracker answered 502' });
  t.same(loggedError('thrown text'), { name: 'Error', message: 'a value that is not an Error was thrown' });
});
