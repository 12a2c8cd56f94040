/** chat: defaults, channel placeholders, secrets never answered, connecting needs a bot token, the org admin role. */
import t from 'tap';
import changeNotifications from '../../resources/change_notifications.ts';
import chat from '../../resources/chat.ts';
import outboundConfigs from '../../resources/outbound_configs.ts';
import outboundRules from '../../resources/outbound_rules.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [outboundConfigs, outboundRules, changeNotifications, chat] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/chat`;
const BOT = 'bot-secret-token-0001';
const SIGNING = 'chat-secret-signing-0001';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();
/** whether a secret value, or a `bot_token` / `signing_secret` member, appears anywhere in an answer's data */
const leaks = (answer: unknown) => /-secret-/.test(JSON.stringify(answer)) || /"(bot_token|signing_secret)":/.test(JSON.stringify((answer as { data?: unknown })?.data ?? null));

t.test('defaults: not connected', async (t) => {
  const api = await (await vigil.organization()).key();
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, {
    workspace_id: null, default_channel: null, alert_channel_pattern: '#alerts-{service}', incident_channel_prefix: 'inc-',
    thread_per_alert: true, bot_token_set: false, signing_secret_set: false, updated_at: null,
  });
});

t.test('alert_channel_pattern: {service}, {severity} and {environment} only', async (t) => {
  const api = await (await vigil.organization()).key();
  const all = await api.put(PATH, { alert_channel_pattern: '#{environment}-alerts-{service}_{severity}' });
  t.equal(all.status, 200);
  t.equal(all.body.data.alert_channel_pattern, '#{environment}-alerts-{service}_{severity}');
  t.equal((await api.put(PATH, { alert_channel_pattern: '#alerts' })).status, 200, 'a fixed channel needs no placeholder');
  const unknown = await api.put(PATH, { alert_channel_pattern: '#alerts-{team}-{service}-{region}' });
  t.equal(unknown.status, 422);
  t.same(fieldsOf(unknown), ['alert_channel_pattern']);
  t.match(unknown.body.errors[0].message, /\{team\}, \{region\}/, 'the unknown placeholders are named');
  for (const pattern of ['alerts-{service}', '#alerts-{Service}', '#alerts-{service', '#alerts {service}', '#', `#${'a'.repeat(80)}`]) {
    const refused = await api.put(PATH, { alert_channel_pattern: pattern });
    t.equal(refused.status, 422, `${pattern} is refused`);
    t.same(fieldsOf(refused), ['alert_channel_pattern']);
  }
  t.equal((await api.get(PATH)).body.data.alert_channel_pattern, '#alerts');
  t.same(fieldsOf(await api.put(PATH, { incident_channel_prefix: 'x'.repeat(21) })), ['incident_channel_prefix']);
  t.same(fieldsOf(await api.put(PATH, { incident_channel_prefix: 'INC-' })), ['incident_channel_prefix']);
  t.same(fieldsOf(await api.put(PATH, { default_channel: 'ops' })), ['default_channel']);
  t.equal((await api.put(PATH, { incident_channel_prefix: 'incident_', default_channel: '#ops' })).status, 200);
});

t.test('connecting needs a bot token; the secrets are never answered, only marked in the audit log', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const tokenless = await api.put(PATH, { workspace_id: 'T0123ABCD' });
  t.equal(tokenless.status, 422, 'a workspace without a bot token is refused');
  t.same(fieldsOf(tokenless), ['bot_token']);
  const connected = await api.put(PATH, { workspace_id: 'T0123ABCD', bot_token: BOT, signing_secret: SIGNING });
  t.equal(connected.status, 200);
  t.same([connected.body.data.bot_token_set, connected.body.data.signing_secret_set], [true, true]);
  t.notOk(leaks(connected.body), 'not in the update answer');
  t.notOk(leaks((await api.get(PATH)).body), 'not in a read');
  const stale = await api.put(PATH, { bot_token: 'bot-secret-token-0002' }, { 'if-match': '"stale"' });
  t.equal(stale.status, 412);
  t.notOk(leaks(stale.body), 'not in the 412 data');
  const short = await api.put(PATH, { signing_secret: 'x-secret-' });
  t.same(fieldsOf(short), ['signing_secret']);
  t.notOk(leaks(short.body), 'not in a refusal');

  t.same(fieldsOf(await api.put(PATH, { bot_token: null })), ['bot_token'], 'the token cannot be removed while connected');
  vigil.clock.advance(1000);
  t.equal((await api.put(PATH, { thread_per_alert: false })).body.data.bot_token_set, true, 'an omitted token is kept');
  const rotated = await api.put(PATH, { bot_token: 'bot-secret-token-0003' });
  t.equal(rotated.status, 200);
  const disconnected = await api.put(PATH, { workspace_id: null, bot_token: null, signing_secret: null });
  t.same([disconnected.body.data.workspace_id, disconnected.body.data.bot_token_set, disconnected.body.data.signing_secret_set], [null, false, false]);

  const admin = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => admin.close());
  const viaMcp = await admin.call('update_chat', { workspace_id: 'T0123ABCD', bot_token: BOT });
  t.equal(viaMcp.isError, false);
  t.equal(viaMcp.body.data.bot_token_set, true);
  t.notOk(leaks(viaMcp.body), 'not in an agent-tool answer');
  t.notOk(leaks((await admin.call('get_chat')).body));

  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'chat');
  t.notOk(/-secret-/.test(JSON.stringify(audit)), 'no audit entry holds a secret');
  t.same(audit.map((e: { changes: Record<string, unknown> }) => [e.changes.bot_token, e.changes.signing_secret]), [
    ['(set)', undefined],
    ['(cleared)', '(cleared)'],
    ['(changed)', undefined],
    [undefined, undefined],
    ['(set)', '(set)'],
  ]);
});

t.test('changing needs the org admin role', async (t) => {
  const org = await vigil.organization();
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => member.close());
  t.equal((await member.call('get_chat')).isError, false, 'a member reads');
  const denied = await member.call('update_chat', { thread_per_alert: false });
  t.equal(denied.isError, true);
  t.equal(denied.body.error, 'forbidden');
});
