/**
 * Twilio's ways back, posted as Twilio posts them (test/helpers/twilio-server.ts, signed X-Twilio-Signature): a
 * status callback recorded on the alert's timeline; a reply with the page's code acknowledging the alert as the paged
 * person (REST shows it; audited credential kind page, transport sms); "press 1" and "press 2" on a call; and the
 * refusals: a missing or wrong signature (403), a used code, an unknown code, a member who left: nothing changed.
 */
import t from 'tap';
import { smsChannel } from '../../../domain/paging/channels/sms.ts';
import { voiceChannel } from '../../../domain/paging/channels/voice.ts';
import { person } from '../../helpers/console.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { alertOrg, effects } from '../../helpers/outbound.ts';
import { pageMessage } from '../../helpers/page-message.ts';
import { startTwilio, twilioSid, twilioToken } from '../../helpers/twilio-server.ts';

const OP_SID = twilioSid('AC');
const OP_TOKEN = twilioToken();
const OP_FROM = '+15005550006';
let phones = 0;

const twilio = await startTwilio({ accounts: [[OP_SID, OP_TOKEN]] });
t.teardown(() => twilio.close());
const vigil = await startVigil({ twilio: { apiUrl: twilio.url, accountSid: OP_SID, authToken: OP_TOKEN, from: OP_FROM } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const SMS_URL = `${vigil.url}/paging/twilio/sms`;

async function paged(name: string) {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const member = await person(vigil, { [org.id]: 'member' });
  await org.fire({ name, service: 'db' });
  const alert = await org.alert(name);
  const phone = `+4420718${String(38000 + ++phones)}`;
  const message = pageMessage(org.id, { userId: member.id, email: member.email, alerts: [{ id: alert.id, title: name, severity: 'critical', incidentId: null, url: null }] });
  return { org, member, alert, message, phone, to: (type: 'sms' | 'voice') => ({ id: 'cm', type, address: phone, name: 'phone' }) };
}

const statusOf = async (org: { api: any }, id: string) => (await org.api.get(`${CONFIG}/alerts/${id}`)).body.data.status as string;
const audit = async (org: { api: any }, id: string, action = 'action:acknowledge_alert') => (await org.api.get(`${CONFIG}/audit_log`)).body.data.filter((e: any) => e.row_id === id && e.action === action);

t.test('a status callback is recorded on the alert\'s timeline', async (t) => {
  const { org, alert, message, to } = await paged('StatusCallback');
  const sent = await smsChannel.send(ctx(), to('sms'), message);
  const answered = await twilio.status(sent.providerId!, 'delivered');
  t.equal(answered.status, 200, answered.text);
  const call = await voiceChannel.send(ctx(), to('voice'), message);
  t.equal((await twilio.status(call.providerId!, 'no-answer')).status, 200);
  const got = await org.alert('StatusCallback');
  t.match(effects(got, 'notified').filter((d: any) => d.status === 'delivery'), [
    { channel: 'sms', delivery: 'delivered', provider_id: sent.providerId, bundle_id: message.bundleId },
    { channel: 'voice', delivery: 'no-answer', provider_id: call.providerId },
  ]);
  const forged = await twilio.post(`${vigil.url}/paging/twilio/status`, { AccountSid: OP_SID, MessageSid: sent.providerId!, MessageStatus: 'failed' }, { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' });
  t.equal(forged.status, 403, 'a wrongly signed callback is 403');
  t.equal(effects(await org.alert('StatusCallback'), 'notified').filter((d: any) => d.delivery === 'failed').length, 0, 'and recorded nothing');
  t.equal(await statusOf(org, alert.id), 'firing');
});

t.test('a reply with the code acknowledges as the paged person; the code does not act twice', async (t) => {
  const { org, member, alert, message, phone, to } = await paged('SmsReply');
  await smsChannel.send(ctx(), to('sms'), message);
  const code = /Reply (\d{4})/.exec(twilio.requests.at(-1)!.form.Body!)![1]!;
  const reply = await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: ` ${code} ` });
  t.equal(reply.status, 200);
  t.equal(reply.text, '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Vigil: Acknowledged 1 alert(s).</Message></Response>');
  t.equal(await statusOf(org, alert.id), 'acknowledged', 'REST shows it acknowledged');
  const entries = await audit(org, alert.id);
  t.equal(entries.length, 1);
  t.match(entries[0], { actor: { kind: 'page', id: member.id }, transport: 'sms' }, 'audited as the person, credential kind page, transport sms');

  const again = await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: code });
  t.match(again.text, /answered already; nothing was changed/, 'a replayed code');
  t.equal((await audit(org, alert.id)).length, 1, 'acts no second time');
});

t.test('ACK answers the latest page; RES and the code resolves', async (t) => {
  const { org, alert, message, phone, to } = await paged('SmsAck');
  await smsChannel.send(ctx(), to('sms'), message);
  const ack = await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: 'ack' });
  t.match(ack.text, /Acknowledged 1 alert/);
  t.equal(await statusOf(org, alert.id), 'acknowledged');
  await smsChannel.send(ctx(), to('sms'), { ...message, bundleId: crypto.randomUUID() });
  const code = /Reply (\d{4})/.exec(twilio.requests.at(-1)!.form.Body!)![1]!;
  const res = await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: `RES ${code}` });
  t.match(res.text, /Resolved 1 alert/);
  t.equal(await statusOf(org, alert.id), 'resolved');
});

t.test('replies that change nothing: unknown code, unknown number, no signature, wrong signature, a member who left', async (t) => {
  const { org, member, alert, message, phone, to } = await paged('SmsRefused');
  await smsChannel.send(ctx(), to('sms'), message);
  const code = /Reply (\d{4})/.exec(twilio.requests.at(-1)!.form.Body!)![1]!;
  const other = code === '9999' ? '9998' : '9999';
  t.match((await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: other })).text, new RegExp(`no page to this number has the code ${other}; nothing was changed`));
  t.match((await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: '+15551230000', to: OP_FROM, body: code })).text, /nothing was changed/, 'another number');
  t.match((await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: 'hello' })).text, /reply with the code/);
  const form = { AccountSid: OP_SID, From: phone, To: OP_FROM, Body: code };
  t.equal((await twilio.post(SMS_URL, form, { signature: null })).status, 403, 'no signature');
  t.equal((await twilio.post(SMS_URL, form, { token: twilioToken() })).status, 403, 'signed with another token');
  t.equal((await twilio.post(SMS_URL, { ...form, AccountSid: twilioSid('AC') }, { token: OP_TOKEN })).status, 403, 'an account Vigil does not hold');
  t.equal(await statusOf(org, alert.id), 'firing');

  t.equal((await vigil.operator.del(`/api/admin/v1/organizations/${org.id}/members/${member.id}`)).status < 300, true);
  t.match((await twilio.reply({ url: SMS_URL, accountSid: OP_SID, from: phone, to: OP_FROM, body: code })).text, /no longer a member/);
  t.equal(await statusOf(org, alert.id), 'firing', 'nothing changed');
  t.same(await audit(org, alert.id), []);
});

t.test('on a call, 1 acknowledges and 2 resolves; other keys and forged presses change nothing', async (t) => {
  const { org, member, alert, message, to } = await paged('VoicePress');
  const call = await voiceChannel.send(ctx(), to('voice'), message);
  t.equal((await twilio.press(call.providerId!, '1', { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' })).status, 403, 'a forged press');
  t.match((await twilio.press(call.providerId!, '7')).text, /<Say>That key does nothing\. Nothing was changed/);
  t.equal(await statusOf(org, alert.id), 'firing');
  const pressed = await twilio.press(call.providerId!, '1');
  t.equal(pressed.text, '<?xml version="1.0" encoding="UTF-8"?><Response><Say>The alert is acknowledged. Goodbye.</Say></Response>');
  t.equal(await statusOf(org, alert.id), 'acknowledged');
  t.match((await audit(org, alert.id))[0], { actor: { kind: 'page', id: member.id }, transport: 'voice' });
  t.match((await twilio.press(call.providerId!, '2')).text, /answered already/, 'one call acts once');

  const second = await voiceChannel.send(ctx(), to('voice'), { ...message, bundleId: crypto.randomUUID() });
  t.match((await twilio.press(second.providerId!, '2')).text, /The alert is resolved/);
  t.equal(await statusOf(org, alert.id), 'resolved');
  t.match((await audit(org, alert.id, 'action:resolve_alert'))[0], { transport: 'voice' });
});
