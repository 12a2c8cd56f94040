/**
 * Paging end to end, from the engine, through the surfaces and the local providers (test/helpers/twilio-server.ts,
 * ntfy-server.ts, pushover-server.ts, smtp.ts), one started service:
 * - an Alertmanager alert arrives by webhook, routes to a team whose escalation policy's first step targets a schedule;
 *   the person on call has sms, voice, ntfy and Pushover methods (sms and voice verified with the codes Twilio carried)
 *   and notification rules; the engine pages them in each provider's own request format (Twilio's Basic auth and form,
 *   ntfy's JSON publish, a Pushover emergency with its callback), a call when the voice rule's delay has passed;
 *   Twilio's signed status callback lands on the alert's timeline; the person's SMS reply (signed inbound webhook)
 *   acknowledges as them, and the escalation stops: the second step never starts, nothing more is sent;
 * - no usable channel: a person whose only method is unverified, and one whose only method's provider is not set up
 *   (no Pushover application for that organization), are each paged at their account email, and the escalation and
 *   the timeline say why (`fallback: unverified`, `not_configured`); no provider is called for them.
 */
import t, { type Test } from 'tap';
import { runEscalations } from '../../../domain/paging/escalations.ts';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs, waitFor } from '../../helpers/jobs.ts';
import { startNtfy } from '../../helpers/ntfy-server.ts';
import { alertOrg, effects, type AlertOrg } from '../../helpers/outbound.ts';
import { pushoverKey, startPushover } from '../../helpers/pushover-server.ts';
import { startSmtp } from '../../helpers/smtp.ts';
import { startTwilio, twilioSid, twilioToken } from '../../helpers/twilio-server.ts';

const ADMIN = '/api/admin/v1';
const ME = '/api/v1/me';
const MINUTE = 60_000;
const OP_SID = twilioSid('AC');
const OP_TOKEN = twilioToken();
const OP_FROM = '+15005550006';
const APP = pushoverKey();
const ANN_PUSHOVER = pushoverKey();
const DAN_PUSHOVER = pushoverKey();

const twilio = await startTwilio({ accounts: [[OP_SID, OP_TOKEN]] });
const ntfy = await startNtfy();
const pushover = await startPushover({ appTokens: [APP], users: [ANN_PUSHOVER, DAN_PUSHOVER] });
const smtp = await startSmtp();
t.teardown(() => Promise.all([twilio.close(), ntfy.close(), pushover.close(), smtp.close()]));
// Twilio is the operator's; Pushover has no operator application: an organization saves its own
const vigil = await startVigil({
  twilio: { apiUrl: twilio.url, accountSid: OP_SID, authToken: OP_TOKEN, from: OP_FROM },
  pushover: { apiUrl: pushover.url, appToken: null },
  email: { smtpUrl: smtp.url, from: 'Vigil <paging@acme.example>' },
});
t.teardown(() => vigil.close());
const services = vigil.running.services;
const mailTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to));
const sent = () => ({ twilio: twilio.requests.length, ntfy: ntfy.requests.length, pushover: pushover.messages.length });

let n = 0;
async function member(t: Test, org: AlertOrg, name: string) {
  const email = `${name}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await vigil.operator.post(`${ADMIN}/users`, { email });
  t.equal(user.status, 201);
  await org.create('team_members', { email, role: 'member' });
  const token = (await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  return { id: user.body.id as string, email, me: client(vigil.url, token) };
}

async function method(t: Test, me: ReturnType<typeof client>, type: string, name: string, address: string, rule: number | null) {
  const made = await me.post(`${ME}/contact_methods`, { type, name, address });
  t.equal(made.status, 201, `${type} method saved: ${JSON.stringify(made.body)}`);
  if (rule !== null) t.equal((await me.post(`${ME}/notification_rules`, { contact_method_id: made.body.data.id, delay_minutes: rule, urgency: 'high' })).status, 201);
  return made.body.data.id as string;
}

/** Sends the method's code through Twilio and types it back. */
async function verify(t: Test, me: ReturnType<typeof client>, id: string) {
  t.equal((await me.post(`${ME}/contact_methods/${id}/send_verification`, {})).status, 200);
  const request = twilio.requests.at(-1)!;
  const digits = request.resource === 'Messages' ? /code for .* is (\d{6})/.exec(request.form.Body!)![1]! : /code is ((?:\d, ){5}\d)/.exec(request.form.Twiml!)![1]!.replaceAll(', ', '');
  const verified = await me.post(`${ME}/contact_methods/${id}/verify`, { code: digits });
  t.equal(verified.status, 200, `verified by the code ${request.resource === 'Messages' ? 'texted' : 'said'}`);
}

const escalationOf = async (org: AlertOrg, name: string) => (await org.api.get(`${CONFIG}/alerts/${(await org.alert(name)).id}/escalation`)).body.data[0];

t.test('a webhook alert pages the on-call person on four phones\' channels; an SMS reply acknowledges and the escalation stops', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  t.equal((await org.api.put(`${CONFIG}/paging_providers`, { pushover_app_token: APP })).status, 200, 'the organization\'s Pushover application');
  const ann = await member(t, org, 'ann');
  const bob = await member(t, org, 'bob');
  const phone = '+14155552671';
  const sms = await method(t, ann.me, 'sms', 'phone', phone, 0);
  const voice = await method(t, ann.me, 'voice', 'desk', '+442071838751', 1);
  await verify(t, ann.me, sms);
  await verify(t, ann.me, voice);
  const push = await method(t, ann.me, 'ntfy', 'ntfy', `${ntfy.url}/ann-pages`, 0);
  const over = await method(t, ann.me, 'pushover', 'pushover', ANN_PUSHOVER, 0);

  const schedule = await org.create('schedules', {
    name: 'Primary', time_zone: 'UTC', layers: [{ name: 'Daily', participants: [ann.email], rotation: { unit: 'daily', length: 1 }, handoff: '2026-01-01T00:00' }],
  });
  const policy = await org.create('escalation_policies', {
    name: 'Payments', steps: [{ delay_minutes: 0, targets: [{ schedule_id: schedule.id }] }, { delay_minutes: 5, targets: [{ email: bob.email }] }],
  });
  const team = await org.create('teams', { name: 'Payments', escalation_policy_id: policy.id });
  await org.create('alert_routes', { name: 'payments', team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: 'payments' }] });

  const before = sent();
  t.equal((await org.fire({ name: 'DiskFull', service: 'payments', severity: 'critical' })).status, 200);
  await runEscalations(services);
  await waitFor(() => twilio.requests.length === before.twilio + 1 && ntfy.requests.length === before.ntfy + 1 && pushover.messages.length === before.pushover + 1, 'the three immediate pages');
  const alert = await org.alert('DiskFull');

  // Twilio: a text from the operator's account, with its reply code and the status callback Vigil signs for
  const text = twilio.requests.at(-1)!;
  t.match(text, { resource: 'Messages', accountSid: OP_SID, authToken: OP_TOKEN, status: 201, form: { To: phone, From: OP_FROM, StatusCallback: `${vigil.url}/paging/twilio/status` } });
  const code = /^Vigil: DiskFull.*\. Reply (\d{4}) to acknowledge\.$/.exec(text.form.Body!)?.[1];
  t.ok(code, `the text carries a reply code: ${text.form.Body}`);
  // ntfy: JSON to the server's root, high priority, the Acknowledge action posting the one-time link
  const published = ntfy.requests.at(-1)!;
  t.equal(published.answered, 200);
  t.match(published.published, { topic: 'ann-pages', priority: 5, tags: ['rotating_light', 'critical'], actions: [{ action: 'http', label: 'Acknowledge', method: 'POST', url: new RegExp(`^${vigil.url}/page/`) }] });
  t.notOk(published.headers.authorization, 'no token: none is set for that server');
  // Pushover: an emergency from the organization's application, with a callback of its own
  const emergency = pushover.messages.at(-1)!;
  t.match(emergency, { form: { token: APP, user: ANN_PUSHOVER, priority: '2', retry: '60', expire: '3600', callback: new RegExp(`^${vigil.url}/paging/pushover/`) } });
  t.ok(emergency.receipt, 'Pushover answered a receipt');

  const state = await escalationOf(org, 'DiskFull');
  t.match(state, { state: 'active', step: 1, next_at: new Date(vigil.clock.now().getTime() + 5 * MINUTE).toISOString() }, 'the second step due in its 5 minutes');
  t.same(state.notifications.map((x: any) => [x.contact_method_id, x.type, x.status, x.fallback]).sort(), [
    [sms, 'sms', 'sent', null], [push, 'ntfy', 'sent', null], [over, 'pushover', 'sent', null], [voice, 'voice', 'pending', null],
  ].sort(), 'three sent, the call waiting for its rule\'s minute');
  t.match(effects(alert, 'notified').filter((d: any) => d.status === 'sent').map((d: any) => [d.channel, d.provider_id]).sort(), [
    ['ntfy', /^\w+$/], ['pushover', emergency.receipt], ['sms', text.sid],
  ].sort(), 'each provider\'s id on the timeline');

  // Twilio's status callback, signed, finds the engine's message and lands on the timeline with the method
  const delivered = await twilio.status(text.sid!, 'delivered');
  t.equal(delivered.status, 200, delivered.text);
  t.match(JSON.parse(delivered.text), { status: 'recorded' });
  t.match(effects(await org.alert('DiskFull'), 'notified').at(-1), { status: 'delivery', delivery: 'delivered', channel: 'sms', method: 'phone', provider_id: text.sid, email: ann.email, step: 0 });

  // the voice rule's minute: Twilio is asked to call, with a Gather for 1 / 2
  vigil.clock.advance(1 * MINUTE);
  await runEscalations(services);
  await waitFor(() => twilio.requests.length === before.twilio + 2, 'the call');
  const call = twilio.requests.at(-1)!;
  t.match(call, { resource: 'Calls', accountSid: OP_SID, status: 201, form: { To: '+442071838751', From: OP_FROM, Twiml: /<Gather [^>]*action="[^"]*\/paging\/twilio\/voice\/[^"]+".*Press 1 to acknowledge/ } });

  // the person answers the text with its code: Twilio's signed inbound webhook
  const reply = await twilio.reply({ url: `${vigil.url}/paging/twilio/sms`, accountSid: OP_SID, from: phone, to: OP_FROM, body: code! });
  t.equal(reply.status, 200);
  t.match(reply.text, /Acknowledged 1 alert/);
  t.equal((await org.alert('DiskFull')).status, 'acknowledged');
  const audit = (await org.api.get(`${CONFIG}/audit_log`)).body.data.filter((e: any) => e.row_id === alert.id && e.action === 'action:acknowledge_alert');
  t.equal(audit.length, 1);
  t.match(audit[0], { actor: { kind: 'page', id: ann.id }, transport: 'sms' }, 'acknowledged as the person, over sms');

  // the escalation stopped: well past the second step's delay, bob is never paged and nothing more goes out
  const after = sent();
  vigil.clock.advance(10 * MINUTE);
  await runEscalations(services);
  vigil.clock.advance(10 * MINUTE);
  await runEscalations(services);
  await drainJobs(services);
  t.same(sent(), after, 'no provider called again');
  t.equal(mailTo(bob.email).length, 0, 'the second step never started');
  const stopped = await escalationOf(org, 'DiskFull');
  t.match(stopped, { state: 'stopped', reason: 'acknowledged', step: 1, next_at: null }, 'stopped before its second step');
  t.notOk(stopped.notifications.some((x: any) => x.step === 1), 'no notification of the second step');
  t.notOk(effects(await org.alert('DiskFull'), 'notified').some((d: any) => d.email === bob.email), 'bob is nowhere on the timeline');
});

t.test('no usable channel: an unverified method, a provider not set up → the account email, and the escalation says why', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const cat = await member(t, org, 'cat');
  const dan = await member(t, org, 'dan');
  await method(t, cat.me, 'sms', 'phone', '+14155550199', 0);
  await method(t, dan.me, 'pushover', 'pushover', DAN_PUSHOVER, 0);
  const policy = await org.create('escalation_policies', { name: 'Ops', steps: [{ delay_minutes: 0, targets: [{ email: cat.email }, { email: dan.email }] }] });
  const team = await org.create('teams', { name: 'Ops', escalation_policy_id: policy.id });
  await org.create('alert_routes', { name: 'ops', team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: 'ops' }] });

  const before = sent();
  t.equal((await org.fire({ name: 'NoChannel', service: 'ops', severity: 'critical' })).status, 200);
  await runEscalations(services);
  await waitFor(() => mailTo(cat.email).length === 1 && mailTo(dan.email).length === 1, 'both at their account email');
  t.match(mailTo(cat.email)[0]!.subject, /NoChannel/);
  await drainJobs(services);
  t.same(sent(), before, 'no provider was called: the sms is not verified, and this organization has no Pushover application');

  const state = await escalationOf(org, 'NoChannel');
  const byEmail = Object.fromEntries(state.notifications.map((x: any) => [x.email, x]));
  t.match(byEmail[cat.email], { contact_method_id: null, method: 'account email', type: 'email', status: 'queued', fallback: 'unverified' });
  t.match(byEmail[dan.email], { contact_method_id: null, method: 'account email', type: 'email', status: 'queued', fallback: 'not_configured' });
  const notified = effects(await org.alert('NoChannel'), 'notified');
  t.match(notified.find((d: any) => d.email === cat.email), { method: 'account email', fallback: 'unverified' }, 'the timeline says why');
  t.match(notified.find((d: any) => d.email === dan.email), { method: 'account email', fallback: 'not_configured' });
  t.match(state, { state: 'done', reason: 'exhausted' }, 'and the escalation runs its course as for any page (one step, no repeat)');
});
