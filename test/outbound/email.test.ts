/**
 * Email notifications end to end, to a real SMTP server on 127.0.0.1 (test/helpers/smtp.ts): alerts fired
 * through the webhook, notification_settings set through the REST config API, release passes run by hand after
 * moving the injected clock. Digest off → one email per event to every recipient; channels without `email` and
 * an empty recipient list → none; quiet hours hold and then send one email; hourly and daily digests (the daily
 * hour read in the organization's zone, across a daylight-saving change); a refusing server, retries with
 * backoff and recovery → exactly one email; the last try → `failed`; two sends at once → one email; the SMTP
 * password in no stored error; no SMTP configured → nothing recorded.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { readStore } from '../../engine/operations/context.ts';
import { sendDueEmail } from '../../outbound/email/send.ts';
import { runNoticePass } from '../../outbound/tick.ts';
import { CONFIG, OPERATOR_TOKEN, startVigil, type Vigil } from '../helpers/harness.ts';
import { drainJobs, waitFor } from '../helpers/jobs.ts';
import { alertOrg, type AlertOrg } from '../helpers/outbound.ts';
import { startSmtp, type Mail } from '../helpers/smtp.ts';

const PASSWORD = 'smtp-pa55word-never-stored';
const smtp = await startSmtp({ auth: { user: 'vigil-mailer', pass: PASSWORD } });
t.teardown(() => smtp.close());
const FROM = 'Vigil <alerts@vigil.example>';
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: FROM } });
t.teardown(() => vigil.close());

const MINUTE = 60_000;
const sql = () => readStore(vigil.running.services).execute;
const address = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;
const mailTo = (recipient: string): Mail[] => smtp.messages.filter((m) => m.to.includes(recipient));
const notices = async (organizationId: string) =>
  sql()('select event_type, status, send_after, sent_at, attempts, last_error, batched from email_notices where organization_id = ? order by seq', [organizationId]) as Promise<any[]>;
/** Waits until every queued send has run: what must not arrive is checked after this. */
const settle = (v: Vigil = vigil) => drainJobs(v.running.services);

async function org(settings: Record<string, unknown>, organization: Record<string, unknown> = {}, v: Vigil = vigil): Promise<AlertOrg> {
  const o = await alertOrg(v, organization);
  t.teardown(() => o.agent.close());
  const put = await o.api.put(`${CONFIG}/notification_settings`, settings);
  if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  return o;
}

t.test('digest off: one email per event, to every recipient, escaped, from the configured sender', async (t) => {
  const [a, b] = [address('oncall'), address('lead')];
  const o = await org({ email_recipients: [a, b.toUpperCase()] });
  t.equal((await o.fire({ name: 'DiskFull', service: 'db', severity: 'critical' }, { name: 'Cpu<High>&Co', severity: 'warning' })).status, 200);
  await waitFor(() => mailTo(a).length >= 2, 'two emails');
  await runNoticePass(vigil.running.services);
  await settle();
  const mails = mailTo(a);
  t.equal(mails.length, 2, 'one email per event, even for events of one delivery');
  for (const m of mails) {
    t.same([...m.to].sort(), [a, b].sort(), 'every recipient (stored lowercased) on each email');
    t.equal(m.from, 'alerts@vigil.example');
    t.match(m.headers.from, /Vigil <alerts@vigil\.example>/);
    t.equal(m.headers['auto-submitted'], 'auto-generated');
  }
  const disk = mails.find((m) => m.subject.includes('DiskFull'))!;
  t.equal(disk.subject, '[Vigil] critical: DiskFull');
  t.match(disk.text, /Service: db/);
  t.match(disk.text, /Event: alert\.fired/);
  t.match(disk.html, /<th[^>]*>Service<\/th><td>db<\/td>/);
  const cpu = mails.find((m) => m.subject.includes('Cpu'))!;
  t.equal(cpu.subject, '[Vigil] warning: Cpu<High>&Co', 'the subject is plain text');
  t.match(cpu.html, /Cpu&#60;High&#62;&#38;Co/, 'the HTML escapes the title');
  t.notMatch(cpu.html, /Cpu<High>/);
  const rows = await notices(o.id);
  t.same(rows.map((r) => [r.event_type, r.status, r.attempts, r.batched]), [['alert.fired', 'sent', 1, false], ['alert.fired', 'sent', 1, false]]);
});

t.test('an event kind whose channels leave email out is not mailed; one that keeps it is', async (t) => {
  const a = address('channels');
  const o = await org({ email_recipients: [a], channels: { 'alert.fired': ['chat', 'outbound'] } }, { auto_open_incidents: true });
  t.equal((await o.fire({ name: 'QueueDepth', severity: 'critical' })).status, 200);
  await waitFor(() => mailTo(a).length >= 1, 'the incident email');
  await settle();
  t.same(mailTo(a).map((m) => m.subject), ['[Vigil] incident opened (critical): QueueDepth'], 'incident.opened mailed, alert.fired not');
  t.same((await notices(o.id)).map((r) => r.event_type), ['incident.opened']);
});

t.test('no recipients: nothing is recorded or mailed; once listed, the next event is', async (t) => {
  const o = await org({ email_recipients: [] });
  t.equal((await o.fire({ name: 'Silent', severity: 'critical' })).status, 200);
  t.same(await notices(o.id), [], 'no notice without a recipient');
  const a = address('late');
  t.equal((await o.api.put(`${CONFIG}/notification_settings`, { email_recipients: [a] })).status, 200);
  t.equal((await o.fire({ name: 'Heard', severity: 'critical' })).status, 200);
  await waitFor(() => mailTo(a).length >= 1, 'the email');
  await runNoticePass(vigil.running.services);
  await settle();
  t.same(mailTo(a).map((m) => m.subject), ['[Vigil] critical: Heard'], 'the earlier event is never mailed');
});

t.test('quiet hours hold email; when they end, one email holds every held event', async (t) => {
  const a = address('quiet');
  // 12:00 UTC is inside 11:00–13:00 in UTC
  const o = await org({ email_recipients: [a], quiet_hours: { start: '11:00', end: '13:00', timezone: 'UTC' } });
  t.equal((await o.fire({ name: 'First', severity: 'critical' })).status, 200);
  vigil.clock.advance(10 * MINUTE);
  t.equal((await o.fire({ name: 'Second', severity: 'warning' })).status, 200);
  const held = await notices(o.id);
  t.same(held.map((r) => [r.status, new Date(r.send_after).toISOString(), r.batched]), [['pending', '2026-03-01T13:00:00.000Z', true], ['pending', '2026-03-01T13:00:00.000Z', true]]);
  vigil.clock.set('2026-03-01T12:59:59.000Z');
  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(mailTo(a).length, 0, 'nothing while quiet hours are in force');
  const listed = await o.agent.call('list_email_notices', {});
  t.notOk(listed.isError, JSON.stringify(listed.body));
  t.match(listed.body.data, [
    { event_type: 'alert.fired', status: 'pending', batched: true, send_after: '2026-03-01T13:00:00.000Z', sent_at: null, headline: /Second/ },
    { event_type: 'alert.fired', status: 'pending', batched: true, headline: /First/ },
  ], 'list_email_notices: newest first, held until 13:00');

  vigil.clock.set('2026-03-01T13:00:30.000Z');
  await runNoticePass(vigil.running.services);
  await waitFor(() => mailTo(a).length >= 1, 'the held email');
  await runNoticePass(vigil.running.services);
  await settle();
  const mails = mailTo(a);
  t.equal(mails.length, 1, 'sent together, once');
  t.equal(mails[0]!.subject, '[Vigil] 2 notifications (2 alert.fired)');
  t.match(mails[0]!.text, /First[\s\S]*Second/, 'oldest first');
  t.same((await notices(o.id)).map((r) => r.status), ['sent', 'sent']);
  const rest = await o.api.get(`${CONFIG}/email_notices?status=sent`);
  t.equal(rest.status, 200);
  t.match(rest.body.data, [{ status: 'sent', sent_at: '2026-03-01T13:00:30.000Z' }, { status: 'sent' }], 'also GET /api/v1/config/email_notices, filtered');
  t.same((await o.api.get(`${CONFIG}/email_notices?status=pending`)).body.data, []);
});

t.test('hourly digest: sent at the next full hour, once, with everything since', async (t) => {
  vigil.clock.set('2026-03-02T10:20:00.000Z');
  const a = address('hourly');
  const o = await org({ email_recipients: [a], digest: 'hourly' }, { auto_open_incidents: true });
  t.equal((await o.fire({ name: 'Latency', severity: 'critical' })).status, 200);
  vigil.clock.advance(30 * MINUTE);
  t.equal((await o.fire({ name: 'Errors', severity: 'critical' })).status, 200);
  const rows = await notices(o.id);
  t.same(rows.map((r) => new Date(r.send_after).toISOString()), Array(4).fill('2026-03-02T11:00:00.000Z'), 'each waits for 11:00');
  vigil.clock.set('2026-03-02T10:59:00.000Z');
  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(mailTo(a).length, 0, 'nothing before the hour');
  vigil.clock.set('2026-03-02T11:00:00.000Z');
  await runNoticePass(vigil.running.services);
  await waitFor(() => mailTo(a).length >= 1, 'the digest');
  await runNoticePass(vigil.running.services);
  await settle();
  t.same(mailTo(a).map((m) => m.subject), ['[Vigil] 4 notifications (2 alert.fired, 2 incident.opened)']);
  const [digest] = mailTo(a);
  t.match(digest!.html, /<li>.*Latency.*<\/li>/);
});

t.test('daily digest: at digest_hour on the organization\'s wall clock, across a daylight-saving change', async (t) => {
  // 2026-03-08 00:00 EST; New York moves to EDT at 02:00, so 08:00 that day is 12:00 UTC (13:00 the day before)
  vigil.clock.set('2026-03-08T05:00:00.000Z');
  const a = address('daily');
  const o = await org({ email_recipients: [a], digest: 'daily', digest_hour: 8 }, { timezone: 'America/New_York' });
  t.equal((await o.fire({ name: 'Overnight', severity: 'critical' })).status, 200);
  t.same((await notices(o.id)).map((r) => new Date(r.send_after).toISOString()), ['2026-03-08T12:00:00.000Z'], '08:00 EDT');
  vigil.clock.set('2026-03-08T11:59:00.000Z');
  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(mailTo(a).length, 0, 'not at 07:59 local');
  vigil.clock.set('2026-03-08T12:00:00.000Z');
  await runNoticePass(vigil.running.services);
  await waitFor(() => mailTo(a).length >= 1, 'the daily digest');
  t.same(mailTo(a).map((m) => m.subject), ['[Vigil] critical: Overnight'], 'a digest of one reads as that event');

  // the next event waits for tomorrow's 08:00 local
  t.equal((await o.fire({ name: 'Morning', severity: 'critical' })).status, 200);
  t.same((await notices(o.id)).map((r) => new Date(r.send_after).toISOString()), ['2026-03-08T12:00:00.000Z', '2026-03-09T12:00:00.000Z']);
});

t.test('a refusing SMTP server: tried again with backoff, then exactly one email; the password is in no stored error', async (t) => {
  vigil.clock.set('2026-03-10T09:00:00.000Z');
  const a = address('retry');
  const o = await org({ email_recipients: [a] });
  const refusedBefore = smtp.refused;
  smtp.refuseNext(2, { code: 451, reply: `try later (login vigil-mailer / ${PASSWORD})`, to: a });
  t.equal((await o.fire({ name: 'Flaky', severity: 'critical' })).status, 200);
  await waitFor(() => smtp.refused === refusedBefore + 1, 'the first refusal');
  await waitFor(async () => (await notices(o.id))[0]?.status === 'pending', 'the notice back to pending');
  let [row] = await notices(o.id);
  t.equal(row.attempts, 1);
  t.equal(new Date(row.send_after).toISOString(), '2026-03-10T09:01:00.000Z', 'tried again a minute later');
  t.match(row.last_error, /451/);
  t.notOk(row.last_error.includes(PASSWORD), 'the password is removed from the stored error');
  t.match(row.last_error, /\(removed\)/, 'where the server echoed it');

  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(smtp.refused, refusedBefore + 1, 'not before its wait');
  vigil.clock.set('2026-03-10T09:01:00.000Z');
  await runNoticePass(vigil.running.services);
  await waitFor(() => smtp.refused === refusedBefore + 2, 'the second refusal');
  await waitFor(async () => (await notices(o.id))[0]?.status === 'pending', 'pending again');
  [row] = await notices(o.id);
  t.equal(new Date(row.send_after).toISOString(), '2026-03-10T09:03:00.000Z', 'then two minutes');

  vigil.clock.set('2026-03-10T09:03:00.000Z');
  await runNoticePass(vigil.running.services);
  await waitFor(() => mailTo(a).length >= 1, 'the email once the server recovers');
  // the server has the email before the job records it: an hour passing before that would be a send interrupted
  await waitFor(async () => (await notices(o.id))[0]?.status === 'sent', 'the notice recorded sent');
  await runNoticePass(vigil.running.services);
  vigil.clock.advance(60 * MINUTE);
  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(mailTo(a).length, 1, 'exactly one email');
  [row] = await notices(o.id);
  t.match(row, { status: 'sent', attempts: 3, last_error: null });
  const listed = await o.agent.call('list_email_notices', {});
  t.match(listed.body.data, [{ status: 'sent', attempts: 3 }]);
  t.notOk(JSON.stringify(listed.body).includes(PASSWORD), 'the password appears in no answer');
  const metrics = await (await fetch(`${vigil.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  t.match(metrics, /vigil_delivery_attempts_total\{channel="email",outcome="failed"\} [1-9]/, 'GET /metrics counts the refused attempts');
  t.match(metrics, /vigil_delivery_attempts_total\{channel="email",outcome="sent"\} [1-9]/, 'and the sent ones');
});

t.test('a server that keeps refusing: failed after the last try, never mailed', async (t) => {
  vigil.clock.set('2026-03-11T09:00:00.000Z');
  const a = address('dead');
  const o = await org({ email_recipients: [a] });
  smtp.refuseNext(6, { code: 554, to: a });
  const refusedBefore = smtp.refused;
  t.equal((await o.fire({ name: 'Doomed', severity: 'critical' })).status, 200);
  for (let attempt = 1; attempt <= 6; attempt++) {
    await waitFor(() => smtp.refused === refusedBefore + attempt, `refusal ${attempt}`);
    await waitFor(async () => (await notices(o.id))[0]?.status !== 'sending', `attempt ${attempt} recorded`);
    vigil.clock.advance(31 * MINUTE);
    await runNoticePass(vigil.running.services);
  }
  await settle();
  const [row] = await notices(o.id);
  t.match(row, { status: 'failed', attempts: 6, last_error: /554/ });
  t.equal(mailTo(a).length, 0);
  t.equal(smtp.refused, refusedBefore + 6, 'no seventh try');
});

t.test('two sends at once mail held notices once', async (t) => {
  vigil.clock.set('2026-03-12T12:00:00.000Z');
  const a = address('race');
  const o = await org({ email_recipients: [a], quiet_hours: { start: '11:00', end: '13:00', timezone: 'UTC' } });
  t.equal((await o.fire({ name: 'One', severity: 'critical' }, { name: 'Two', severity: 'critical' }, { name: 'Three', severity: 'critical' })).status, 200);
  vigil.clock.set('2026-03-12T13:00:00.000Z');
  // straight to the send, as two instances' jobs would run it (no release pass queued one)
  const sent = await Promise.all([sendDueEmail(vigil.running.services, o.id), sendDueEmail(vigil.running.services, o.id)]);
  t.same(sent.sort(), [0, 1], 'one send claimed them, the other found nothing');
  await runNoticePass(vigil.running.services);
  await settle();
  t.equal(mailTo(a).length, 1);
  t.equal(mailTo(a)[0]!.subject, '[Vigil] 3 notifications (3 alert.fired)');
});

t.test('a disabled organization\'s email waits; a send that never finished is failed, not sent again', async (t) => {
  vigil.clock.set('2026-03-13T12:00:00.000Z');
  const a = address('disabled');
  const o = await org({ email_recipients: [a], quiet_hours: { start: '11:00', end: '13:00', timezone: 'UTC' } });
  t.equal((await o.fire({ name: 'Held', severity: 'critical' })).status, 200);
  t.equal((await vigil.operator.patch(`/api/admin/v1/organizations/${o.id}`, { disabled: true })).status, 200);
  vigil.clock.set('2026-03-13T13:00:00.000Z');
  await runNoticePass(vigil.running.services);
  t.equal(await sendDueEmail(vigil.running.services, o.id), 0, 'nothing claimed while disabled');
  await settle();
  t.equal(mailTo(a).length, 0);
  t.equal((await vigil.operator.patch(`/api/admin/v1/organizations/${o.id}`, { disabled: false })).status, 200);
  await runNoticePass(vigil.running.services);
  await waitFor(() => mailTo(a).length === 1, 'sent once enabled again');

  // a send whose instance stopped mid-way leaves its claim: the pass fails it after 30 minutes, never re-sends it
  const b = address('stuck');
  const p = await org({ email_recipients: [b], quiet_hours: { start: '13:00', end: '14:00', timezone: 'UTC' } });
  t.equal((await p.fire({ name: 'Stuck', severity: 'critical' })).status, 200);
  await sql()(`update email_notices set status = 'sending', claim_id = gen_random_uuid(), claimed_at = ?, attempts = 1 where organization_id = ?`, [new Date('2026-03-13T14:00:00.000Z'), p.id]);
  vigil.clock.set('2026-03-13T14:29:00.000Z');
  await runNoticePass(vigil.running.services);
  t.equal((await notices(p.id))[0].status, 'sending', 'a recent claim is left alone');
  vigil.clock.set('2026-03-13T14:31:00.000Z');
  await runNoticePass(vigil.running.services);
  await settle();
  t.match((await notices(p.id))[0], { status: 'failed', last_error: /interrupted/ });
  t.equal(mailTo(b).length, 0);
});

t.test('without SMTP configured nothing is recorded and nothing is queued', async (t) => {
  const plain = await startVigil();
  t.teardown(() => plain.close());
  const a = address('nosmtp');
  const o = await org({ email_recipients: [a] }, {}, plain);
  t.equal((await o.fire({ name: 'Unmailed', severity: 'critical' })).status, 200);
  const rows = await readStore(plain.running.services).execute('select count(*)::int as n from email_notices where organization_id = ?', [o.id]);
  t.equal(rows[0]!.n, 0);
  const jobs = await readStore(plain.running.services).execute(`select count(*)::int as n from pgboss.job where name = 'email.send'`, []);
  t.equal(jobs[0]!.n, 0);
  await runNoticePass(plain.running.services);
  await settle(plain);
  t.equal(mailTo(a).length, 0);
});
