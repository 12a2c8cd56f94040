/**
 * The chat channel against the fake chat Web API (test/helpers/fake-chat.ts): a page is a direct message from the
 * organization's chat app (conversations.open with the person's chat user id, then chat.postMessage to that DM) with
 * the same Acknowledge and Resolve buttons as alert posts; pressing Acknowledge in the DM comes back through the
 * existing chat interactivity endpoint and acknowledges the alert as the member (audited chat_user, transport chat).
 * An organization without a connected app, and the Web API's refusals, answer failed with a reason.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { chatChannel } from '../../../domain/paging/channels/chat.ts';
import { person } from '../../helpers/console.ts';
import { startFakeChat } from '../../helpers/fake-chat.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { alertOrg } from '../../helpers/outbound.ts';
import { pageMessage } from '../../helpers/page-message.ts';

const BOT = 'xoxb-chat-page-token-7a1f20';
const SECRET = 'chat-signing-secret-for-pages-0042';
const WORKSPACE = 'T0CHATPAGE';
const chat = await startFakeChat({ token: BOT, channels: ['#ops'] });
t.teardown(() => chat.close());
const vigil = await startVigil({ chat: { apiUrl: chat.url, responseOrigin: new URL(chat.url).origin, retryDelaysSeconds: [0.2] } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const to = (address: string) => ({ id: 'cm-1', type: 'chat' as const, address, name: 'chat' });

let n = 0;
async function connected() {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const put = await org.api.put(`${CONFIG}/chat`, { workspace_id: WORKSPACE, bot_token: BOT, default_channel: '#ops', signing_secret: SECRET });
  if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  const member = await person(vigil, { [org.id]: 'member' });
  const chatUser = `UPAGED${++n}`;
  chat.users.set(chatUser, member.email);
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${org.id}`)).body.webhook_token as string;
  return { org, member, chatUser, token };
}

/** A signed button press from the chat workspace, as the interactivity endpoint receives it. */
async function press(token: string, user: string, action: { action_id: string; value: string }) {
  const payload = {
    type: 'block_actions', user: { id: user, team_id: WORKSPACE }, team: { id: WORKSPACE }, api_app_id: 'A0VIGIL', trigger_id: `9.9.${++n}`,
    response_url: `${chat.url}/response/page-${n}`, container: { type: 'message', channel_id: 'D000001' },
    actions: [{ type: 'button', ...action, block_id: 'vigil_page', action_ts: '1772366401.000001' }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = Math.floor(vigil.clock.now().getTime() / 1000);
  const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const res = await fetch(`${vigil.url}/webhooks/chat/${token}`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature },
  });
  return { status: res.status, body: await res.json() as any };
}

t.test('a page is a DM with the alert\'s buttons, and pressing Acknowledge acknowledges it through the chat endpoint', async (t) => {
  const { org, member, chatUser, token } = await connected();
  await org.fire({ name: 'ChatDmPage', service: 'db' });
  const alert = await org.alert('ChatDmPage');
  const message = pageMessage(org.id, { userId: member.id, email: member.email, alerts: [{ id: alert.id, title: 'ChatDmPage <db>', severity: 'critical', incidentId: null, url: `${vigil.url}/console/alerts/${alert.id}` }] });
  const sent = await chatChannel.send(ctx(), to(chatUser), message);
  const open = chat.calls.findLast((c) => c.method === 'conversations.open')!;
  t.same(open.body, { users: chatUser }, 'conversations.open with the person\'s chat user id');
  t.equal(open.headers.authorization, `Bearer ${BOT}`, 'with the bot token');
  const dm = chat.dms.get(chatUser)!;
  const post = chat.messages.findLast((m) => m.channel === dm)!;
  t.ok(post, 'posted to the DM channel');
  t.same(sent, { status: 'sent', providerId: post.ts }, 'the providerId is the post\'s ts');
  t.equal(post.text, message.subject);
  const buttons = post.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => [e.action_id, e.value, e.text.text]));
  t.same(buttons, [['vigil_ack_alert', alert.id, 'Acknowledge'], ['vigil_resolve_alert', alert.id, 'Resolve']], 'the existing Acknowledge and Resolve buttons');
  t.ok(post.blocks.some((b) => b.text?.text?.includes('ChatDmPage &lt;db&gt;')), 'the title is escaped as mrkdwn');

  const pressed = await press(token, chatUser, { action_id: 'vigil_ack_alert', value: alert.id });
  t.equal(pressed.status, 200);
  t.match(pressed.body, { response_type: 'ephemeral', text: /acknowledged/ });
  t.equal((await org.api.get(`${CONFIG}/alerts/${alert.id}`)).body.data.status, 'acknowledged', 'REST shows it acknowledged');
  const entry = (await org.api.get(`${CONFIG}/audit_log`)).body.data.find((e: any) => e.action === 'action:acknowledge_alert' && e.row_id === alert.id);
  t.match(entry, { actor: { kind: 'chat_user', id: member.id }, transport: 'chat' }, 'the member acknowledged, via chat');
});

t.test('an alert in an incident gets the incident\'s buttons, once per incident', async (t) => {
  const { org, chatUser } = await connected();
  const incident = '8e0c1f7a-1d2b-4c3d-9e4f-5a6b7c8d9e0f';
  const alerts = [1, 2].map((i) => ({ id: `a${i}`, title: `Part ${i}`, severity: 'warning', incidentId: incident, url: null }));
  t.equal((await chatChannel.send(ctx(), to(chatUser), pageMessage(org.id, { alerts }))).status, 'sent');
  const post = chat.messages.at(-1)!;
  const buttons = post.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => [e.action_id, e.value]));
  t.same(buttons, [['vigil_ack_incident', incident], ['vigil_resolve_incident', incident]]);
});

t.test('refusals answer failed with a reason', async (t) => {
  const bare = await vigil.organization();
  t.match(await chatChannel.send(ctx(), to('UANY'), pageMessage(bare.id)), { status: 'failed', reason: /^chat_not_connected/ }, 'no chat app connected');
  const { org, chatUser } = await connected();
  chat.script.push({ error: 'user_not_found' });
  t.same(await chatChannel.send(ctx(), to(chatUser), pageMessage(org.id)), { status: 'failed', reason: 'conversations.open: the chat API answered user_not_found' });
  chat.script.push({ status: 500 });
  t.same(await chatChannel.send(ctx(), to(chatUser), pageMessage(org.id)), { status: 'failed', reason: 'conversations.open: the chat API answered HTTP 500' });
  t.equal((await org.api.put(`${CONFIG}/chat`, { bot_token: 'xoxb-revoked-token-000000' })).status, 200);
  const revoked = await chatChannel.send(ctx(), to(chatUser), pageMessage(org.id));
  t.same(revoked, { status: 'failed', reason: 'conversations.open: the chat API answered invalid_auth' }, 'a bot token the chat API refuses');
  t.notOk(JSON.stringify(revoked).includes('xoxb-'), 'no token in the reason');
});
