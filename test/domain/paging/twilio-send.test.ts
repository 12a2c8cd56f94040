/**
 * The sms and voice channels against a local Twilio API (test/helpers/twilio-server.ts): the X-Twilio-Signature
 * scheme against Twilio's documented example; a verification code texted (and called) through Twilio and proven with
 * verify_contact_method; the organization's account before the operator's, and the auth token sent only to the
 * configured API base; a page's text and call as documented (To, From or MessagingServiceSid, Body, StatusCallback;
 * Twiml with a Gather, StatusCallbackEvent); Twilio's refusals (401, 400, 500, a hang) answered `failed` in words
 * with no token and no number.
 */
import t from 'tap';
import { signedByTwilio } from '../../../domain/paging/channels/twilio-client.ts';
import { smsChannel } from '../../../domain/paging/channels/sms.ts';
import { voiceChannel } from '../../../domain/paging/channels/voice.ts';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { person } from '../../helpers/console.ts';
import { pageMessage } from '../../helpers/page-message.ts';
import { startTwilio, twilioSid, twilioSignature, twilioToken } from '../../helpers/twilio-server.ts';

const ME = '/api/v1/me';
const OP_SID = twilioSid('AC');
const OP_TOKEN = twilioToken();
const OP_FROM = '+15005550006';
const ORG_SID = twilioSid('AC');
const ORG_TOKEN = twilioToken();
const ORG_FROM = '+14155552671';
const PHONE = '+442071838750';

const twilio = await startTwilio({ accounts: [[OP_SID, OP_TOKEN], [ORG_SID, ORG_TOKEN]] });
t.teardown(() => twilio.close());
const vigil = await startVigil({ twilio: { apiUrl: twilio.url, accountSid: OP_SID, authToken: OP_TOKEN, from: OP_FROM } });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ctx = () => ({ services, now: vigil.clock.now() });
const to = (type: 'sms' | 'voice', address = PHONE) => ({ id: 'cm-1', type, address, name: 'phone' });

t.test('the signature is Twilio\'s documented one (HMAC-SHA1 of the URL and sorted params, base64, keyed by the auth token)', async (t) => {
  // twilio.com/docs/usage/webhooks/webhooks-security: this URL, these params, auth token 12345
  const url = 'https://example.com/myapp.php?foo=1&bar=2';
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675310', Digits: '1234', From: '+14158675310', To: '+18005551212' };
  t.equal(twilioSignature('12345', url, params), 'L/OH5YylLD5NRKLltdqwSvS0BnU=', 'the test server signs as documented');
  t.ok(signedByTwilio(['12345'], 'L/OH5YylLD5NRKLltdqwSvS0BnU=', url, params), 'Vigil accepts the documented signature');
  // the twilio-ruby docs' earlier example, same scheme
  const older = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
  t.ok(signedByTwilio(['12345'], '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', 'https://mycompany.com/myapp.php?foo=1&bar=2', older));
  t.notOk(signedByTwilio(['12346'], 'L/OH5YylLD5NRKLltdqwSvS0BnU=', url, params), 'another token');
  t.notOk(signedByTwilio(['12345'], 'L/OH5YylLD5NRKLltdqwSvS0BnU=', url, { ...params, Digits: '2' }), 'another param');
  t.notOk(signedByTwilio(['12345'], 'L/OH5YylLD5NRKLltdqwSvS0BnU=', 'https://example.com/myapp.php?foo=1&bar=3', params), 'another URL');
  t.notOk(signedByTwilio(['12345'], undefined, url, params), 'no signature');
  t.notOk(signedByTwilio([], 'L/OH5YylLD5NRKLltdqwSvS0BnU=', url, params), 'no token');
});

t.test('an sms code is texted through the operator\'s Twilio account and proves the number', async (t) => {
  const org = await vigil.organization('business');
  const me = await person(vigil, { [org.id]: 'member' });
  const token = (await vigil.operator.post(`/api/admin/v1/users/${me.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  const api = client(vigil.url, token);
  const phone = (await api.post(`${ME}/contact_methods`, { type: 'sms', name: 'phone', address: PHONE })).body.data;
  const before = twilio.requests.length;
  const sent = await api.post(`${ME}/contact_methods/${phone.id}/send_verification`, {});
  t.equal(sent.status, 200, JSON.stringify(sent.body));
  const request = twilio.requests.at(-1)!;
  t.equal(twilio.requests.length, before + 1, 'one request to Twilio');
  t.match(request, { resource: 'Messages', accountSid: OP_SID, authToken: OP_TOKEN, status: 201 });
  t.same(Object.keys(request.form).sort(), ['Body', 'From', 'To']);
  t.match(request.form, { To: PHONE, From: OP_FROM, Body: /^Your Vigil verification code for phone is \d{6}\. It expires in \d+ minutes\.$/ });
  const code = /(\d{6})/.exec(request.form.Body!)![1]!;
  const wrong = await api.post(`${ME}/contact_methods/${phone.id}/verify`, { code: code === '000000' ? '111111' : '000000' });
  t.equal(wrong.status, 422, 'a wrong code is refused');
  const ok = await api.post(`${ME}/contact_methods/${phone.id}/verify`, { code });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.equal((await api.get(`${ME}/contact_methods/${phone.id}`)).body.data.verified, true, 'the method is verified');

  const voice = (await api.post(`${ME}/contact_methods`, { type: 'voice', name: 'desk', address: '+442071838751' })).body.data;
  t.equal((await api.post(`${ME}/contact_methods/${voice.id}/send_verification`, {})).status, 200);
  const call = twilio.requests.at(-1)!;
  t.match(call, { resource: 'Calls', accountSid: OP_SID, form: { To: '+442071838751', From: OP_FROM, Twiml: /<Say>Your Vigil verification code is (\d, ){5}\d\. Again: (\d, ){5}\d\./ } });
});

t.test('the organization\'s own account comes first; its token goes only to the configured Twilio API', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const saved = await api.put(`${CONFIG}/paging_providers`, { twilio_account_sid: ORG_SID, twilio_auth_token: ORG_TOKEN, twilio_from: ORG_FROM });
  t.equal(saved.status, 200, JSON.stringify(saved.body));
  t.notOk(JSON.stringify(saved.body).includes(ORG_TOKEN), 'the token is not answered');
  const sent = await smsChannel.send(ctx(), to('sms'), pageMessage(org.id));
  t.equal(sent.status, 'sent');
  t.match(twilio.requests.at(-1), { accountSid: ORG_SID, authToken: ORG_TOKEN, form: { From: ORG_FROM } }, 'the organization\'s account and number');

  const other = await vigil.organization();
  await smsChannel.send(ctx(), to('sms'), pageMessage(other.id));
  t.match(twilio.requests.at(-1), { accountSid: OP_SID, authToken: OP_TOKEN, form: { From: OP_FROM } }, 'an organization without one uses the operator\'s');

  // the API base is the deployment's; nothing a client saves can point the token elsewhere
  const elsewhere = { ...services, config: { ...services.config, twilio: { apiUrl: 'https://10.0.0.9', accountSid: OP_SID, authToken: OP_TOKEN, from: OP_FROM } } };
  const count = twilio.requests.length;
  t.same(await smsChannel.send({ services: elsewhere, now: vigil.clock.now() }, to('sms'), pageMessage(org.id)), { status: 'failed', reason: 'Twilio could not be reached' });
  t.equal(twilio.requests.length, count, 'no request reached the local Twilio');

  const none = { ...services, config: { ...services.config, twilio: { apiUrl: twilio.url, accountSid: null, authToken: null, from: null } } };
  t.match(await voiceChannel.send({ services: none, now: vigil.clock.now() }, to('voice'), pageMessage(other.id)), { status: 'failed', reason: /^twilio_not_configured/ });
});

t.test('a page by text and by call: the documented requests', async (t) => {
  const org = await vigil.organization();
  const member = await person(vigil, { [org.id]: 'member' });
  const message = pageMessage(org.id, { userId: member.id, alerts: [
    { id: crypto.randomUUID(), title: 'DiskFull on db-1', severity: 'critical', incidentId: null, url: null },
    { id: crypto.randomUUID(), title: 'HighLatency on api', severity: 'warning', incidentId: null, url: null },
  ] });
  const sms = await smsChannel.send(ctx(), to('sms'), message);
  const text = twilio.requests.at(-1)!;
  t.same(sms, { status: 'sent', providerId: text.sid }, 'the providerId is the message SID');
  t.match(text.sid, /^SM[0-9a-f]{32}$/);
  t.same(Object.keys(text.form).sort(), ['Body', 'From', 'StatusCallback', 'To']);
  t.match(text.form, { To: PHONE, From: OP_FROM, StatusCallback: `${vigil.url}/paging/twilio/status` });
  t.match(text.form.Body, /^Vigil: 2 alerts: DiskFull on db-1; HighLatency on api\. Reply \d{4} to acknowledge\.$/, 'short: the titles and the reply code');

  const call = await voiceChannel.send(ctx(), to('voice'), message);
  const placed = twilio.requests.at(-1)!;
  t.same(call, { status: 'sent', providerId: placed.sid });
  t.match(placed.sid, /^CA[0-9a-f]{32}$/);
  t.same(placed.all.StatusCallbackEvent, ['initiated', 'ringing', 'answered', 'completed']);
  t.match(placed.form, { To: PHONE, From: OP_FROM, StatusCallback: `${vigil.url}/paging/twilio/status` });
  t.match(placed.form.Twiml, new RegExp(`^<\\?xml version="1.0" encoding="UTF-8"\\?><Response><Gather numDigits="1" action="${vigil.url}/paging/twilio/voice/vtw_[A-Za-z0-9_-]{32}" method="POST" timeout="10"><Say>This is Vigil\\. 2 alerts\\. critical alert: DiskFull on db-1\\. warning alert: HighLatency on api\\. Press 1 to acknowledge, or 2 to resolve\\.</Say></Gather><Say>No key was pressed\\. Goodbye\\.</Say></Response>$`));

  // a Messaging Service sends texts but cannot place calls
  const api = await org.key(['api:admin']);
  t.equal((await api.put(`${CONFIG}/paging_providers`, { twilio_from: `MG${'a'.repeat(32)}` })).status, 200);
  await smsChannel.send(ctx(), to('sms'), message);
  t.match(twilio.requests.at(-1)!.form, { MessagingServiceSid: `MG${'a'.repeat(32)}` });
  t.notOk('From' in twilio.requests.at(-1)!.form);
  t.match(await voiceChannel.send(ctx(), to('voice'), message), { status: 'failed', reason: /Messaging Service .* cannot place calls/ });
});

t.test('Twilio\'s refusals answer failed in words, with no token and no number', async (t) => {
  const org = await vigil.organization();
  const message = pageMessage(org.id);
  twilio.invalidNumbers.add('+15005550001');
  const bad = await smsChannel.send(ctx(), to('sms', '+15005550001'), message);
  t.same(bad, { status: 'failed', reason: 'Twilio answered 400 (Twilio error 21211: The \'To\' number (removed) is not a valid phone number.)' }, 'Twilio\'s code and words, the number taken out');

  twilio.script.push(500);
  t.same(await voiceChannel.send(ctx(), to('voice'), message), { status: 'failed', reason: 'Twilio answered 500 (Twilio error 20500: Internal Server Error)' });

  const wrong = { ...services, config: { ...services.config, twilio: { apiUrl: twilio.url, accountSid: OP_SID, authToken: twilioToken(), from: OP_FROM } } };
  const refused = await smsChannel.send({ services: wrong, now: vigil.clock.now() }, to('sms'), message);
  t.same(refused, { status: 'failed', reason: 'Twilio answered 401 (Twilio error 20003: Authenticate)' });
  t.notOk(JSON.stringify(refused).includes(wrong.config.twilio.authToken), 'no token in the reason');

  // a verification Twilio refuses is a 422 naming the address, and no code is kept
  const sender = await person(vigil, { [org.id]: 'member' });
  const token = (await vigil.operator.post(`/api/admin/v1/users/${sender.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  const api = client(vigil.url, token);
  const phone = (await api.post(`${ME}/contact_methods`, { type: 'sms', name: 'bad', address: '+15005550001' })).body.data;
  const answer = await api.post(`${ME}/contact_methods/${phone.id}/send_verification`, {});
  t.equal(answer.status, 422);
  t.match(answer.body, { error: 'validation_failed', errors: [{ field: 'address', message: /Twilio answered 400/ }] });
  t.notOk(JSON.stringify(answer.body).includes(OP_TOKEN));
});

t.test('without any Twilio account, codes by sms and voice are refused as before', async (t) => {
  const bare = await startVigil({});
  t.teardown(() => bare.close());
  const org = await bare.organization();
  const member = await person(bare, { [org.id]: 'member' });
  const token = (await bare.operator.post(`/api/admin/v1/users/${member.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  const api = client(bare.url, token);
  const phone = (await api.post(`${ME}/contact_methods`, { type: 'sms', name: 'phone', address: PHONE })).body.data;
  const answer = await api.post(`${ME}/contact_methods/${phone.id}/send_verification`, {});
  t.equal(answer.status, 422);
  t.match(answer.body.errors[0].message, /no SMS provider configured/);
});
