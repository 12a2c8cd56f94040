/**
 * Pages along each person's notification rules, through the surfaces: contact methods and rules made over /api/v1/me
 * (an email method verified by its code through a real SMTP server), an alert route paging a team, passes run by hand
 * with the injected clock. The webhook method posts through the real webhook channel to a local receiver
 * (test/helpers/receiver.ts) told to answer 200, 500 or to hang. Proven: the first method at once and the second only when
 * not acknowledged by its delay; the signed link (GET shows, POST acts, audited as the person over email with
 * credential kind page) stopping the escalation and cancelling what was pending; used, expired and tampered links
 * refused alike; a failing channel recorded and the next method still tried; the limit and its summary; no rule →
 * the account email; a provider's later delivery status on the timeline; a provider call never answered: unknown, not
 * made again; a link answering what happened (an alert already resolved, a person no longer a member).
 */
import t, { type Test } from 'tap';
import { emailChannel } from '../../../domain/paging/channels/email.ts';
import { recordDeliveryStatus } from '../../../domain/paging/delivery-status.ts';
import { runEscalations } from '../../../domain/paging/escalations.ts';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs, waitFor } from '../../helpers/jobs.ts';
import { alertOrg, effects, type AlertOrg } from '../../helpers/outbound.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import { startSmtp, type Mail } from '../../helpers/smtp.ts';

const ADMIN = '/api/admin/v1';
const ME = '/api/v1/me';
const MINUTE = 60_000;

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <paging@acme.example>' } });
t.teardown(() => vigil.close());
const services = vigil.running.services;

const mailTo = (to: string): Mail[] => smtp.messages.filter((m) => m.to.includes(to));

/** Where every webhook method of this file points: the real webhook channel posts there, and it answers as told. */
const receiver = await startReceiver(200);
t.teardown(() => receiver.close());
const callsTo = (address: string) => receiver.requests.filter((r) => `${receiver.url}${r.path}` === address).map((r) => ({ page: JSON.parse(r.body) }));

let n = 0;
/** A member with a personal token, an email method verified by its code, a webhook method, and rules (minutes) for high urgency. */
async function person(t: Test, org: AlertOrg, rules: { email?: number; webhook?: number }) {
  const email = `pd${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const made = await vigil.operator.post(`${ADMIN}/users`, { email });
  t.equal(made.status, 201);
  await org.create('team_members', { email, role: 'member' });
  const token = (await vigil.operator.post(`${ADMIN}/users/${made.body.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token as string;
  const me = client(vigil.url, token);
  const work = `work-${email}`;
  const hook = `${receiver.url}/hook-${n}`;
  const methods: Record<string, string> = {};
  if (rules.email !== undefined) {
    const m = (await me.post(`${ME}/contact_methods`, { type: 'email', name: 'work mail', address: work })).body.data;
    t.equal((await me.post(`${ME}/contact_methods/${m.id}/send_verification`, {})).status, 200);
    await waitFor(() => mailTo(work).length === 1, 'the code');
    const code = /(\d{6})/.exec(mailTo(work)[0]!.text)![1]!;
    t.equal((await me.post(`${ME}/contact_methods/${m.id}/verify`, { code })).status, 200, 'verified');
    methods.email = m.id;
    t.equal((await me.post(`${ME}/notification_rules`, { contact_method_id: m.id, delay_minutes: rules.email, urgency: 'high' })).status, 201);
  }
  if (rules.webhook !== undefined) {
    const m = (await me.post(`${ME}/contact_methods`, { type: 'webhook', name: 'my hook', address: hook })).body.data;
    methods.webhook = m.id;
    t.equal((await me.post(`${ME}/notification_rules`, { contact_method_id: m.id, delay_minutes: rules.webhook, urgency: 'high' })).status, 201);
  }
  return { id: made.body.id as string, email, work, hook, methods, me };
}

async function pageTo(org: AlertOrg, email: string, repeat = 0) {
  const policy = await org.create('escalation_policies', { name: `P ${++n}`, repeat, steps: [{ delay_minutes: 0, targets: [{ email }] }] });
  const team = await org.create('teams', { name: `Team ${n}`, escalation_policy_id: policy.id });
  await org.create('alert_routes', { name: `r${n}`, team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: `svc${n}` }] });
  return `svc${n}`;
}

const linkIn = (mail: Mail, action: 'Acknowledge' | 'Resolve') => new RegExp(`${action}: (\\S+)`).exec(mail.text)![1]!;
const open = async (url: string, method: 'GET' | 'POST' = 'GET') => {
  const res = await fetch(url, { method, redirect: 'manual', ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' } : {}) });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
};

t.test('the first method at once, the second after its delay only while nobody acknowledged', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const ann = await person(t, org, { email: 0, webhook: 5 });
  const svc = await pageTo(org, ann.email);
  await org.fire({ name: 'Disk', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(ann.work).length === 2, 'the page on the work mail at once');
  t.match(mailTo(ann.work)[1]!.subject, /Disk/);
  t.equal(mailTo(ann.email).length, 0, 'not the account email: she has rules');
  t.equal(callsTo(ann.hook).length, 0, 'the webhook waits its 5 minutes');
  vigil.clock.advance(4 * MINUTE);
  await runEscalations(services);
  t.equal(callsTo(ann.hook).length, 0, 'not before');
  vigil.clock.advance(1 * MINUTE);
  await runEscalations(services);
  t.equal(callsTo(ann.hook).length, 1, 'then the webhook');
  const msg = callsTo(ann.hook)[0]!.page;
  t.match(msg, { urgency: 'high', alerts: [{ title: /Disk/ }] });
  t.match(msg.acknowledge_url, /\/page\//, 'every message carries its links');

  const alert = await org.alert('Disk');
  const state = await org.api.get(`${CONFIG}/alerts/${alert.id}/escalation`);
  t.same(state.body.data[0].notifications.map((x: any) => [x.method, x.type, x.status, x.contact_method_id]), [
    ['work mail', 'email', 'queued', ann.methods.email], ['my hook', 'webhook', 'sent', ann.methods.webhook],
  ], 'each method\'s state');
  const notified = effects(alert, 'notified');
  t.match(notified, [
    { email: ann.email, channel: 'email', method: 'work mail', status: 'queued' },
    { email: ann.email, channel: 'webhook', method: 'my hook', status: 'sending' },
    { email: ann.email, channel: 'webhook', method: 'my hook', status: 'sent', provider_id: msg.page_id },
  ], 'every attempt and its result on the timeline');

  // the provider's later report, by its id
  t.equal(await recordDeliveryStatus(services, 'webhook', notified[2].provider_id, { status: 'delivered' }), true);
  t.equal(await recordDeliveryStatus(services, 'webhook', 'no-such-id', { status: 'delivered' }), false, 'an unknown id records nothing');
  t.match(effects(await org.alert('Disk'), 'notified').at(-1), { status: 'delivery', delivery: 'delivered', method: 'my hook' });
});

t.test('the link acknowledges as the person over email, stops the escalation and cancels what was pending; used, expired, tampered links alike refused', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const bob = await person(t, org, { email: 0, webhook: 5 });
  // repeated once, 15 minutes on: still running when she acknowledges
  const svc = await pageTo(org, bob.email, 1);
  await org.fire({ name: 'Queue', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(bob.work).length === 2, 'paged');
  const mail = mailTo(bob.work)[1]!;
  const ack = linkIn(mail, 'Acknowledge');
  const resolve = linkIn(mail, 'Resolve');

  const shown = await open(ack);
  t.equal(shown.status, 200);
  t.match(shown.type, /text\/html/);
  t.match(shown.text, /Queue/, 'the page lists the alert');
  t.match(shown.text, /<form method="post"/, 'a button that posts');
  t.notMatch(shown.text, /<script/i, 'no script');
  t.equal((await org.alert('Queue')).status, 'firing', 'GET changes nothing (a mail scanner following the link acts on nothing)');

  const done = await open(ack, 'POST');
  t.equal(done.status, 200, done.text);
  t.match(done.text, /acknowledged/);
  const alert = await org.alert('Queue');
  t.equal(alert.status, 'acknowledged');
  t.ok(alert.effects.some((e: any) => e.detail?.by?.kind === 'page' && e.detail.by.id === bob.id), 'the timeline names the person who acknowledged from the page');
  const log = await org.api.get(`${CONFIG}/audit_log?limit=20`);
  t.match(log.body.data.find((e: any) => e.row_id === alert.id), { actor: { kind: 'page', id: bob.id }, transport: 'email' }, 'audited as the person, over email, credential kind page');

  vigil.clock.advance(5 * MINUTE);
  await runEscalations(services);
  t.equal(callsTo(bob.hook).length, 0, 'the webhook is never called');
  vigil.clock.advance(10 * MINUTE);
  await runEscalations(services);
  await drainJobs(services);
  t.equal(mailTo(bob.work).length, 2, 'the repeat pages nobody');
  const state = await org.api.get(`${CONFIG}/alerts/${alert.id}/escalation`);
  t.match(state.body.data, [{ state: 'stopped', reason: 'acknowledged' }]);
  t.same(state.body.data[0].notifications.map((x: any) => [x.method, x.status]), [['work mail', 'queued'], ['my hook', 'cancelled']]);
  t.match(effects(await org.alert('Queue'), 'notified').at(-1), { method: 'my hook', status: 'cancelled', reason: 'acknowledged' });

  // refusals: one same answer
  const used = await open(ack, 'POST');
  const usedGet = await open(ack);
  const other = await open(resolve, 'POST');
  const [payload, mac] = ack.split('/page/')[1]!.split('.');
  const forged = await open(`${ack.split('/page/')[0]}/page/${Buffer.from(JSON.parse(Buffer.from(payload!, 'base64url').toString()).map((v: unknown, i: number) => (i === 3 ? 'resolve' : v)).toString()).toString('base64url')}.${mac}`);
  const tampered = await open(`${ack.slice(0, -2)}xx`, 'POST');
  const unknown = await open(`${ack.split('/page/')[0]}/page/nothing`);
  for (const [what, res] of Object.entries({ used, usedGet, other, forged, tampered, unknown })) {
    t.equal(res.status, 404, `${what}: 404`);
    t.equal(res.text, used.text, `${what}: the same page`);
  }
  t.equal((await org.alert('Queue')).status, 'acknowledged', 'the resolve link of a used message did nothing');

  // expiry: a fresh page's link, a day later
  await org.fire({ name: 'Later', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(bob.work).length === 3, 'paged again');
  const late = linkIn(mailTo(bob.work)[2]!, 'Acknowledge');
  vigil.clock.advance(25 * 60 * MINUTE);
  const expired = await open(late, 'POST');
  t.equal(expired.status, 404);
  t.equal(expired.text, used.text, 'expired: the same page');
  t.equal((await org.alert('Later')).status, 'firing');
});

t.test('a failing channel is recorded failed and the next method is still tried', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const cat = await person(t, org, { webhook: 0, email: 1 });
  const svc = await pageTo(org, cat.email);
  // this person's receiver refuses (a page of an earlier test, due in the same pass, must not take the refusal)
  receiver.paths.set(new URL(cat.hook).pathname, 500);
  await org.fire({ name: 'Cpu', service: svc });
  await runEscalations(services);
  t.equal(callsTo(cat.hook).length, 1, 'tried');
  vigil.clock.advance(1 * MINUTE);
  await runEscalations(services);
  await waitFor(() => mailTo(cat.work).length === 2, 'the next method still');
  const alert = await org.alert('Cpu');
  t.match(effects(alert, 'notified'), [
    { method: 'my hook', status: 'sending' }, { method: 'my hook', status: 'failed', reason: 'the webhook receiver answered 500' }, { method: 'work mail', status: 'queued' },
  ]);
});

t.test('no usable rule: the account email at once', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const dan = await person(t, org, {});
  const svc = await pageTo(org, dan.email);
  await org.fire({ name: 'Mem', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(dan.email).length === 1, 'the account email');
  t.match(effects(await org.alert('Mem'), 'notified'), [{ method: 'account email', contact_method_id: null, channel: 'email', status: 'queued' }]);
});

t.test('beyond a method\'s limit pages are held, then one summary', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const eve = await person(t, org, {});
  const svc = await pageTo(org, eve.email);
  emailChannel.limit = { messages: 2, perMinutes: 15 };
  t.teardown(() => { delete emailChannel.limit; });
  for (const name of ['L1', 'L2', 'L3', 'L4']) {
    await org.fire({ name, service: svc });
    await runEscalations(services);
    vigil.clock.advance(10_000);
  }
  await waitFor(() => mailTo(eve.email).length === 2, 'two pages');
  await drainJobs(services);
  t.equal(mailTo(eve.email).length, 2, 'the limit holds the rest');
  t.match(effects(await org.alert('L3'), 'notified'), [{ status: 'limited', limit: { messages: 2, perMinutes: 15 } }], 'a held page is on its timeline');
  vigil.clock.advance(14 * MINUTE);
  await runEscalations(services);
  await drainJobs(services);
  t.equal(mailTo(eve.email).length, 2, 'still held: 15 minutes from the first are not over');
  vigil.clock.advance(1 * MINUTE);
  await runEscalations(services);
  await waitFor(() => mailTo(eve.email).length === 3, 'the summary when the window allows');
  const summary = mailTo(eve.email)[2]!;
  t.match(summary.subject, /2 more alerts paged you/);
  t.match(summary.text, /L3/);
  t.match(summary.text, /L4/);
  t.match(effects(await org.alert('L4'), 'notified').at(-1), { status: 'queued', summary: true, bundled: 2 });
});

t.test('a provider call whose answer is never recorded becomes unknown and is not made again', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const fay = await person(t, org, { webhook: 0 });
  const svc = await pageTo(org, fay.email);
  // the receiver hangs (as an instance dying mid-call would leave it): the row committed `sending` first
  receiver.paths.set(new URL(fay.hook).pathname, 'hang');
  t.teardown(() => receiver.paths.delete(new URL(fay.hook).pathname));
  await org.fire({ name: 'Hang', service: svc });
  const first = runEscalations(services);
  await waitFor(() => callsTo(fay.hook).length === 1, 'the provider called');
  const alert = await org.alert('Hang');
  const state = async () => (await org.api.get(`${CONFIG}/alerts/${alert.id}/escalation`)).body.data[0].notifications.map((x: any) => x.status);
  t.same(await state(), ['sending'], 'committed as sending before the call');
  vigil.clock.advance(3 * MINUTE);
  await runEscalations(services);
  t.same(await state(), ['unknown'], 'no answer recorded within two minutes: unknown');
  t.equal(callsTo(fay.hook).length, 1, 'never called twice');
  t.match(effects(await org.alert('Hang'), 'notified').at(-1), { status: 'unknown', reason: 'no_answer_recorded', method: 'my hook' });
  receiver.release(200);
  await first;
  t.equal(callsTo(fay.hook).length, 1);
  t.match(effects(await org.alert('Hang'), 'notified').at(-1), { status: 'sent', method: 'my hook' }, 'the answer arriving late is still recorded');
});

t.test('a link says what happened: an alert already resolved, a person no longer a member', async (t) => {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const gus = await person(t, org, {});
  const svc = await pageTo(org, gus.email);
  await org.fire({ name: 'Gone', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(gus.email).length === 1, 'paged');
  const resolved = await org.agent.call('resolve_alert', { id: (await org.alert('Gone')).id });
  t.notOk(resolved.isError, JSON.stringify(resolved.body));
  const answer = await open(linkIn(mailTo(gus.email)[0]!, 'Acknowledge'), 'POST');
  t.equal(answer.status, 200);
  t.match(answer.text, /Nothing was acknowledged/);
  t.match(answer.text, /Gone: not acknowledged/, 'the alert named with why');
  t.equal((await org.alert('Gone')).status, 'resolved');

  vigil.clock.advance(6_000);
  await org.fire({ name: 'Left', service: svc });
  await runEscalations(services);
  await waitFor(() => mailTo(gus.email).length === 2, 'paged again');
  t.equal((await vigil.operator.del(`${ADMIN}/organizations/${org.id}/members/${gus.id}`)).status, 204);
  const left = await open(linkIn(mailTo(gus.email)[1]!, 'Acknowledge'), 'POST');
  t.equal(left.status, 403);
  t.match(left.text, /no longer a member/);
  t.equal((await org.alert('Left')).status, 'firing', 'nothing changed');
});
