/**
 * Subscribing to a public status page by email, end to end through its forms and a real SMTP server on 127.0.0.1
 * (test/helpers/smtp.ts): double opt-in (one confirmation, nothing more until it is followed; an expired or made-up
 * link confirms nothing; one confirmation per address per 15 minutes), notices of incidents and maintenance with
 * RFC 8058 headers (a window's start and end once each, its pass run by hand with the injected clock), the one-click
 * unsubscribe, the org admins' list and delete, and no address on any public page.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { drainJobs, waitFor } from '../helpers/jobs.ts';
import { startSmtp, type Mail } from '../helpers/smtp.ts';
import { runWindowNotices } from '../../domain/status-page/window-notices.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Acme status <status@acme.example>' } });
t.teardown(() => vigil.close());
const MINUTE = 60_000;

const org = await vigil.organization();
const api = await org.key(['api:admin']);
const published = await api.put(`${CONFIG}/status_page_settings`, { title: 'Acme status', slug: 'acme-subs', public: true });
if (published.status !== 200) throw new Error(JSON.stringify(published.body));
const component = (await api.post(`${CONFIG}/status_page_components`, { display_name: 'Checkout' })).body.data;

const form = (path: string, fields: Record<string, string>) =>
  fetch(`${vigil.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields), redirect: 'manual' })
    .then(async (res) => ({ status: res.status, text: await res.text(), headers: res.headers }));
const get = (path: string) => fetch(`${vigil.url}${path}`).then(async (res) => ({ status: res.status, text: await res.text() }));
const mailTo = (to: string): Mail[] => smtp.messages.filter((m) => m.to.includes(to));
const settle = () => drainJobs(vigil.running.services);
const linkIn = (mail: Mail, path: string) => {
  const found = new RegExp(`https?://[^\\s"<>]+/status/acme-subs/${path}\\?token=[^\\s"<>]+`).exec(mail.text)?.[0];
  if (!found) throw new Error(`no ${path} link in ${mail.text}`);
  return new URL(found);
};

const ALICE = 'alice@example.com';

t.test('the page offers the form; a subscribe answers the same for a new, a repeated and a known address', async (t) => {
  const page = await get('/status/acme-subs');
  t.match(page.text, '<form method="post" action="acme-subs/subscribe"');
  const first = await form('/status/acme-subs/subscribe', { email: 'Alice@Example.com' });
  t.equal(first.status, 200);
  t.match(first.text, /Check your inbox/);
  t.equal(first.headers.get('cache-control'), 'no-store');
  await waitFor(() => mailTo(ALICE).length === 1, 'the confirmation');
  const again = await form('/status/acme-subs/subscribe', { email: ALICE });
  t.same([again.status, again.text], [first.status, first.text], 'a repeat answers the same');
  await settle();
  t.equal(mailTo(ALICE).length, 1, 'a repeat within 15 minutes mails nothing: a forged form can only cost one confirmation');
  const mail = mailTo(ALICE)[0]!;
  t.match(mail.subject, 'Confirm your subscription to Acme status');
  t.equal(mail.headers['list-unsubscribe'], undefined, 'a confirmation request is not a list message');

  // before confirming, nothing is sent
  await api.post(`${CONFIG}/status_page_incidents`, { title: 'Too early', message: 'not for pending subscribers' });
  await settle();
  t.equal(mailTo(ALICE).length, 1, 'a pending subscriber is told nothing');

  // the link shows a button; a GET alone (a mail scanner) confirms nothing
  const link = linkIn(mail, 'confirm');
  const shown = await get(`${link.pathname}${link.search}`);
  t.equal(shown.status, 200);
  t.match(shown.text, /Confirm the subscription/);
  t.equal((await form(link.pathname, { token: 'spc_madeupmadeupmadeupmadeup' })).status, 400, 'a made-up token confirms nothing');
  const confirmed = await form(link.pathname, { token: link.searchParams.get('token')! });
  t.equal(confirmed.status, 200);
  t.match(confirmed.text, /You are subscribed/);
  t.equal((await form(link.pathname, { token: link.searchParams.get('token')! })).status, 400, 'a used link does not work twice');
  // once subscribed, another request mails nothing
  vigil.clock.advance(20 * MINUTE);
  await form('/status/acme-subs/subscribe', { email: ALICE });
  await settle();
  t.equal(mailTo(ALICE).length, 1);
});

t.test('notices of incidents and maintenance carry the one-click unsubscribe, which works once', async (t) => {
  const before = mailTo(ALICE).length;
  const incident = (await api.post(`${CONFIG}/status_page_incidents`, { title: 'Checkout <errors>', message: 'We are looking.', component_ids: [component.id] })).body.data;
  await waitFor(() => mailTo(ALICE).length === before + 1, 'the incident notice');
  let notice = mailTo(ALICE).at(-1)!;
  t.equal(notice.subject, '[Acme status] New incident: Checkout <errors>');
  t.match(notice.text, /Affects: Checkout/);
  t.match(notice.text, /We are looking\./);
  t.match(notice.html, 'Checkout &#60;errors&#62;');
  t.notMatch(notice.html, '<errors>', 'escaped in the HTML part');
  t.match(notice.headers['list-unsubscribe'], /^<http.+\/status\/acme-subs\/unsubscribe\?token=.+>$/);
  t.equal(notice.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');

  await api.put(`${CONFIG}/status_page_incidents/${incident.id}`, { impact: 'major' });
  await api.put(`${CONFIG}/status_page_incidents/${incident.id}`, { status: 'resolved', message: 'Fixed.' });
  await waitFor(() => mailTo(ALICE).length === before + 2, 'the resolution notice');
  await settle();
  t.same(mailTo(ALICE).slice(before).map((m) => m.subject), ['[Acme status] New incident: Checkout <errors>', '[Acme status] Incident resolved: Checkout <errors>'],
    'an edit that posts nothing to the timeline mails nothing');

  await api.post(`${CONFIG}/status_page_maintenances`, { title: 'Database upgrade', component_ids: [component.id], starts_at: '2026-03-05T02:00:00Z', ends_at: '2026-03-05T03:00:00Z' });
  await waitFor(() => mailTo(ALICE).length === before + 3, 'the maintenance notice');
  notice = mailTo(ALICE).at(-1)!;
  t.equal(notice.subject, '[Acme status] Maintenance scheduled: Database upgrade');
  t.match(notice.text, /From 2026-03-05 02:00 UTC to 2026-03-05 03:00 UTC/);

  // RFC 8058: a POST to the List-Unsubscribe URL with List-Unsubscribe=One-Click
  const url = new URL(notice.headers['list-unsubscribe']!.slice(1, -1));
  const forged = new URL(url);
  forged.searchParams.set('token', `${url.searchParams.get('token')!.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
  t.equal((await form(`${forged.pathname}${forged.search}`, { 'List-Unsubscribe': 'One-Click' })).status, 400, 'a forged MAC unsubscribes nobody');
  t.equal((await api.get(`${CONFIG}/status_page_subscribers`)).body.data.length, 1);
  const done = await form(`${url.pathname}${url.search}`, { 'List-Unsubscribe': 'One-Click' });
  t.equal(done.status, 200);
  t.match(done.text, /You are unsubscribed/);
  await api.post(`${CONFIG}/status_page_incidents`, { title: 'After', message: 'nobody hears this' });
  await settle();
  t.equal(mailTo(ALICE).length, before + 3, 'nothing after unsubscribing');
  t.same((await api.get(`${CONFIG}/status_page_subscribers`)).body.data, []);
});

t.test('two requests for one address at once mail one confirmation', async (t) => {
  const carol = 'carol@example.com';
  const answers = await Promise.all([form('/status/acme-subs/subscribe', { email: carol }), form('/status/acme-subs/subscribe', { email: 'CAROL@example.com' })]);
  t.same(answers.map((a) => a.status), [200, 200]);
  await waitFor(() => mailTo(carol).length >= 1, 'the confirmation');
  await settle();
  t.equal(mailTo(carol).length, 1);
  const pending = (await api.get(`${CONFIG}/status_page_subscribers?status=pending`)).body.data;
  t.equal(pending.filter((s: { email: string }) => s.email === carol).length, 1, 'one row, lowercased');
  await api.post(`${CONFIG}/status_page_subscribers/${pending.find((s: { email: string }) => s.email === carol).id}/delete`, {});
});

t.test('a window\'s start and end are told once each, however many passes run', async (t) => {
  const dave = 'dave@example.com';
  await form('/status/acme-subs/subscribe', { email: dave });
  await waitFor(() => mailTo(dave).length === 1, 'the confirmation');
  const link = linkIn(mailTo(dave)[0]!, 'confirm');
  t.equal((await form(link.pathname, { token: link.searchParams.get('token')! })).status, 200);
  const start = new Date(vigil.clock.now().getTime() + 10 * MINUTE);
  const end = new Date(start.getTime() + 30 * MINUTE);
  await api.post(`${CONFIG}/status_page_maintenances`, { title: 'Index rebuild', message: 'Search may be slow.', component_ids: [component.id], starts_at: start.toISOString(), ends_at: end.toISOString() });
  await waitFor(() => mailTo(dave).length === 2, 'scheduled');
  const services = vigil.running.services;
  t.equal(await runWindowNotices(services), 0, 'nothing before the start');
  vigil.clock.set(start);
  const passes = await Promise.all([runWindowNotices(services), runWindowNotices(services)]);
  t.equal(passes[0] + passes[1], 1, 'two passes at once claim the start once');
  t.equal(await runWindowNotices(services), 0, 'a later pass sends it no more');
  vigil.clock.set(end);
  t.equal(await runWindowNotices(services), 1);
  await settle();
  t.same(mailTo(dave).slice(1).map((m) => m.subject), [
    '[Acme status] Maintenance scheduled: Index rebuild', '[Acme status] Maintenance started: Index rebuild', '[Acme status] Maintenance completed: Index rebuild',
  ]);
  t.ok(mailTo(dave).slice(1).every((m) => m.headers['list-unsubscribe-post'] === 'List-Unsubscribe=One-Click'));
  const subscriber = (await api.get(`${CONFIG}/status_page_subscribers?status=confirmed`)).body.data.find((x: { email: string }) => x.email === dave);
  await api.post(`${CONFIG}/status_page_subscribers/${subscriber.id}/delete`, {});
});

t.test('a confirmation link ends after 48 hours', async (t) => {
  const bob = 'bob@example.com';
  await form('/status/acme-subs/subscribe', { email: bob });
  await waitFor(() => mailTo(bob).length === 1, 'the confirmation');
  const link = linkIn(mailTo(bob)[0]!, 'confirm');
  vigil.clock.advance(48 * 60 * MINUTE);
  t.equal((await form(link.pathname, { token: link.searchParams.get('token')! })).status, 400);
  const listed = (await api.get(`${CONFIG}/status_page_subscribers?status=pending`)).body.data;
  t.match(listed, [{ email: bob, status: 'pending', confirmed_at: null }]);
});

t.test('refusals: a malformed address names the field; no page, no form; the list is the org admins\' only', async (t) => {
  for (const email of ['', 'not-an-address', 'a@b', 'x'.repeat(250) + '@example.com', 'a b@example.com', 'a@example.com\r\nBcc: evil@example.com']) {
    const answer = await form('/status/acme-subs/subscribe', { email });
    t.equal(answer.status, 400, JSON.stringify(email));
    t.match(answer.text, /email must be an email address/);
  }
  t.equal((await form('/status/nobody-here/subscribe', { email: 'c@example.com' })).status, 404);
  const json = await fetch(`${vigil.url}/status/acme-subs/subscribe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"c@example.com"}' });
  t.equal(json.status, 415);
  const member = await org.key(['api:config_read']);
  t.equal((await member.get(`${CONFIG}/status_page_subscribers`)).status, 403, 'addresses are for org admins only');
  const listed = (await api.get(`${CONFIG}/status_page_subscribers`)).body.data;
  for (const path of ['/status/acme-subs', '/status/acme-subs.json', '/status/acme-subs/feed.atom', '/status/acme-subs/feed.rss']) {
    const text = (await get(path)).text;
    for (const s of listed) t.notOk(text.includes(s.email), `${path} shows no address`);
  }
  const gone = await api.post(`${CONFIG}/status_page_subscribers/${listed[0].id}/delete`, {});
  t.equal(gone.status, 200);
  t.equal((await api.post(`${CONFIG}/status_page_subscribers/${listed[0].id}/delete`, {})).status, 404);
  t.same((await api.get(`${CONFIG}/status_page_subscribers`)).body.data, []);
});
