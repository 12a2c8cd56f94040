/** The shared webhook machinery through HTTP: tokens, User-Agent, body limits, the delivery log. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const UA = { 'user-agent': 'vigil-tests/1.0' };
const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;

/** a Grafana notification, as the dashboard source reads it */
const GRAFANA = JSON.parse(readFileSync(new URL('../fixtures/webhooks/metric-dashboard/grafana-firing.json', import.meta.url), 'utf8'));

async function post(path: string, body: unknown = GRAFANA, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...UA, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const headerList = [...res.headers.entries()].filter(([name]) => name !== 'date' && name !== 'x-request-id'); // both differ per request
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, headers: headerList };
}

t.test('a valid token answers; unknown, rotated-away, revoked-previous and disabled tokens answer the same 404', async (t) => {
  const org = await vigil.organization();
  const ok = await post(`/webhooks/metric-dashboard/${org.webhookToken}`);
  t.equal(ok.status, 200);
  t.same(ok.body, { status: 'ok', processed: 2, total: 2 }, 'the notification\'s two alerts are processed');

  const unknown = await post('/webhooks/metric-dashboard/vigil_wh_no-such-token-at-all-000000');
  t.equal(unknown.status, 404);
  t.same(unknown.body, { error: 'not_found', message: 'No webhook is served at this address.' });

  // rotation: the previous token works for 72 hours, then answers the same 404
  const rotated = await vigil.operator.post(`/api/admin/v1/organizations/${org.id}/webhook_token/rotate`);
  t.equal(rotated.status, 200);
  const newToken = rotated.body.webhook_token as string;
  t.equal((await post(`/webhooks/metric-dashboard/${newToken}`)).status, 200, 'the new token works');
  vigil.clock.advance(71 * HOUR + 59 * MINUTE);
  t.equal((await post(`/webhooks/metric-dashboard/${org.webhookToken}`)).status, 200, 'the old token still works at 71h59m');
  vigil.clock.advance(2 * MINUTE);
  const expired = await post(`/webhooks/metric-dashboard/${org.webhookToken}`);
  t.equal(expired.status, 404, 'the old token answers 404 at 72h01m');
  t.equal((await post(`/webhooks/metric-dashboard/${newToken}`)).status, 200, 'the new token still works');

  // revoke: the previous token stops at once
  const second = await vigil.organization();
  const next = await vigil.operator.post(`/api/admin/v1/organizations/${second.id}/webhook_token/rotate`);
  t.equal((await post(`/webhooks/metric-dashboard/${second.webhookToken}`)).status, 200, 'inside the grace before revoke');
  t.equal((await vigil.operator.post(`/api/admin/v1/organizations/${second.id}/webhook_token/revoke_previous`)).status, 204);
  const revoked = await post(`/webhooks/metric-dashboard/${second.webhookToken}`);
  t.equal(revoked.status, 404, 'a revoked previous token answers 404 at once');
  t.equal((await post(`/webhooks/metric-dashboard/${next.body.webhook_token}`)).status, 200);

  // a disabled organization
  const third = await vigil.organization();
  t.equal((await vigil.operator.patch(`/api/admin/v1/organizations/${third.id}`, { disabled: true })).status, 200);
  const disabled = await post(`/webhooks/monitoring-a/${third.webhookToken}`);
  t.equal(disabled.status, 404);

  for (const [name, answer] of [['rotated away', expired], ['revoked previous', revoked], ['disabled organization', disabled]] as const) {
    t.equal(answer.text, unknown.text, `${name}: the same body as an unknown token`);
    t.same(answer.headers, unknown.headers, `${name}: the same headers as an unknown token`);
  }
  const unknownSource = await post(`/webhooks/no-such-source/${newToken}`);
  t.equal(unknownSource.status, 404, 'an unknown source answers 404');
  t.equal(unknownSource.text, unknown.text);
  const subPath = await post(`/webhooks/metric-dashboard/${newToken}/CARD-1`);
  t.equal(subPath.status, 404, 'card sub-paths exist on tickets only');
  const noCard = await post(`/webhooks/tickets/${newToken}/CARD-1/comments`, { body: 'hi' });
  t.same([noCard.status, noCard.body.message], [404, 'No card with that id or key is on this board.'], 'the tickets sub-paths are served (this board has no CARD-1)');
});

t.test('a request without a User-Agent is refused before any work', async (t) => {
  const org = await vigil.organization();
  const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end('{}');
  });
  t.equal(answer.status, 400);
  t.equal(answer.body.error, 'user_agent_required');
  t.match(answer.body.message, /User-Agent/);
  const api = await org.key(['mcp:read']);
  const agent = await connectAgent(vigil.url, api.token);
  t.teardown(() => agent.close());
  const log = await agent.call('list_webhook_deliveries');
  t.same(log.body.data, [], 'nothing was recorded: the request never reached the token');
});

t.test('bodies over the source limit answer 413 without being read', async (t) => {
  const org = await vigil.organization();
  const big = JSON.stringify({ title: 'x'.repeat(70_000) });
  const declared = await post(`/webhooks/tickets/${org.webhookToken}`, big);
  t.equal(declared.status, 413, 'a Content-Length over 65,536 bytes on tickets');
  t.equal(declared.body.error, 'payload_too_large');
  const unknownToken = await post('/webhooks/tickets/vigil_wh_nope', big);
  t.equal(unknownToken.status, 413, 'the same 413 for an unknown token: a 413 never confirms a token');
  t.equal((await post(`/webhooks/tickets/${org.webhookToken}`, JSON.stringify({ title: 'x', description: 'x'.repeat(60_000), padding: 'x'.repeat(5_400) }))).status, 201, 'just under the limit is read');
  t.equal((await post(`/webhooks/deployments/${org.webhookToken}`, JSON.stringify({ description: 'x'.repeat(70 * 1024) }))).status, 413, 'deployments take 64 KiB');
  const large = { ...GRAFANA, commonAnnotations: { description: 'x'.repeat(900 * 1024) } };
  t.equal((await post(`/webhooks/metric-dashboard/${org.webhookToken}`, large)).status, 200, 'alert sources take 1 MiB');

  // a chunked body (no Content-Length) is cut off at the limit
  const chunked = await new Promise<{ status: number; body: any }>((resolve) => {
    let sent = 0;
    let status = 0;
    let text = '';
    const done = () => resolve({ status, body: text ? JSON.parse(text) : undefined });
    const req = http.request(`${vigil.url}/webhooks/tickets/${org.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json', ...UA } }, (res) => {
      status = res.statusCode!;
      res.on('data', (c) => (text += c));
      res.on('end', done);
      res.on('error', done);
    });
    // the server closes the connection after its answer: the write side then fails, which is expected
    req.on('error', () => setTimeout(done, 100));
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = () => {
      // keeps sending (never ends) until the server answers and closes
      if (req.destroyed || status !== 0 || sent > 4 * 1024 * 1024) return;
      sent += chunk.length;
      if (req.write(chunk)) setImmediate(pump);
      else req.once('drain', pump);
    };
    pump();
  });
  t.equal(chunked.status, 413, 'a chunked body over the limit');
  t.equal(chunked.body.error, 'payload_too_large');

  const api = await org.key(['mcp:read']);
  const agent = await connectAgent(vigil.url, api.token);
  t.teardown(() => agent.close());
  const log = await agent.call('list_webhook_deliveries', { outcome: 'refused: too large' });
  t.equal(log.body.data.length, 3, 'each 413 to a valid token is logged');
  t.ok(log.body.data.every((d: any) => d.status === 413 && d.payload === null), 'with no payload kept');
});

t.test('the delivery log records outcomes, keeps safe headers only and strips secrets; list_webhook_deliveries', async (t) => {
  const org = await vigil.organization();
  await post(`/webhooks/cloud-alarms/${org.webhookToken}`, { AlarmName: 'cpu high', api_key: 'leak-me-0001', nested: { password: 'leak-me-0002', ok: 1 } }, {
    authorization: 'Bearer leak-me-0003',
    'x-hub-signature-256': 'sha256=leak-me-0004',
    'x-custom-secret': 'leak-me-0005',
    'x-amz-sns-message-type': 'Notification',
  });
  await post(`/webhooks/deployments/${org.webhookToken}`, 'not json at all', { 'content-type': 'text/plain' });
  const other = await vigil.organization();
  await post(`/webhooks/deployments/${other.webhookToken}`, { service: 'someone else' });

  const api = await org.key(['mcp:read']);
  const agent = await connectAgent(vigil.url, api.token);
  t.teardown(() => agent.close());
  const all = await agent.call('list_webhook_deliveries');
  t.notOk(all.isError);
  t.equal(all.body.data.length, 2, 'only this organization\'s deliveries');
  t.equal(all.body.truncated, false);
  const [text, alarm] = all.body.data;
  t.equal(text.source, 'deployments', 'newest first');
  t.match(text, { status: 422, outcome: 'refused: body' }, 'the deployments handler refuses a body that is not a JSON object');
  t.same(text.payload, { '(not kept)': 'the body is not JSON' }, 'a text/plain body reaches the webhook (no JSON-only refusal) and is noted');
  t.match(alarm, { source: 'cloud-alarms', status: 400, outcome: 'refused: unreadable', received_at: String, detail: /CloudWatch/ });
  t.ok(alarm.size > 0);
  t.same(alarm.payload, { AlarmName: 'cpu high', api_key: '(removed)', nested: { password: '(removed)', ok: 1 } }, 'credential-like members are removed');
  t.equal(alarm.headers['user-agent'], 'vigil-tests/1.0');
  t.equal(alarm.headers['x-amz-sns-message-type'], 'Notification');
  t.notOk('authorization' in alarm.headers, 'no Authorization header kept');
  t.notOk('x-hub-signature-256' in alarm.headers, 'no signature header kept');
  t.notOk(/leak-me/.test(JSON.stringify(all.body)), 'no secret value anywhere in the log');

  const filtered = await agent.call('list_webhook_deliveries', { source: 'cloud-alarms', limit: 1 });
  t.equal(filtered.body.data.length, 1);
  t.equal(filtered.body.data[0].source, 'cloud-alarms');
  const limited = await agent.call('list_webhook_deliveries', { limit: 1 });
  t.equal(limited.body.truncated, true);
  const refused = await agent.call('list_webhook_deliveries', { source: 'nowhere' });
  t.ok(refused.isError, 'an unknown source is refused');

  const rest = await (await org.key(['api:config_read'])).get(`${CONFIG}/webhook_deliveries?source=deployments`);
  t.equal(rest.status, 200, 'also served by REST');
  t.equal(rest.body.data.length, 1);

  // the payload is kept 7 days, the row 30 days
  vigil.clock.advance(8 * 24 * HOUR);
  await post(`/webhooks/deployments/${org.webhookToken}`, { service: 'later' });
  const later = await agent.call('list_webhook_deliveries');
  t.equal(later.body.data.length, 3);
  t.same(later.body.data[0].payload, { service: 'later' });
  t.equal(later.body.data[2].payload, null, 'an 8-day-old payload is gone');
  t.equal(later.body.data[2].outcome, 'refused: unreadable', 'the row itself stays');
  vigil.clock.advance(23 * 24 * HOUR);
  await post(`/webhooks/deployments/${org.webhookToken}`, { service: 'much later' });
  const pruned = await agent.call('list_webhook_deliveries');
  t.same(pruned.body.data.map((d: any) => d.payload?.service ?? null), ['much later', null], 'rows over 30 days old are pruned');
});

t.test('other methods answer 405', async (t) => {
  const org = await vigil.organization();
  const res = await fetch(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, { headers: UA });
  t.equal(res.status, 405);
  t.equal(res.headers.get('allow'), 'POST');
});
