/**
 * The Events API v2 intake (`events`): PagerDuty's documented events and Alertmanager's and Grafana's as they send
 * them, at `/webhooks/events/<token>` and at PagerDuty's own `/v2/enqueue` with the token as `routing_key`; every
 * action with its dedup key, the answers PagerDuty gives (202 and the 400 with `errors`), and the pipeline's rules
 * (a mute) applying to these alerts as to any source's.
 */
import t from 'tap';
import { parse, readEvent } from '../../../webhooks/sources/events.ts';
import { CONFIG, startVigil, type Vigil } from '../../helpers/harness.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';
import { eventsOf, fixture, fuzz } from './helpers.ts';

const FIXTURES = ['pagerduty-trigger', 'pagerduty-acknowledge', 'pagerduty-resolve', 'alertmanager-trigger', 'alertmanager-resolve', 'grafana-trigger', 'grafana-resolve'];
const fx = (name: string) => fixture('events', name);

t.test('the parser: PagerDuty\'s documented trigger, field by field', async (t) => {
  const [e] = eventsOf(t, parse(fx('pagerduty-trigger')));
  t.same(e, {
    fingerprint: 'events:samplekeyhere',
    status: 'firing',
    title: 'DISK at 99% on machine prod-datapipe03.example.com',
    source: 'events',
    severity: 'critical',
    service: 'mysql',
    labels: {
      'free space': '1%', 'ping time': '1500ms', 'load avg': '0.75',
      source: 'prod-datapipe03.example.com', component: 'mysql', group: 'prod-datapipe', class: 'disk', client: 'Sample Monitoring Service',
    },
    url: 'https://example.com/',
    started_at: '2015-07-17T08:42:58.315Z',
    external_id: 'samplekeyhere',
  });
  const [ack] = eventsOf(t, parse(fx('pagerduty-acknowledge')));
  t.match(ack, { fingerprint: 'events:samplekeyhere', status: 'acknowledged', state_only: true });
  const [resolve] = eventsOf(t, parse(fx('pagerduty-resolve')));
  t.match(resolve, { fingerprint: 'events:samplekeyhere', status: 'resolved', state_only: true });
});

t.test('the parser: Alertmanager\'s and Grafana\'s events, severities mapped', async (t) => {
  const [am] = eventsOf(t, parse(fx('alertmanager-trigger')));
  t.match(am, {
    fingerprint: 'events:4a8f1f3e2b8d6c9a0e7b5d3c1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a', status: 'firing', severity: 'high',
    title: '[FIRING:1] HighRequestLatency (api critical)', url: 'http://alertmanager.example.com:9093/#/alerts?receiver=vigil',
    labels: { num_firing: '1', source: 'Alertmanager', client: 'Alertmanager' },
  });
  t.match(am.labels.firing, /alertname = HighRequestLatency/);
  t.equal(am.service, undefined, 'no component and no service detail: no service');
  const [gr] = eventsOf(t, parse(fx('grafana-trigger')));
  t.match(gr, { status: 'firing', severity: 'critical', service: 'Grafana', url: 'http://localhost:3000/', labels: { group: 'default', class: 'default' } });
  t.equal(gr.started_at, undefined, 'Grafana sends no timestamp');
  for (const [word, severity] of [['critical', 'critical'], ['error', 'high'], ['warning', 'warning'], ['info', 'info']]) {
    const read = readEvent({ event_action: 'trigger', payload: { summary: 's', source: 'h', severity: word } }, () => 'k');
    t.equal(read.kind === 'event' && read.event.severity, severity, `${word} → ${severity}`);
  }
  const nested = readEvent({ event_action: 'trigger', dedup_key: 'n', payload: { summary: 's', source: 'h', severity: 'info', custom_details: { service: 'checkout', a: { b: { c: 1 } }, list: [1, 2], source: 'overridden' } } });
  t.match(nested.kind === 'event' && nested.event, { service: 'checkout', labels: { service: 'checkout', 'a.b.c': '1', list: '[1,2]', source: 'h' } }, 'flattened; payload fields win');
  const prose = readEvent({ event_action: 'trigger', dedup_key: 'p', payload: { summary: 's', source: 'h', severity: 'info', custom_details: 'disk full on /var' } });
  t.match(prose.kind === 'event' && prose.event, { summary: 'disk full on /var' }, 'custom_details as text is the summary');
  const many = readEvent({ event_action: 'trigger', dedup_key: 'n', payload: { summary: 's', source: 'h', severity: 'info', custom_details: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(5000)])) } });
  t.ok(many.kind === 'event' && Object.keys(many.event.labels).length <= 64 && Object.values(many.event.labels).every((v) => v.length <= 1024), 'labels bounded');
  fuzz(t, parse, FIXTURES.map(fx));
});

t.test('the parser: every documented refusal, each named', async (t) => {
  const cases: [string, unknown, RegExp[]][] = [
    ['no event_action', { dedup_key: 'k', payload: {} }, [/'event_action' is missing/]],
    ['an unknown event_action', { event_action: 'explode', dedup_key: 'k' }, [/'event_action' is invalid/]],
    ['a trigger without payload', { event_action: 'trigger' }, [/'payload' is missing/]],
    ['a trigger without summary, source and severity', { event_action: 'trigger', payload: { component: 'x' } },
      [/'payload.summary' is missing/, /'payload.source' is missing/, /'payload.severity' is missing/]],
    ['a bad severity', { event_action: 'trigger', payload: { summary: 's', source: 'h', severity: 'Critical' } }, [/'payload.severity' is invalid/]],
    ['a summary over 1024 characters', { event_action: 'trigger', payload: { summary: 'x'.repeat(1025), source: 'h', severity: 'info' } }, [/'payload.summary' is longer than 1024/]],
    ['an acknowledge without dedup_key', { event_action: 'acknowledge' }, [/'dedup_key' is missing or blank: it is required to acknowledge/]],
    ['a resolve with a blank dedup_key', { event_action: 'resolve', dedup_key: '  ' }, [/'dedup_key' is missing or blank: it is required to resolve/]],
    ['a dedup_key over 255 characters', { event_action: 'resolve', dedup_key: 'k'.repeat(256) }, [/'dedup_key' is longer than 255/]],
    ['a dedup_key that is not a string', { event_action: 'trigger', dedup_key: 5, payload: { summary: 's', source: 'h', severity: 'info' } }, [/'dedup_key' must be a string/]],
  ];
  for (const [name, body, expected] of cases) {
    const read = readEvent(body);
    if (read.kind !== 'invalid') {
      t.fail(`${name}: accepted`);
      continue;
    }
    t.equal(read.errors.length, expected.length, `${name}: ${expected.length} error(s)`);
    expected.forEach((re, i) => t.match(read.errors[i], re, name));
  }
  t.equal(readEvent({ event_action: 'trigger', payload: { summary: 'x'.repeat(1024), source: 'h', severity: 'info' } }).kind, 'event', '1024 characters are allowed');
});

// ---- through HTTP ----

const vigil: Vigil = await startVigil();
t.teardown(() => vigil.close());

const UA = { 'user-agent': 'Alertmanager/0.28.1', 'content-type': 'application/json' };
const OK = { status: 'success', message: 'Event processed' };
const INVALID = { status: 'invalid event', message: 'Event object is invalid', error: 'invalid_event' };

interface Org {
  token: string;
  api: Awaited<ReturnType<Awaited<ReturnType<Vigil['organization']>>['key']>>;
  agent: Agent;
}

async function organization(): Promise<Org> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  return { token: org.webhookToken, api, agent };
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${vigil.url}${path}`, { method: 'POST', headers: UA, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** PagerDuty's own path, the token as routing_key. */
const enqueue = (org: Org, body: Record<string, unknown>) => post('/v2/enqueue', { ...body, routing_key: org.token });
/** The source's path, the token in it (routing_key as the sender's configuration left it). */
const deliver = (org: Org, body: unknown) => post(`/webhooks/events/${org.token}`, body);

async function alert(org: Org, dedupKey: string) {
  const got = await org.agent.call('get_alert', { fingerprint: `events:${dedupKey}` });
  return got.isError ? null : got.body.data;
}
const alerts = async (org: Org) => (await org.agent.call('list_alerts', {})).body.data;
const outcomes = async (org: Org) => (await org.api.get(`${CONFIG}/webhook_deliveries`)).body.data.map((d: any) => d.outcome);

t.test('PagerDuty\'s documented events at /v2/enqueue: trigger, acknowledge, resolve, one alert kept in step', async (t) => {
  const org = await organization();
  t.same(await enqueue(org, fx('pagerduty-trigger')), { status: 202, body: { ...OK, dedup_key: 'samplekeyhere' } });
  let a = await alert(org, 'samplekeyhere');
  t.match(a, { status: 'firing', title: 'DISK at 99% on machine prod-datapipe03.example.com', severity: 'critical', service: 'mysql', source: 'events', url: 'https://example.com/' });

  t.same(await enqueue(org, fx('pagerduty-trigger')), { status: 202, body: { ...OK, dedup_key: 'samplekeyhere' } }, 'a repeat is answered alike');
  t.equal((await alert(org, 'samplekeyhere')).occurrences, 2, 'and deduplicated by its key');

  t.same(await enqueue(org, fx('pagerduty-acknowledge')), { status: 202, body: { ...OK, dedup_key: 'samplekeyhere' } });
  a = await alert(org, 'samplekeyhere');
  t.match(a, { status: 'acknowledged', title: 'DISK at 99% on machine prod-datapipe03.example.com', severity: 'critical', service: 'mysql' }, 'an acknowledge keeps the details');
  t.ok(a.acknowledged_at);
  t.equal(a.labels.component, 'mysql');

  t.same(await enqueue(org, fx('pagerduty-resolve')), { status: 202, body: { ...OK, dedup_key: 'samplekeyhere' } });
  a = await alert(org, 'samplekeyhere');
  t.match(a, { status: 'resolved', title: 'DISK at 99% on machine prod-datapipe03.example.com' });
  t.ok(a.resolved_at);
  t.equal((await alerts(org)).length, 1, 'one alert throughout');
  t.same(await outcomes(org), ['resolved', 'acknowledged', 'duplicate', 'created']);
});

t.test('Alertmanager and Grafana at /webhooks/events/<token>, their routing_key left as configured', async (t) => {
  const org = await organization();
  for (const sender of ['alertmanager', 'grafana']) {
    const trigger = fx(`${sender}-trigger`);
    const key = String(trigger.dedup_key);
    t.same(await deliver(org, trigger), { status: 202, body: { ...OK, dedup_key: key } }, `${sender}: trigger`);
    t.match(await alert(org, key), { status: 'firing', source: 'events' });
    t.same(await deliver(org, fx(`${sender}-resolve`)), { status: 202, body: { ...OK, dedup_key: key } }, `${sender}: resolve`);
    const a = await alert(org, key);
    t.match(a, { status: 'resolved', title: trigger.payload && (trigger.payload as any).summary }, `${sender}: resolved, the trigger's title kept`);
  }
  t.match(await alert(org, String(fx('alertmanager-trigger').dedup_key)), { severity: 'high' }, 'Alertmanager\'s default "error" is high');
});

t.test('a trigger without dedup_key gets one, answered, that acknowledges and resolves it', async (t) => {
  const org = await organization();
  const sent = await enqueue(org, { event_action: 'trigger', payload: { summary: 'Backup job failed', source: 'cron-1', severity: 'warning' } });
  t.equal(sent.status, 202);
  t.match(sent.body, { ...OK, dedup_key: /^[0-9a-f]{32}$/ });
  const key = sent.body.dedup_key;
  t.match(await alert(org, key), { status: 'firing', title: 'Backup job failed', severity: 'warning' });
  const other = await enqueue(org, { event_action: 'trigger', payload: { summary: 'Backup job failed', source: 'cron-1', severity: 'warning' } });
  t.not(other.body.dedup_key, key, 'each keyless trigger is its own alert, as PagerDuty');
  t.same((await enqueue(org, { event_action: 'acknowledge', dedup_key: key })).body, { ...OK, dedup_key: key });
  t.equal((await alert(org, key)).status, 'acknowledged');
  t.same((await enqueue(org, { event_action: 'resolve', dedup_key: key })).body, { ...OK, dedup_key: key });
  t.equal((await alert(org, key)).status, 'resolved');
});

t.test('an acknowledge or resolve of a key never triggered: 202, nothing recorded', async (t) => {
  const org = await organization();
  t.same(await enqueue(org, { event_action: 'acknowledge', dedup_key: 'never-seen' }), { status: 202, body: { ...OK, dedup_key: 'never-seen' } });
  t.same(await enqueue(org, { event_action: 'resolve', dedup_key: 'never-seen' }), { status: 202, body: { ...OK, dedup_key: 'never-seen' } });
  t.same(await alerts(org), []);
  t.same(await outcomes(org), ['unknown alert', 'unknown alert']);
});

t.test('the refusals, as PagerDuty answers them: 400 with errors, nothing recorded', async (t) => {
  const org = await organization();
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['no event_action', { payload: { summary: 's', source: 'h', severity: 'info' } }, /'event_action' is missing/],
    ['a bad event_action', { event_action: 'page', payload: { summary: 's', source: 'h', severity: 'info' } }, /'event_action' is invalid/],
    ['no summary', { event_action: 'trigger', payload: { source: 'h', severity: 'info' } }, /'payload.summary' is missing/],
    ['no source', { event_action: 'trigger', payload: { summary: 's', severity: 'info' } }, /'payload.source' is missing/],
    ['no severity', { event_action: 'trigger', payload: { summary: 's', source: 'h' } }, /'payload.severity' is missing/],
    ['a bad severity', { event_action: 'trigger', payload: { summary: 's', source: 'h', severity: 'sev1' } }, /'payload.severity' is invalid/],
    ['a long summary', { event_action: 'trigger', payload: { summary: 'x'.repeat(1025), source: 'h', severity: 'info' } }, /longer than 1024/],
    ['an acknowledge without dedup_key', { event_action: 'acknowledge' }, /required to acknowledge/],
    ['a resolve without dedup_key', { event_action: 'resolve' }, /required to resolve/],
  ];
  for (const [name, body, error] of cases) {
    for (const [where, res] of [['/v2/enqueue', await enqueue(org, body)], ['/webhooks/events', await deliver(org, body)]] as const) {
      t.equal(res.status, 400, `${name} at ${where}`);
      t.match(res.body, { ...INVALID, errors: [error] }, `${name} at ${where}`);
      t.equal(res.body.errors.length, 1);
    }
  }
  const notJson = await deliver(org, 'not json');
  t.match(notJson, { status: 400, body: { ...INVALID, errors: [/not JSON/] } });
  t.same(await alerts(org), [], 'nothing recorded');
  const log = await outcomes(org);
  t.ok(log.length > 0 && log.every((o: string) => o === 'refused: invalid event'), 'each refusal is in the delivery log');
});

t.test('/v2/enqueue: a missing or unknown routing_key is refused as PagerDuty refuses it', async (t) => {
  const org = await organization();
  const trigger = fx('pagerduty-trigger');
  const { routing_key: _sample, ...keyless } = trigger;
  t.same(await post('/v2/enqueue', keyless), { status: 400, body: { ...INVALID, errors: ["'routing_key' is missing or blank."] } });
  t.same(await post('/v2/enqueue', trigger), { status: 400, body: { ...INVALID, errors: ['Invalid routing key'] } }, 'the documentation\'s sample key');
  t.same(await post('/v2/enqueue', { ...trigger, routing_key: `${org.token}x` }), { status: 400, body: { ...INVALID, errors: ['Invalid routing key'] } });
  t.same(await post('/v2/enqueue', 'not json'), { status: 400, body: { ...INVALID, errors: ["'routing_key' is missing or blank."] } });
  const get = await fetch(`${vigil.url}/v2/enqueue`, { headers: UA });
  t.equal(get.status, 405);
  t.same(await alerts(org), []);
  t.same(await post(`/webhooks/events/${org.token}x`, trigger), { status: 404, body: { error: 'not_found', message: 'No webhook is served at this address.' } }, 'the path form answers like every source');
});

t.test('the routing key (the webhook token) never reaches the delivery log', async (t) => {
  const org = await organization();
  await enqueue(org, fx('grafana-trigger'));
  await deliver(org, { ...fx('grafana-resolve'), routing_key: org.token });
  const log = await org.api.get(`${CONFIG}/webhook_deliveries`);
  t.equal(log.body.data.length, 2);
  t.notMatch(JSON.stringify(log.body), org.token);
  for (const d of log.body.data) t.equal(d.payload.routing_key, '(removed)');
});

t.test('the pipeline\'s rules apply: an in-force mute mutes an Events API alert', async (t) => {
  const org = await organization();
  const mute = await org.api.post(`${CONFIG}/alert_mutes`, { pattern: 'DISK at 99%', duration_minutes: 10 });
  t.equal(mute.status, 201);
  t.same((await enqueue(org, fx('pagerduty-trigger'))).status, 202);
  const a = await alert(org, 'samplekeyhere');
  t.equal(a.status, 'muted');
  t.equal(a.muted_by, mute.body.data.id);
  t.notOk(a.effects.some((e: any) => e.kind === 'page'), 'no page');
  t.same(await outcomes(org), ['muted']);
});

t.test('hostile custom details: deeply nested, answered 400 or 202, never a 5xx', async (t) => {
  const org = await organization();
  const deep = `{"event_action":"trigger","dedup_key":"deep","payload":{"summary":"s","source":"h","severity":"info","custom_details":{"a":{"b":{"c":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}}}`;
  const res = await post(`/webhooks/events/${org.token}`, deep);
  t.ok(res.status === 202 || res.status === 400, `answered ${res.status}`);
});
