/**
 * Contact methods and notification rules through every surface a person or an admin touches: the configuration API
 * (org admin, `email` names the owner; personal tokens refused), the person's own surface /api/v1/me (personal tokens
 * only; another's rows do not exist), the agent-tool endpoint with a personal token; verification by code through a
 * real SMTP server with the clock moved by hand; and contactPlan, the escalation engine's view, read directly.
 */
import t from 'tap';
import { client, CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent, type Agent } from '../../helpers/mcp.ts';
import { waitFor } from '../../helpers/jobs.ts';
import { startSmtp } from '../../helpers/smtp.ts';
import { contactPlan } from '../../../domain/paging/contacts.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <vigil@acme.example>' } });
t.teardown(() => vigil.close());

const ADMIN = '/api/admin/v1';
const ME = '/api/v1/me';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const agents: Agent[] = [];
t.teardown(() => Promise.all(agents.map((a) => a.close())));
let n = 0;

async function person(orgId: string, role: 'member' | 'org_admin' | 'viewer' = 'member') {
  const made = await vigil.operator.post(`${ADMIN}/users`, { email: `pager${++n}-${Math.random().toString(36).slice(2, 8)}@example.com` });
  await vigil.operator.put(`${ADMIN}/organizations/${orgId}/members/${made.body.id}`, { role });
  const token = (await vigil.operator.post(`${ADMIN}/users/${made.body.id}/tokens`, { name: 't', organizations: [orgId], max_role: 'unlimited' })).body.token as string;
  return { id: made.body.id as string, email: made.body.email as string, token, me: client(vigil.url, token) };
}

async function agentOf(token: string) {
  const agent = await connectAgent(vigil.url, token);
  agents.push(agent);
  return agent;
}

/** The last code mailed to `to`. */
async function codeMailedTo(to: string, count: number): Promise<string> {
  await waitFor(() => smtp.messages.filter((m) => m.to.includes(to)).length >= count, `code ${count} to ${to}`);
  const mail = smtp.messages.filter((m) => m.to.includes(to))[count - 1]!;
  return /(\d{6})/.exec(mail.text)![1]!;
}

t.test('addresses: E.164 stored, bad numbers, internal-network URLs and malformed keys refused naming address', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const alice = await person(org.id);
  const PATH = `${CONFIG}/contact_methods`;

  const phone = await api.post(PATH, { email: alice.email.toUpperCase(), type: 'sms', name: 'phone', address: '+1 (415) 555-2671' });
  t.equal(phone.status, 201, JSON.stringify(phone.body));
  t.equal(phone.body.data.address, '+14155552671', 'the number is stored in E.164 form');
  t.equal(phone.body.data.email, alice.email, 'the owner is stored lowercased');
  t.equal(phone.body.data.verified, false, 'a new method is unverified');

  const refusals: [Record<string, unknown>, string][] = [
    [{ type: 'sms', address: '555-0100' }, 'a number without its country code'],
    [{ type: 'voice', address: '+1 555' }, 'a number too short to be one'],
    [{ type: 'sms', address: '+999 12345678' }, 'a country code that does not exist'],
    [{ type: 'ntfy', address: 'https://10.0.0.5/pages' }, 'an ntfy server on a private network'],
    [{ type: 'ntfy', address: 'https://169.254.169.254/pages' }, 'the cloud metadata address'],
    [{ type: 'webhook', address: 'https://[fd00::1]/hook' }, 'a webhook on a private IPv6 network'],
    [{ type: 'ntfy', address: 'https://ntfy.example.com/' }, 'an ntfy URL without a topic'],
    [{ type: 'ntfy', address: 'https://ntfy.example.com/a/b' }, 'an ntfy URL with a path beyond the topic'],
    [{ type: 'webhook', address: 'http://hooks.example.com/x' }, 'a plain http webhook'],
    [{ type: 'pushover', address: 'not-a-key' }, 'a Pushover key of the wrong shape'],
    [{ type: 'email', address: 'nobody' }, 'an email method without an email'],
  ];
  for (const [body, what] of refusals) {
    const refused = await api.post(PATH, { email: alice.email, name: 'x', ...body });
    t.equal(refused.status, 422, what);
    t.same(fieldsOf(refused), ['address'], `${what}: refused naming address`);
  }
  const stranger = await api.post(PATH, { email: 'stranger@example.com', type: 'email', name: 'x', address: 'x@example.com' });
  t.same(fieldsOf(stranger), ['email'], 'an owner who is not a member is refused naming email');
  const noOwner = await api.post(PATH, { type: 'email', name: 'x', address: 'x@example.com' });
  t.same(fieldsOf(noOwner), ['email'], 'a key names no person: the owner is required');

  for (const [type, address] of [['ntfy', 'https://ntfy.example.com/alice-pages'], ['pushover', 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG'], ['webhook', 'https://hooks.example.com/page'], ['email', 'Alice@Example.com'], ['chat', 'U024BE7LH']]) {
    const made = await api.post(PATH, { email: alice.email, type, name: type, address });
    t.equal(made.status, 201, `${type} saved: ${JSON.stringify(made.body)}`);
  }
  const list = (await api.get(PATH)).body.data;
  t.equal(list.length, 6, 'only the accepted ones were stored');
  t.ok(list.some((m: { address: string }) => m.address === 'alice@example.com'), 'an email address is stored lowercased');

  const moved = await api.put(`${PATH}/${phone.body.data.id}`, { type: 'voice' });
  t.same(fieldsOf(moved), ['type'], 'type is set on create only');
});

t.test('personal tokens: refused by the configuration API; /api/v1/me holds only their own rows', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const alice = await person(org.id);
  const bob = await person(org.id);
  const admin = await person(org.id, 'org_admin');

  const refused = await alice.me.get(`${CONFIG}/contact_methods`);
  t.equal(refused.status, 403);
  t.equal(refused.body.error, 'personal_token_not_accepted', 'the configuration API keeps refusing personal tokens');
  const keyAtMe = await api.get(`${ME}/contact_methods`);
  t.equal(keyAtMe.status, 403);
  t.equal(keyAtMe.body.error, 'user_token_required', 'an organization key names no person: refused at /me');
  t.equal((await client(vigil.url).get(`${ME}/contact_methods`)).status, 401, 'no credential: 401');

  const mine = await alice.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/alice' });
  t.equal(mine.status, 201, JSON.stringify(mine.body));
  t.equal(mine.body.data.email, alice.email, 'the owner is the token\'s user');
  t.match(mine.headers.get('location'), `${ME}/contact_methods/${mine.body.data.id}`, 'Location names the row at /me');
  const bobs = await bob.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/bob' });
  t.equal(bobs.status, 201);
  const forBob = await alice.me.post(`${ME}/contact_methods`, { email: bob.email, type: 'ntfy', name: 'x', address: 'https://ntfy.example.com/x' });
  t.equal(forBob.status, 403, 'a person cannot make a method for someone else');
  t.same(fieldsOf(forBob), ['email']);

  const listed = (await alice.me.get(`${ME}/contact_methods`)).body.data;
  t.same(listed.map((m: { id: string }) => m.id), [mine.body.data.id], 'the list holds only their own');
  const bobPath = `${ME}/contact_methods/${bobs.body.data.id}`;
  t.equal((await alice.me.get(bobPath)).status, 404, 'another\'s row: 404 on read');
  t.equal((await alice.me.put(bobPath, { name: 'mine now' })).status, 404, '404 on update');
  t.equal((await alice.me.del(bobPath)).status, 404, '404 on delete');
  t.equal((await alice.me.post(`${bobPath}/send_verification`, {})).status, 404, '404 on its operations');
  t.equal((await alice.me.get(`${ME}/contact_methods/no-such-id`)).status, 404, 'the same 404 as an id that does not exist');
  t.equal((await alice.me.get(`${ME}/teams`)).status, 404, 'families without owners are not served at /me');

  // the admin is at /me a person too: only their own there
  t.same((await admin.me.get(`${ME}/contact_methods`)).body.data, [], 'an org admin at /me sees only their own (none)');
  t.equal((await admin.me.get(bobPath)).status, 404);
  // and reads everyone's through the configuration API
  const all = (await api.get(`${CONFIG}/contact_methods`)).body.data.map((m: { email: string }) => m.email).sort();
  t.same(all, [alice.email, bob.email].sort(), 'an admin key reads everyone\'s');
  const renamed = await api.put(`${CONFIG}/contact_methods/${bobs.body.data.id}`, { name: 'renamed by admin' });
  t.equal(renamed.status, 200, 'and manages them');
  t.equal((await bob.me.get(bobPath)).body.data.name, 'renamed by admin');
  const reader = await org.key(['api:config_read']);
  t.same((await reader.get(`${CONFIG}/contact_methods`)).body.data, [], 'a key below org admin sees none (no person to own them)');

  t.equal((await alice.me.put(`${ME}/contact_methods/${mine.body.data.id}`, { name: 'phone push' })).body.data.name, 'phone push', 'a person changes their own');
  t.equal((await alice.me.del(`${ME}/contact_methods/${mine.body.data.id}`)).status, 204, 'and deletes it');
});

t.test('/me is on every plan', async (t) => {
  const org = await vigil.organization('free');
  const carol = await person(org.id);
  const made = await carol.me.post(`${ME}/contact_methods`, { type: 'pushover', name: 'pushover', address: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG' });
  t.equal(made.status, 201, JSON.stringify(made.body));
});

t.test('notification rules: only the owner\'s methods; private like the methods', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const alice = await person(org.id);
  const bob = await person(org.id);
  const aliceMethod = (await alice.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/alice' })).body.data;
  const bobMethod = (await bob.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/bob' })).body.data;

  const rule = await alice.me.post(`${ME}/notification_rules`, { contact_method_id: aliceMethod.id, delay_minutes: 2, urgency: 'low' });
  t.equal(rule.status, 201, JSON.stringify(rule.body));
  t.equal(rule.body.data.email, alice.email);
  const theirs = await alice.me.post(`${ME}/notification_rules`, { contact_method_id: bobMethod.id });
  t.equal(theirs.status, 422, 'a rule pointing at another\'s method is refused');
  t.same(fieldsOf(theirs), ['contact_method_id']);
  const unknown = await alice.me.post(`${ME}/notification_rules`, { contact_method_id: 'no-such-method' });
  t.same(unknown.body.errors, theirs.body.errors, 'with the same answer as an unknown id: another\'s method is not revealed');
  const mixed = await api.post(`${CONFIG}/notification_rules`, { email: alice.email, contact_method_id: bobMethod.id });
  t.same(fieldsOf(mixed), ['contact_method_id'], 'an admin cannot mix owners either');
  const moved = await alice.me.put(`${ME}/notification_rules/${rule.body.data.id}`, { contact_method_id: bobMethod.id });
  t.same(fieldsOf(moved), ['contact_method_id'], 'nor move a rule onto another\'s method');
  t.same(fieldsOf(await alice.me.post(`${ME}/notification_rules`, { delay_minutes: 1 })), ['contact_method_id'], 'the method is required');
  t.same(fieldsOf(await alice.me.post(`${ME}/notification_rules`, { contact_method_id: aliceMethod.id, delay_minutes: -1 })), ['delay_minutes']);
  t.same(fieldsOf(await alice.me.post(`${ME}/notification_rules`, { contact_method_id: aliceMethod.id, urgency: 'urgent' })), ['urgency']);

  t.equal((await bob.me.get(`${ME}/notification_rules/${rule.body.data.id}`)).status, 404, 'another\'s rule: 404');
  t.same((await bob.me.get(`${ME}/notification_rules`)).body.data, [], 'and not listed');
  const used = await alice.me.del(`${ME}/contact_methods/${aliceMethod.id}`);
  t.equal(used.status, 422, 'a method a rule uses is not deleted from under it');
  t.same(fieldsOf(used), ['id']);
  t.equal((await api.get(`${CONFIG}/notification_rules`)).body.data.length, 1, 'the admin reads everyone\'s rules; the refusals stored nothing');
});

t.test('the agent-tool endpoint with a personal token: the same own rows', async (t) => {
  const org = await vigil.organization('business');
  const alice = await person(org.id);
  const bob = await person(org.id);
  const admin = await person(org.id, 'org_admin');
  const [aliceAgent, adminAgent] = [await agentOf(alice.token), await agentOf(admin.token)];
  const made = await aliceAgent.call('create_contact_method', { type: 'webhook', name: 'hook', address: 'https://hooks.example.com/alice' });
  t.notOk(made.isError, JSON.stringify(made.body));
  t.equal(made.body.data.email, alice.email, 'the owner is the token\'s user');
  const internal = await aliceAgent.call('create_contact_method', { type: 'webhook', name: 'hook', address: 'https://192.168.1.10/hook' });
  t.equal(internal.body.error, 'validation_failed', 'the same address policy as REST');
  const bobs = (await bob.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/bob' })).body.data;
  t.same((await aliceAgent.call('list_contact_methods')).body.data.map((m: { id: string }) => m.id), [made.body.data.id], 'a member lists their own only');
  t.equal((await aliceAgent.call('get_contact_method', { id: bobs.id })).body.error, 'not_found', 'another\'s: not found');
  t.equal((await aliceAgent.call('update_contact_method', { id: bobs.id, name: 'x' })).body.error, 'not_found');
  t.equal((await aliceAgent.call('delete_contact_method', { id: bobs.id })).body.error, 'not_found');
  t.equal((await aliceAgent.call('create_notification_rule', { contact_method_id: bobs.id })).body.error, 'validation_failed');
  t.notOk((await aliceAgent.call('create_notification_rule', { contact_method_id: made.body.data.id, delay_minutes: 1 })).isError, 'a rule on their own method');
  t.equal((await adminAgent.call('list_contact_methods')).body.data.length, 2, 'an org admin on the agent-tool endpoint reads everyone\'s');
  const sms = await aliceAgent.call('send_verification', { id: made.body.data.id });
  t.same(sms.body.errors?.map((e: { field: string }) => e.field), ['id'], 'a webhook is not verified by code');
});

t.test('verification: codes by email, wrong, expired, too many, resend limit; sms has no provider yet', async (t) => {
  const org = await vigil.organization('business');
  const alice = await person(org.id);
  const bob = await person(org.id);
  const agent = await agentOf(alice.token);
  const mail = (await alice.me.post(`${ME}/contact_methods`, { type: 'email', name: 'work', address: 'alice.work@example.com' })).body.data;
  const path = `${ME}/contact_methods/${mail.id}`;

  t.equal((await alice.me.post(`${path}/verify`, { code: '000000' })).status, 422, 'no code sent yet: refused');
  const sent = await alice.me.post(`${path}/send_verification`, {});
  t.equal(sent.status, 200, JSON.stringify(sent.body));
  t.same(sent.body.data, { id: mail.id, verified: false, expires_at: '2026-03-01T12:10:00.000Z' }, 'the code works ten minutes (the injected clock)');
  const code = await codeMailedTo('alice.work@example.com', 1);
  t.notMatch(JSON.stringify(sent.body), code, 'the code is never in an answer');
  const again = await alice.me.post(`${path}/send_verification`, {});
  t.equal(again.status, 429, 'a resend within a minute is refused');
  t.ok(Number(again.headers.get('retry-after')) > 0);

  const wrong = code === '123456' ? '654321' : '123456';
  const first = await alice.me.post(`${path}/verify`, { code: wrong });
  t.equal(first.status, 422);
  t.same(fieldsOf(first), ['code']);
  t.match(first.body.errors[0].message, /4 tries left/, 'a wrong code says the tries left');
  t.equal((await bob.me.post(`${ME}/contact_methods/${mail.id}/verify`, { code })).status, 404, 'another person cannot use the code on it');

  vigil.clock.advance(11 * 60_000);
  const late = await alice.me.post(`${path}/verify`, { code });
  t.equal(late.status, 422, 'an expired code is refused');
  t.match(late.body.errors[0].message, /expired/);
  t.equal((await alice.me.get(path)).body.data.verified, false);

  // a new code: five wrong tries void it, even the right one after
  t.equal((await alice.me.post(`${path}/send_verification`, {})).status, 200);
  const second = await codeMailedTo('alice.work@example.com', 2);
  const other = second === '123456' ? '654321' : '123456';
  for (let i = 0; i < 5; i++) await alice.me.post(`${path}/verify`, { code: other });
  const spent = await alice.me.post(`${path}/verify`, { code: second });
  t.equal(spent.status, 422, 'after five wrong tries the right code no longer works');
  t.match(spent.body.errors[0].message, /no longer works/);

  // a third, right the first time, through the agent tool
  vigil.clock.advance(61_000);
  t.notOk((await agent.call('send_verification', { id: mail.id })).isError);
  const third = await codeMailedTo('alice.work@example.com', 3);
  const ok = await agent.call('verify_contact_method', { id: mail.id, code: third });
  t.notOk(ok.isError, JSON.stringify(ok.body));
  t.equal((await alice.me.get(path)).body.data.verified, true, 'the method is verified');
  t.equal((await alice.me.post(`${path}/verify`, { code: third })).status, 422, 'a code works once');

  const changed = await alice.me.put(path, { address: 'alice.home@example.com' });
  t.equal(changed.body.data.verified, false, 'a changed address must be proven again');
  const renamed = await alice.me.put(path, { name: 'home' });
  t.equal(renamed.body.data.verified, false);

  const phone = (await alice.me.post(`${ME}/contact_methods`, { type: 'sms', name: 'phone', address: '+442071838750' })).body.data;
  const sms = await alice.me.post(`${ME}/contact_methods/${phone.id}/send_verification`, {});
  t.equal(sms.status, 422, 'sms: no provider yet');
  t.match(sms.body.errors[0].message, /no SMS provider configured/);
  t.equal(phone.address, '+442071838750');
});

t.test('a retried send or verify with its Idempotency-Key replays the first answer: one code mailed, the method verified once', async (t) => {
  const org = await vigil.organization('business');
  const alice = await person(org.id);
  const mail = (await alice.me.post(`${ME}/contact_methods`, { type: 'email', name: 'retry', address: 'alice.retry@example.com' })).body.data;
  const path = `${ME}/contact_methods/${mail.id}`;
  const key = { 'Idempotency-Key': 'send-once' };
  const sent = await alice.me.post(`${path}/send_verification`, {}, key);
  t.equal(sent.status, 200);
  const code = await codeMailedTo('alice.retry@example.com', 1);
  const retried = await alice.me.post(`${path}/send_verification`, {}, key);
  t.equal(retried.status, 200, 'the retry is not refused as a resend within the minute');
  t.same(retried.body, sent.body, 'it replays the first answer');
  t.equal(smtp.messages.filter((m) => m.to.includes('alice.retry@example.com')).length, 1, 'and sends no second code');
  const verified = await alice.me.post(`${path}/verify`, { code }, { 'Idempotency-Key': 'verify-once' });
  t.equal(verified.status, 200);
  const again = await alice.me.post(`${path}/verify`, { code }, { 'Idempotency-Key': 'verify-once' });
  t.equal(again.status, 200, 'a retried verify answers as the first did');
  t.same(again.body, verified.body);
  t.equal((await alice.me.post(`${path}/verify`, { code })).status, 422, 'without the key a used code is refused');
});

t.test('verification answers the same whether or not the address exists', async (t) => {
  const org = await vigil.organization('business');
  const alice = await person(org.id);
  smtp.refuseNext(1, { code: 550, reply: 'no such user', to: 'ghost@example.com' });
  const ghost = (await alice.me.post(`${ME}/contact_methods`, { type: 'email', name: 'ghost', address: 'ghost@example.com' })).body.data;
  const real = (await alice.me.post(`${ME}/contact_methods`, { type: 'email', name: 'real', address: 'real@example.com' })).body.data;
  const a = await alice.me.post(`${ME}/contact_methods/${ghost.id}/send_verification`, {});
  const b = await alice.me.post(`${ME}/contact_methods/${real.id}/send_verification`, {});
  t.equal(a.status, b.status);
  t.same({ ...a.body.data, id: null }, { ...b.body.data, id: null }, 'the same answer: a mailbox refused later says nothing here');
});

t.test('contactPlan: rules for the urgency, in delay order, verified methods only; no rule: the account email at once', async (t) => {
  const org = await vigil.organization('business');
  const alice = await person(org.id);
  const bob = await person(org.id);
  const services = vigil.running.services;
  t.same(await contactPlan(services, { organizationId: org.id, userId: bob.id, urgency: 'high' }), [
    { contactMethod: { id: null, type: 'email', address: bob.email, name: 'account email' }, delayMinutes: 0, fallback: 'no_rule' },
  ], 'no rule: the account email, at once, saying why');

  const push = (await alice.me.post(`${ME}/contact_methods`, { type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/alice' })).body.data;
  const phone = (await alice.me.post(`${ME}/contact_methods`, { type: 'sms', name: 'phone', address: '+14155552671' })).body.data;
  const work = (await alice.me.post(`${ME}/contact_methods`, { type: 'email', name: 'work', address: 'alice.plan@example.com' })).body.data;
  for (const [id, delay, urgency] of [[work.id, 10, 'high'], [push.id, 0, 'high'], [phone.id, 1, 'high'], [push.id, 5, 'low']] as const) {
    t.equal((await alice.me.post(`${ME}/notification_rules`, { contact_method_id: id, delay_minutes: delay, urgency })).status, 201);
  }
  t.same(await contactPlan(services, { organizationId: org.id, userId: alice.id, urgency: 'high' }), [
    { contactMethod: { id: push.id, type: 'ntfy', address: 'https://ntfy.example.com/alice', name: 'push' }, delayMinutes: 0 },
  ], 'unverified sms and email are left out; ntfy is used as saved');
  t.same((await contactPlan(services, { organizationId: org.id, userId: alice.id, urgency: 'low' })).map((c) => [c.contactMethod.id, c.delayMinutes]), [[push.id, 5]], 'the low-urgency rules only');

  vigil.clock.advance(5 * 60_000);
  await alice.me.post(`${ME}/contact_methods/${work.id}/send_verification`, {});
  const code = await codeMailedTo('alice.plan@example.com', 1);
  t.equal((await alice.me.post(`${ME}/contact_methods/${work.id}/verify`, { code })).status, 200);
  t.same((await contactPlan(services, { organizationId: org.id, userId: alice.id, urgency: 'high' })).map((c) => [c.contactMethod.type, c.delayMinutes]), [['ntfy', 0], ['email', 10]], 'verified: now used, in delay order');

  // only rules whose methods are all unusable: the account email, not nobody
  const lone = await person(org.id);
  const lonePhone = (await lone.me.post(`${ME}/contact_methods`, { type: 'voice', name: 'phone', address: '+14155552671' })).body.data;
  await lone.me.post(`${ME}/notification_rules`, { contact_method_id: lonePhone.id });
  t.same((await contactPlan(services, { organizationId: org.id, userId: lone.id, urgency: 'high' })).map((c) => [c.contactMethod.address, c.fallback]), [[lone.email, 'unverified']], 'nobody is left unreachable; the reason is said');
  t.same(await contactPlan(services, { organizationId: org.id, userId: '00000000-0000-4000-8000-000000000000', urgency: 'high' }), [], 'an unknown user: nothing');
});
