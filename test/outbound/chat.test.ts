/**
 * Chat delivery through a fake Web API on 127.0.0.1: a page opens one thread per alert; acknowledge, resolve and a
 * quiet re-fire inside the cooldown reply in it (the re-fire pages nothing and reaches no outbound rule) and the
 * first post is updated to the alert's state; a missing channel falls back to default_channel (none: not posted);
 * a workspace that is not connected gets nothing; cards, incidents and change notifications post to their channel;
 * quiet hours hold posts until a release pass after they end; transient failures are retried and post once,
 * permanent ones fail at once; the bot token appears in no answer and no stored row.
 */
import t from 'tap';
import { readStore } from '../../engine/operations/context.ts';
import { randomUUID } from 'node:crypto';
import { runHousekeeping, runNoticePass } from '../../outbound/tick.ts';
import { STALE_MINUTES } from '../../outbound/deliveries/orphans.ts';
import { startFakeChat, type ChatMessage } from '../helpers/fake-chat.ts';
import { CONFIG, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { alertOrg, effects, type AlertOrg } from '../helpers/outbound.ts';
import { startReceiver } from '../helpers/receiver.ts';

const BOT = 'xoxb-chat-test-token-7f3a9c';
const chat = await startFakeChat({ token: BOT, channels: ['#alerts-db', '#alerts-api-service', '#ops', '#changes'] });
t.teardown(() => chat.close());
const vigil = await startVigil({ chat: { apiUrl: chat.url, retryDelaysSeconds: [0.2, 0.2] } });
t.teardown(() => vigil.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());

/** An organization with its workspace connected (unless `chat` says otherwise); each test uses services of its own. */
async function connected(settings: Record<string, unknown> = {}, chatSettings: Record<string, unknown> = {}): Promise<AlertOrg> {
  const o = await alertOrg(vigil, settings);
  const put = await o.api.put(`${CONFIG}/chat`, { workspace_id: 'T0CHAT', bot_token: BOT, default_channel: '#ops', ...chatSettings });
  if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  return o;
}

async function messages(o: AlertOrg, args: Record<string, unknown> = {}): Promise<any[]> {
  const got = await o.agent.call('list_chat_messages', args);
  if (got.isError) throw new Error(JSON.stringify(got.body));
  return got.body.data;
}

/** waits until every message of the organization has settled (sent, failed, not posted, cancelled) */
async function settled(o: AlertOrg, count: number): Promise<any[]> {
  let last: any[] = [];
  await waitFor(async () => {
    last = await messages(o);
    return last.length === count && last.every((m) => ['sent', 'failed', 'not_posted', 'cancelled'].includes(m.status));
  }, `${count} chat messages settled`);
  return last.reverse();
}

const sectionText = (m: ChatMessage) => m.blocks.map((b: any) => [b.text?.text, ...(b.fields ?? []).map((f: any) => f.text)].filter(Boolean).join('\n')).join('\n');
const byText = (channel: string, text: string) => chat.posts(channel).filter((m) => m.text.includes(text));

t.test('a page opens one thread; acknowledge and resolve reply in it, and resolve closes the first post', async (t) => {
  const o = await connected();
  t.teardown(() => o.agent.close());
  const incident = (event_type: string) => ({
    event: {
      id: `01CHAT${event_type.length}`, event_type, resource_type: 'incident', occurred_at: '2026-03-01T12:00:00.000Z', agent: null, client: null,
      data: {
        id: 'PCHAT01', type: 'incident', self: 'https://api.pagerduty.com/incidents/PCHAT01', html_url: 'https://acme.pagerduty.com/incidents/PCHAT01',
        number: 7, status: event_type.split('.')[1], incident_key: 'chat-thread-key', title: 'Checkout latency', urgency: 'high', priority: { summary: 'P1' },
        service: { id: 'PSVC', summary: 'API Service', type: 'service_reference' }, created_at: '2026-03-01T11:58:00Z',
      },
    },
  });
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token;
  const pager = async (type: string) => {
    const res = await fetch(`${vigil.url}/webhooks/incident-pager/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'PagerDuty-Webhook/V3.0' }, body: JSON.stringify(incident(type)) });
    t.equal(res.status, 200, type);
  };

  await pager('incident.triggered');
  const [opened] = await settled(o, 1);
  t.match(opened, { event_type: 'alert.fired', method: 'post', channel: '#alerts-api-service', status: 'sent', attempts: 1, thread_of: null });
  const [parent, ...others] = byText('#alerts-api-service', 'Checkout latency');
  t.ok(parent, 'posted to the pattern channel, named from the service');
  t.equal(others.length, 0, 'one post');
  t.equal(opened.ts, parent!.ts, 'the thread is kept with the ts the API answered');
  const call = chat.calls.find((c) => c.body?.text === parent!.text)!;
  t.equal(call.method, 'chat.postMessage');
  t.equal(call.headers.authorization, `Bearer ${BOT}`, 'the bot token as a bearer token');
  t.equal(call.headers['content-type'], 'application/json; charset=utf-8');
  t.match(sectionText(parent!), /Alert: Checkout latency[\s\S]*Severity\*\ncritical[\s\S]*Service\*\nAPI Service[\s\S]*Status\*\nFiring/, 'headline and fields');
  t.match(sectionText(parent!), /<https:\/\/acme\.pagerduty\.com\/incidents\/PCHAT01\|Open the alert>/, 'a link');

  await pager('incident.acknowledged');
  await pager('incident.unacknowledged');
  await pager('incident.resolved');
  const all = await settled(o, 7);
  t.same(all.map((m) => [m.event_type, m.method, m.status]), [
    ['alert.fired', 'post', 'sent'],
    ['alert.acknowledged', 'post', 'sent'], ['alert.acknowledged', 'update', 'sent'],
    ['alert.unacknowledged', 'post', 'sent'], ['alert.unacknowledged', 'update', 'sent'],
    ['alert.resolved', 'post', 'sent'], ['alert.resolved', 'update', 'sent'],
  ]);
  const replies = chat.replies(parent!);
  t.same(replies.map((r) => r.text.split(' · ')[0]), ['Acknowledged: Checkout latency', 'Unacknowledged, firing again: Checkout latency', 'Resolved: Checkout latency'], 'replies in the thread, in order');
  t.same(parent!.updates.map((u) => u.text.split(':')[0]), ['Acknowledged', 'Alert', 'Resolved'], 'the first post follows: acknowledged, firing again, resolved');
  const metrics = await (await fetch(`${vigil.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  t.ok(Number(/vigil_delivery_attempts_total\{channel="chat",outcome="sent"\} (\d+)/.exec(metrics)?.[1] ?? 0) >= 7, 'GET /metrics counts chat attempts');
  t.equal(chat.posts('#alerts-api-service').filter((m) => m.text.includes('Checkout latency')).length, 1, 'nothing posted outside the thread');
  t.match(parent!.updates.at(-1)!.text, /^Resolved: Checkout latency/, 'the first post now shows it resolved');
  t.match(parent!.updates.at(-1)!.blocks[1].fields.map((f: any) => f.text), ['*Severity*\ncritical', '*Service*\nAPI Service', '*Status*\nResolved']);
});

t.test('a re-fire inside the cooldown replies in the thread, pages nothing and reaches no outbound rule', async (t) => {
  const o = await connected({ alert_refire_cooldown_minutes: 10 });
  t.teardown(() => o.agent.close());
  const config = await o.create('outbound_configs', { name: 'all alerts', kind: 'webhook', url: `${receiver.url}/refire-${o.id}` });
  await o.create('outbound_rules', { name: 'fired', events: ['alert.fired', 'alert.resolved'], outbound_config_id: config.id });

  t.equal((await o.fire({ name: 'DiskFull', service: 'db' })).status, 200);
  await settled(o, 1);
  t.equal((await o.resolve({ name: 'DiskFull', service: 'db' })).status, 200);
  await settled(o, 3);
  vigil.clock.advance(3 * 60_000);
  t.equal((await o.fire({ name: 'DiskFull', service: 'db' })).status, 200);
  const all = await settled(o, 5);
  t.same(all.map((m) => [m.event_type, m.method]), [['alert.fired', 'post'], ['alert.resolved', 'post'], ['alert.resolved', 'update'], ['alert.refired', 'post'], ['alert.refired', 'update']]);

  let alert = await o.alert('DiskFull');
  t.equal(effects(alert, 'page').length, 1, 'paged once, for the first fire');
  // the effects say what happened (issue 35): the page went to the outbound config and was delivered; the chat post was sent
  await waitFor(async () => {
    alert = await o.alert('DiskFull');
    return alert.effects.find((e: any) => e.kind === 'page').deliveries.some((d: any) => d.status === 'delivered');
  }, 'the page delivered');
  const page = alert.effects.find((e: any) => e.kind === 'page');
  t.match(page.detail, { notified: true, outbound: [config.id], email: false });
  t.same(page.deliveries, [{ channel: 'outbound', to: 'all alerts', config_id: config.id, status: 'delivered', error: null }]);
  t.match(alert.effects.find((e: any) => e.kind === 'chat_post'), { detail: { queued: true }, deliveries: [{ channel: 'chat', status: 'sent', to: String }] });
  t.match(effects(alert, 'page_skipped'), [{ reason: 'refire_cooldown' }]);
  t.same((await o.deliveries()).map((d: any) => d.event_type), ['alert.resolved', 'alert.fired'], 'the quiet re-fire reached no outbound rule');

  const [parent] = byText('#alerts-db', 'DiskFull');
  t.ok(parent);
  t.equal(byText('#alerts-db', 'DiskFull').length, 1, 'one thread');
  t.same(chat.replies(parent!).map((r) => r.text.split(':')[0]), ['Resolved', 'Fired again inside the re-fire cooldown (nobody paged)']);
  t.match(parent!.updates.map((u) => u.text.split(':')[0]), ['Resolved', 'Alert'], 'the first post shows it firing again');

  // after the cooldown a fire pages again and opens a new thread
  vigil.clock.advance(30 * 60_000);
  t.equal((await o.resolve({ name: 'DiskFull', service: 'db' })).status, 200);
  vigil.clock.advance(30 * 60_000);
  t.equal((await o.fire({ name: 'DiskFull', service: 'db' })).status, 200);
  await settled(o, 8);
  t.equal(byText('#alerts-db', 'DiskFull').length, 2, 'a loud fire opens a new thread');
});

t.test('a missing pattern channel falls back to default_channel; with none the alert is not posted, nor its replies', async (t) => {
  const o = await connected();
  t.teardown(() => o.agent.close());
  t.equal((await o.fire({ name: 'QueueBacklog', service: 'payments' })).status, 200);
  const [fallback] = await settled(o, 1);
  t.match(fallback, { status: 'sent', channel: '#ops', last_error_code: 'channel_not_found' });
  t.match(fallback.last_error, /#alerts-payments does not exist; posted to the default_channel #ops/);
  t.equal(byText('#ops', 'QueueBacklog').length, 1, 'posted to #ops');
  t.ok(chat.calls.some((c) => c.body?.channel === '#alerts-payments' && c.answer.error === 'channel_not_found'), 'the pattern channel was tried first');

  t.equal((await o.api.put(`${CONFIG}/chat`, { default_channel: null })).status, 200);
  t.equal((await o.fire({ name: 'LagSpike', service: 'payments' })).status, 200);
  t.equal((await o.resolve({ name: 'LagSpike', service: 'payments' })).status, 200);
  const all = await settled(o, 4);
  t.match(all.slice(1).map((m) => [m.event_type, m.status, m.last_error_code]), [
    ['alert.fired', 'not_posted', 'channel_not_found'], ['alert.resolved', 'not_posted', 'no_thread'], ['alert.resolved', 'not_posted', 'no_thread'],
  ], 'recorded as not posted; the replies never go out unthreaded');
  t.equal(chat.messages.filter((m) => m.text.includes('LagSpike')).length, 0);
});

t.test('thread_per_alert off: every change is a message of its own', async (t) => {
  const o = await connected({}, { thread_per_alert: false, alert_channel_pattern: '#alerts-{service}-{environment}' });
  t.teardown(() => o.agent.close());
  // {environment} empty: the trailing - is dropped, so #alerts-db
  t.equal((await o.fire({ name: 'SlowQuery', service: 'db' })).status, 200);
  t.equal((await o.resolve({ name: 'SlowQuery', service: 'db' })).status, 200);
  const all = await settled(o, 2);
  t.same(all.map((m) => [m.event_type, m.channel, m.thread_of, m.status]), [['alert.fired', '#alerts-db', null, 'sent'], ['alert.resolved', '#alerts-db', null, 'sent']]);
  t.same(byText('#alerts-db', 'SlowQuery').map((m) => m.text.split(':')[0]), ['Alert', 'Resolved']);
});

t.test('not connected, or disconnected: nothing is posted', async (t) => {
  const o = await alertOrg(vigil);
  t.teardown(() => o.agent.close());
  const calls = chat.calls.length;
  t.equal((await o.fire({ name: 'Unconnected', service: 'db' })).status, 200);
  t.same(await messages(o), [], 'no message queued with the alert');
  t.equal((await o.api.put(`${CONFIG}/chat`, { workspace_id: 'T0CHAT', bot_token: BOT, default_channel: '#ops' })).status, 200);
  t.equal((await o.fire({ name: 'Connected', service: 'db' })).status, 200);
  t.equal((await settled(o, 1))[0].status, 'sent', 'connected: posted');
  t.equal((await o.api.put(`${CONFIG}/chat`, { workspace_id: null })).status, 200);
  t.equal((await o.fire({ name: 'Disconnected', service: 'db' })).status, 200);
  t.equal((await messages(o)).length, 1, 'disconnected: nothing more');
  t.equal(chat.messages.filter((m) => /Unconnected|Disconnected/.test(m.text)).length, 0);
  t.ok(chat.calls.length > calls);
});

t.test('a new card, an incident and a change notification are posted to their channels', async (t) => {
  const o = await connected({ auto_open_incidents: true, incident_severity_floor: 'high' });
  t.teardown(() => o.agent.close());
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token;
  const opened = await fetch(`${vigil.url}/webhooks/tickets/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'ci/1.0' }, body: JSON.stringify({ title: 'Checkout is slow', priority: 'high', service: 'checkout' }) });
  t.equal(opened.status, 201);
  const card = await opened.json();
  await o.create('change_notifications', { name: 'teams to chat', families: ['teams'], actions: ['create'], destination_kind: 'chat', chat_channel: '#changes' });
  await o.create('teams', { name: 'payments-oncall' });
  t.equal((await o.fire({ name: 'OrdersDown', service: 'db', severity: 'critical' })).status, 200);
  const all = await settled(o, 4);
  t.same(all.map((m) => [m.event_type, m.channel, m.status]).sort(), [
    ['alert.fired', '#alerts-db', 'sent'], ['card.created', '#ops', 'sent'], ['config.changed', '#changes', 'sent'], ['incident.opened', '#ops', 'sent'],
  ].sort());

  const [cardPost] = byText('#ops', card.key);
  t.ok(cardPost, 'the card is posted to default_channel');
  t.match(cardPost!.text, `New card ${card.key}: Checkout is slow`);
  t.match(sectionText(cardPost!), new RegExp(`<${card.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\|Open the card>`), 'with its link');
  t.equal(byText('#ops', 'Incident opened: OrdersDown').length, 1, 'the incident to default_channel');
  const [change] = chat.posts('#changes').filter((m) => m.text.includes('payments-oncall'));
  t.ok(change, 'the change notification in its channel');
  t.match(change!.text, /Configuration change: teams "payments-oncall" create by api_key/);
});

t.test('quiet hours hold posts until a release pass after they end', async (t) => {
  const o = await connected();
  t.teardown(() => o.agent.close());
  // 12:00 UTC now, or later if earlier tests moved the clock: quiet from this hour to two hours on
  const hour = vigil.clock.now().getUTCHours();
  const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  t.equal((await o.api.put(`${CONFIG}/notification_settings`, { quiet_hours: { start: hh(hour), end: hh(hour + 2), timezone: 'UTC' } })).status, 200);
  const ends = new Date(vigil.clock.now());
  ends.setUTCHours(hour + 2, 0, 0, 0);
  const calls = chat.calls.length;

  t.equal((await o.fire({ name: 'NightlyBatch', service: 'db' })).status, 200);
  t.equal((await o.resolve({ name: 'NightlyBatch', service: 'db' })).status, 200);
  const held = await messages(o);
  t.same(held.map((m) => [m.status, m.send_after]), [['held', ends.toISOString()], ['held', ends.toISOString()], ['held', ends.toISOString()]], 'held until they end');

  await runNoticePass(vigil.running.services);
  t.equal((await messages(o, { status: 'held' })).length, 3, 'a pass before the end releases nothing');
  vigil.clock.advance(ends.getTime() - vigil.clock.now().getTime() + 1000);
  await Promise.all([runNoticePass(vigil.running.services), runNoticePass(vigil.running.services)]);
  const all = await settled(o, 3);
  t.same(all.map((m) => [m.method, m.status, m.attempts]), [['post', 'sent', 1], ['post', 'sent', 1], ['update', 'sent', 1]], 'released once each, by two passes at once');
  const [parent] = byText('#alerts-db', 'NightlyBatch');
  t.ok(parent);
  t.equal(byText('#alerts-db', 'NightlyBatch').length, 1);
  t.same(chat.replies(parent!).map((r) => r.text.split(':')[0]), ['Resolved'], 'the reply waited for its thread');
  t.ok(chat.calls.length > calls);
  t.equal((await o.api.put(`${CONFIG}/notification_settings`, { quiet_hours: null })).status, 200);
});

t.test('transient failures are retried and post once; a permanent error fails at once; the token is never kept or shown', async (t) => {
  const o = await connected();
  t.teardown(() => o.agent.close());
  chat.script.push({ status: 500 }, { ratelimited: 0 });
  t.equal((await o.fire({ name: 'FlakyApi', service: 'db' })).status, 200);
  const [retried] = await settled(o, 1);
  t.match(retried, { status: 'sent', attempts: 3 });
  t.equal(byText('#alerts-db', 'FlakyApi').length, 1, 'posted exactly once');
  t.same(chat.calls.filter((c) => c.body?.text?.includes('FlakyApi')).map((c) => c.status), [500, 429, 200]);

  chat.script.push({ status: 503 }, { status: 503 }, { status: 503 });
  t.equal((await o.fire({ name: 'DownApi', service: 'db' })).status, 200);
  const [, exhausted] = await settled(o, 2);
  t.match(exhausted, { status: 'failed', attempts: 3, last_error_code: 'http_503' });
  t.match(exhausted.last_error, /gave up after 3 attempts/);

  // a token the workspace refuses: recorded, not retried; an API echoing the token in its error keeps nothing of it
  const wrong = 'xoxb-revoked-token-5b1e2d';
  t.equal((await o.api.put(`${CONFIG}/chat`, { bot_token: wrong })).status, 200);
  t.equal((await o.fire({ name: 'BadAuth', service: 'db' })).status, 200);
  const [, , refused] = await settled(o, 3);
  t.match(refused, { status: 'failed', attempts: 1, last_error_code: 'invalid_auth', last_error: 'the chat API answered invalid_auth' });
  t.equal(chat.calls.filter((c) => c.body?.text?.includes('BadAuth')).length, 1, 'tried once');
  t.equal((await o.api.put(`${CONFIG}/chat`, { bot_token: BOT })).status, 200);
  chat.script.push({ error: `bad token ${BOT}` });
  t.equal((await o.fire({ name: 'Echoed', service: 'db' })).status, 200);
  const [, , , echoed] = await settled(o, 4);
  t.match(echoed, { status: 'failed', last_error_code: 'unknown_error' });

  const listed = await o.agent.call('list_chat_messages', {});
  const rest = await o.api.get(`${CONFIG}/chat_messages?limit=200`);
  t.equal(rest.status, 200);
  t.equal(rest.body.data.length, 4, 'also on REST');
  const stored = await readStore(vigil.running.services).execute('select * from chat_messages where organization_id = ?', [o.id]);
  const threads = await readStore(vigil.running.services).execute('select * from chat_threads where organization_id = ?', [o.id]);
  const jobs = await readStore(vigil.running.services).execute(`select data::text, output::text from pgboss.job where name = 'chat-messages'`, []);
  for (const [what, value] of Object.entries({ listed, rest: rest.body, stored, threads, jobs })) {
    const text = JSON.stringify(value);
    t.notOk(text.includes(BOT) || text.includes(wrong), `no token in ${what}`);
  }
  t.ok(stored.length === 4 && jobs.length > 0, 'the rows and jobs checked exist');
});

t.test('a message whose job ended mid-call is rescued by the housekeeping pass: the interrupted call counts, the next posts', async (t) => {
  const o = await connected();
  t.teardown(() => o.agent.close());
  t.equal((await o.fire({ name: 'OrphanedPost', service: 'db' })).status, 200);
  const [sent] = await settled(o, 1);
  const before = byText('#alerts-db', 'OrphanedPost').length;
  // as if a later call had claimed it and its job then failed for good before recording the answer
  const stale = new Date(vigil.clock.now().getTime() - (STALE_MINUTES + 1) * 60_000);
  await readStore(vigil.running.services).execute(`update chat_messages set status = 'sending', job_id = ?, updated_at = ? where id = ?`, [randomUUID(), stale, sent.id]);
  await runHousekeeping(vigil.running.services);
  const [again] = await settled(o, 1);
  t.match(again, { id: sent.id, status: 'sent', attempts: 3 }, 'the interrupted call counted as an attempt, then one more');
  t.equal(byText('#alerts-db', 'OrphanedPost').length, before + 1, 'posted once more');
});
