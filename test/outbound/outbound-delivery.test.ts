/**
 * Outbound delivery end to end, to receivers on 127.0.0.1: alerts through the pipeline, outbound rules choosing
 * configs, the job queue sending (signed Standard Webhooks style, checked here with the `standardwebhooks`
 * package), retries on a short injected schedule (3 attempts, 0.1 s apart), `dead` after the last, `redeliver`,
 * and the SSRF refusals. Waits poll for an outcome with a deadline; nothing sleeps on the wall clock.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { CONFIG, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { alertOrg, type AlertOrg } from '../helpers/outbound.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const resolve = async (hostname: string) => (hostname === 'internal.test' ? [{ address: '10.0.0.7', family: 4 }] : []);
const vigil = await startVigil({ outbound: { retryDelaysSeconds: [0.1, 0.1], resolve } });
t.teardown(() => vigil.close());
// webhook-timestamp comes from the service's clock: receivers check it against theirs
vigil.clock.set(new Date());

const MINUTE = 60_000;
const ALL_ALERT_EVENTS = ['alert.fired', 'alert.acknowledged', 'alert.resolved', 'incident.opened', 'incident.closed'];

async function receiver(fallback?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(fallback);
  t.teardown(() => r.close());
  return r;
}

async function org(settings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const o = await alertOrg(vigil, settings);
  t.teardown(() => o.agent.close());
  return o;
}

/**
 * A webhook config to `url` and a rule sending `events` to it. Its timeout leaves a loaded machine room: a local
 * receiver answering later than it would turn a success into a timeout and a retry (tests of timeouts set their own).
 */
async function destination(o: AlertOrg, url: string, config: Record<string, unknown> = {}, events = ALL_ALERT_EVENTS, filters: Record<string, unknown> = {}) {
  const made = await o.create('outbound_configs', { name: `dest ${randomBytes(3).toString('hex')}`, kind: 'webhook', url, timeout_ms: 5000, ...config });
  const rule = await o.create('outbound_rules', { name: `rule ${made.id}`, events, outbound_config_id: made.id, filters });
  return { config: made, rule };
}

async function settled(o: AlertOrg, args: Record<string, unknown>, status: string, count = 1): Promise<any[]> {
  let found: any[] = [];
  await waitFor(async () => (found = (await o.deliveries(args)).filter((d) => d.status === status)).length >= count, `${count} ${status} deliveries`);
  return found;
}

t.test('an alert that pages is delivered once, signed; the receiver verifies it with standardwebhooks', async (t) => {
  const r = await receiver();
  const o = await org({ auto_open_incidents: true, auto_close_incidents: true });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const { config, rule } = await destination(o, `${r.url}/hooks/vigil`, { signing_secret: secret, headers: { Authorization: 'Bearer receiver-token' } });
  t.same((await o.fire({ name: 'DiskFull', service: 'db', severity: 'critical' })).status, 200);
  const alert = await o.alert('DiskFull');
  const [fired] = await settled(o, { event_type: 'alert.fired' }, 'delivered');
  t.match(fired, { event_type: 'alert.fired', subject_id: alert.id, outbound_config_id: config.id, rule_ids: [rule.id], attempts: 1, last_status_code: 200 });
  t.match(fired.attempt_log, [{ attempt: 1, status_code: 200, outcome: 'delivered', error: null, next_attempt_at: null }]);

  const received = r.processed.get(fired.id)!;
  t.ok(received, 'the receiver got it under webhook-id = the delivery id');
  t.equal(received.headers.authorization, 'Bearer receiver-token', 'with the config\'s own headers');
  t.equal(received.headers['content-type'], 'application/json');
  const verified = new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as any;
  t.match(verified, { type: 'alert.fired', version: 1, id: fired.event_id, organization_id: o.id, data: { alert: { id: alert.id, title: 'DiskFull', severity: 'critical', service: 'db', source: 'metric-dashboard', status: 'firing' }, teams: [], storm: null } });
  t.same(Object.keys(verified), ['type', 'version', 'id', 'occurred_at', 'organization_id', 'data'], 'the envelope');
  t.same(verified, fired.payload, 'the stored payload is what was sent');
  t.throws(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(received.body, received.headers as Record<string, string>), 'another secret does not verify');
  t.throws(() => new Webhook(secret).verify(received.body.replace('DiskFull', 'DiskFine'), received.headers as Record<string, string>), 'a changed body does not verify');

  // the incident it opened, then the resolve and the incident's close
  await settled(o, { event_type: 'incident.opened' }, 'delivered');
  await o.resolve({ name: 'DiskFull', service: 'db' });
  const [resolved] = await settled(o, { event_type: 'alert.resolved' }, 'delivered');
  t.match(resolved.payload.data.alert, { id: alert.id, status: 'resolved' });
  const [closed] = await settled(o, { event_type: 'incident.closed' }, 'delivered');
  t.match(closed.payload.data, { incident: { status: 'closed', severity: 'critical' }, alert: { id: alert.id } });
  t.equal(r.requests.length, 4, 'four events, four requests');
  const metrics = await (await fetch(`${vigil.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  const delivered = Number(/vigil_delivery_attempts_total\{channel="outbound",outcome="delivered"\} (\d+)/.exec(metrics)?.[1] ?? 0);
  t.ok(delivered >= 4, 'GET /metrics counts the attempts by channel and outcome');
});

t.test('a secret without the whsec_ prefix signs with its own bytes', async (t) => {
  const r = await receiver();
  const o = await org();
  const secret = 'plain-signing-secret-0123456789';
  await destination(o, `${r.url}/plain`, { signing_secret: secret }, ['alert.fired']);
  await o.fire({ name: 'PlainSigned' });
  const [d] = await settled(o, {}, 'delivered');
  const received = r.processed.get(d.id)!;
  t.ok(new Webhook(new Uint8Array(Buffer.from(secret)), { format: 'raw' }).verify(received.body, received.headers as Record<string, string>));
});

t.test('a muted alert and a re-fire inside the cooldown reach no outbound rule; a storm delivers once', async (t) => {
  const r = await receiver();
  const o = await org({ alert_refire_cooldown_minutes: 30, alert_storm_threshold: 3, alert_storm_window_seconds: 300 });
  await destination(o, `${r.url}/x`, {}, ['alert.fired', 'alert.resolved']);
  await o.create('alert_mutes', { pattern: 'noisy' });
  await o.fire({ name: 'NoisyDisk' });
  const muted = await o.alert('NoisyDisk');
  t.equal(muted.status, 'muted');
  t.same(await o.deliveries({ subject_id: muted.id }), [], 'a muted alert: no delivery');

  await o.fire({ name: 'Flappy' });
  const flappy = (await o.alert('Flappy')).id;
  await o.resolve({ name: 'Flappy' });
  vigil.clock.advance(5 * MINUTE);
  await o.fire({ name: 'Flappy' });
  t.equal((await o.alert('Flappy')).effects.at(-2).detail.reason, 'refire_cooldown');
  t.same((await o.deliveries({ subject_id: flappy })).map((d: any) => d.event_type).sort(), ['alert.fired', 'alert.resolved'], 'the re-fire in the cooldown sent nothing');
  vigil.clock.advance(30 * MINUTE);

  // Flappy's window has passed: five new alerts, the third forms a storm, the other two join it
  await o.fire({ name: 'S1' }, { name: 'S2' }, { name: 'S3' }, { name: 'S4' }, { name: 'S5' });
  const fired = (await o.deliveries({ event_type: 'alert.fired' })).filter((d: any) => d.payload.data.alert.title.startsWith('S'));
  t.equal(fired.length, 3, 'two alerts paged alone, then one delivery for the whole storm');
  const storm = fired.filter((d: any) => d.payload.data.storm);
  t.equal(storm.length, 1, 'the storm delivers once');
  t.equal(storm[0].payload.data.storm.alerts, 3);
  await settled(o, { event_type: 'alert.fired' }, 'delivered', 4);
});

t.test('outbound rules filter; a disabled config and a kind without the outbound channel send nothing', async (t) => {
  const r = await receiver();
  const o = await org();
  await destination(o, `${r.url}/db`, {}, ['alert.fired'], { services: ['db'], severities: ['critical'] });
  const off = await destination(o, `${r.url}/off`, {}, ['alert.fired']);
  t.equal((await o.api.put(`${CONFIG}/outbound_configs/${off.config.id}`, { enabled: false })).status, 200);
  await o.fire({ name: 'Api5xx', service: 'api' }, { name: 'DbWarn', service: 'db', severity: 'warning' }, { name: 'DbDown', service: 'db' });
  t.same((await o.deliveries()).map((d: any) => d.payload.data.alert.title), ['DbDown'], 'only the event every filter passes, to the enabled config only');
  t.equal((await o.api.put(`${CONFIG}/notification_settings`, { channels: { 'alert.fired': ['chat'] } })).status, 200);
  await o.fire({ name: 'DbDown2', service: 'db' });
  t.equal((await o.deliveries()).length, 1, 'alert.fired without the outbound channel reaches no rule');
});

t.test('retried after a 500 and after a timeout, then delivered: the receiver processes it exactly once', async (t) => {
  const r = await receiver();
  r.script.push(500, 'hang');
  const o = await org();
  // the hang costs this timeout once; the third attempt must still answer within it on a loaded machine
  await destination(o, `${r.url}/flaky`, { timeout_ms: 2000 }, ['alert.fired']);
  await o.fire({ name: 'Retried' });
  const [d] = await settled(o, {}, 'delivered');
  t.equal(d.attempts, 3);
  t.match(d.attempt_log, [
    { attempt: 1, status_code: 500, outcome: 'failed', error: 'the receiver answered 500', response: '{"ok":false}' },
    { attempt: 2, status_code: null, outcome: 'failed', error: 'the receiver could not be reached' },
    { attempt: 3, status_code: 200, outcome: 'delivered', next_attempt_at: null },
  ]);
  t.ok(d.attempt_log[0].next_attempt_at && d.attempt_log[1].next_attempt_at, 'each failure names the next try');
  t.same(r.requests.map((q) => q.headers['webhook-id']), [d.id, d.id, d.id], 'three requests, one webhook-id');
  t.same(new Set(r.requests.map((q) => q.body)).size, 1, 'the same body each time');
  t.equal(r.processed.size, 1, 'processed once');
});

t.test('a receiver that echoes the request: the config\'s secrets never reach the attempt log', async (t) => {
  const r = await receiver();
  r.script.push({ echo: 500 });
  const o = await org();
  const token = 'Bearer receiver-token-echoed-back-1234';
  await destination(o, `${r.url}/echo`, { headers: { Authorization: token } }, ['alert.fired']);
  await o.fire({ name: 'Echoed' });
  const [d] = await settled(o, {}, 'delivered');
  t.match(d.attempt_log[0], { status_code: 500, outcome: 'failed', response: /"authorization":"\(removed\)"/ });
  t.notOk(JSON.stringify(d).includes('receiver-token-echoed'), 'the header value appears nowhere in the answer');
});

t.test('a pager config sends Events v2 style events carrying its write-only routing key', async (t) => {
  const r = await receiver();
  const o = await org();
  const routingKey = 'R0utingKey-of-the-pager-service-77';
  const { config } = await destination(o, `${r.url}/v2/enqueue`, { kind: 'pager', routing_key: routingKey }, ['alert.fired', 'alert.resolved', 'card.created']);
  t.same(config.routing_key_set, true);
  t.notOk('routing_key' in config, 'answered only as routing_key_set');
  await o.fire({ name: 'PagerKey', service: 'db' });
  await o.resolve({ name: 'PagerKey', service: 'db' });
  await waitFor(() => r.processed.size === 2, 'trigger and resolve received');
  const bodies = [...r.processed.values()].map((p) => JSON.parse(p.body));
  const alert = await o.alert('PagerKey');
  t.same(bodies.map((b) => [b.routing_key, b.event_action, b.dedup_key]).sort(), [
    [routingKey, 'resolve', `vigil-alert-${alert.id}`],
    [routingKey, 'trigger', `vigil-alert-${alert.id}`],
  ]);
  const listed = await o.deliveries();
  t.notOk(JSON.stringify(listed).includes(routingKey), 'the key appears in no delivery answer');
  const read = await o.api.get(`${CONFIG}/outbound_configs/${config.id}`);
  t.notOk(JSON.stringify(read.body).includes(routingKey), 'nor in the config read');
  const missing = await o.api.put(`${CONFIG}/outbound_configs/${config.id}`, { routing_key: null });
  t.match(missing.body, { error: 'validation_failed', errors: [{ field: 'routing_key' }] }, 'a pager cannot lose its key');
});

t.test('dead after the last try; redeliver sends it again with the same webhook-id', async (t) => {
  const r = await receiver(500);
  const o = await org();
  await destination(o, `${r.url}/down`, {}, ['alert.fired']);
  await o.fire({ name: 'Doomed' });
  const [dead] = await settled(o, {}, 'dead');
  t.equal(dead.attempts, 3, 'three attempts under the test schedule');
  t.same(dead.attempt_log.map((a: any) => a.outcome), ['failed', 'failed', 'dead']);
  t.equal(dead.next_attempt_at, null);
  t.same(await o.deliveries({ status: 'dead' }), [dead], 'listed by status');

  const viewer = await connectAgent(vigil.url, (await (await vigil.organization()).key(['mcp:read'])).token);
  t.teardown(() => viewer.close());
  const refused = await viewer.call('redeliver', { delivery_id: dead.id });
  t.equal(refused.isError, true, 'a viewer may not redeliver');
  t.equal((await o.agent.call('redeliver', { delivery_id: '00000000-0000-4000-8000-000000000000' })).body.error, 'not_found');

  r.fallback = 200;
  const again = await o.agent.call('redeliver', { delivery_id: dead.id });
  t.same(again, { isError: false, body: { data: { id: dead.id, status: 'pending', previous_status: 'dead', attempts: 3 } } });
  const [delivered] = await settled(o, {}, 'delivered');
  t.equal(delivered.attempts, 4);
  t.same(delivered.attempt_log.map((a: any) => a.outcome), ['failed', 'failed', 'dead', 'delivered']);
  t.equal(r.processed.get(dead.id)?.headers['webhook-id'], dead.id, 'the same webhook-id');

  await o.agent.call('redeliver', { delivery_id: dead.id });
  await waitFor(() => r.requests.length === 5, 'the second redelivery');
  t.equal(r.processed.size, 1, 'a receiver de-duplicating by webhook-id processes it once');
  const audit = await vigil.operator.get(`/api/admin/v1/organizations/${o.id}/audit_log`);
  t.match(audit.body.data[0], { family: 'outbound_deliveries', row_id: dead.id, action: 'action:redeliver' });
});

t.test('SSRF: a private address fails like a closed port (same error, same retries); a redirect to another host is dead at once', async (t) => {
  const r = await receiver({ redirect: 'http://localhost:1/elsewhere' });
  const closed = await startReceiver();
  await closed.close();
  const o = await org();
  // a literal private address is refused when saved (test/resources/target-urls.test.ts); a name is judged when called
  const literal = await o.api.post(`${CONFIG}/outbound_configs`, { name: 'literal', kind: 'webhook', url: 'https://10.1.2.3/hook' });
  t.equal(literal.status, 422, 'a literal private address is refused when saved');
  const named = await destination(o, 'https://internal.test/hook', {}, ['alert.fired']);
  const port = await destination(o, `http://127.0.0.1:${closed.port}/hook`, {}, ['alert.fired']);
  const redirect = await destination(o, `${r.url}/moved`, {}, ['alert.fired']);
  await o.fire({ name: 'Ssrf' });
  const dead = await settled(o, {}, 'dead', 3);
  const by = (id: string) => dead.find((d: any) => d.outbound_config_id === id);
  const unreachable = { attempts: 3, last_status_code: null, last_error: 'the receiver could not be reached' };
  t.match(by(named.config.id), unreachable, 'a name resolving to a private address: retried, then dead');
  t.match(by(port.config.id), unreachable, 'a closed port: the same');
  t.same(by(named.config.id).attempt_log.map((a: any) => a.error), by(port.config.id).attempt_log.map((a: any) => a.error), 'attempt by attempt');
  t.match(by(redirect.config.id), { attempts: 1, last_error: /redirect to another host, which is never followed/ });
  t.equal(r.requests.length, 1, 'the redirecting receiver was asked once; the other host never');
});

t.test('loopback is refused unless the operator allows it', async (t) => {
  // a loopback URL is refused when saved here, so the request-time check is reached through a name that resolves to loopback
  const loopbackName = async (hostname: string) => (hostname === 'loopback.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const strict = await startVigil({ outbound: { allowLoopback: false, retryDelaysSeconds: [], resolve: loopbackName } });
  t.teardown(() => strict.close());
  const r = await receiver();
  const o = await alertOrg(strict);
  t.teardown(() => o.agent.close());
  await destination(o, `https://loopback.test:${r.port}/local`, {}, ['alert.fired']);
  await o.fire({ name: 'Local' });
  let found: any[] = [];
  await waitFor(async () => (found = await o.deliveries({ status: 'dead' })).length === 1, 'the refusal');
  t.equal(found[0].last_error, 'the receiver could not be reached');
  t.equal(r.requests.length, 0);
});
