/**
 * The console's My paging page over HTTP, as a browser without JavaScript sees it: a member adds contact methods (a
 * refusal redrawn with what was typed and the field named, nothing saved), verifies an email method with the code
 * mailed to it (a real SMTP server; a wrong code refused on the page), adds and deletes notification rules; another
 * person's methods never show, not even to an org admin (their own page; everyone's is under Configuration); a forged
 * form is refused; a viewer sees no forms.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { waitFor } from '../../helpers/jobs.ts';
import { startSmtp } from '../../helpers/smtp.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <vigil@acme.example>' } });
t.teardown(() => vigil.close());
const org = await vigil.organization('business');
const api = await org.key(['api:admin']);
const me = await person(vigil, { [org.id]: 'member' });
const admin = await person(vigil, { [org.id]: 'org_admin' });
const viewer = await person(vigil, { [org.id]: 'viewer' });
const web = browserless(vigil.url);
t.equal((await web.signIn(me.email, PASSWORD)).status, 303);
const methods = async () => (await api.get(`${CONFIG}/contact_methods`)).body.data as { id: string; email: string; address: string; verified: boolean }[];

t.test('contact methods: added, refused inline, verified by the mailed code', async (t) => {
  let page = await web.get('/paging');
  t.equal(page.status, 200);
  t.match(page.text, /<a href="\/paging" aria-current="page">My paging<\/a>/, 'in the navigation');
  t.notMatch(page.text, /<script/i, 'no script');
  const csrf = web.field(page.text, '_csrf');

  const forged = await web.post('/paging/methods', { _csrf: 'forged', type: 'email', name: 'work', address: 'me.work@example.com' });
  t.equal(forged.status, 403, 'a forged form is refused');
  const refused = await web.post('/paging/methods', { _csrf: csrf, type: 'sms', name: 'phone', address: '555-0100' });
  t.equal(refused.status, 422);
  t.match(refused.text, /role="alert"[\s\S]*<strong>address<\/strong>/, 'address is named');
  t.match(refused.text, 'value="555-0100"', 'what was typed is kept');
  t.match(refused.text, /<option value="sms" selected>/, 'and the type chosen');
  t.same(await methods(), [], 'nothing saved');
  const internal = await web.post('/paging/methods', { _csrf: csrf, type: 'ntfy', name: 'push', address: 'https://10.1.2.3/pages' });
  t.equal(internal.status, 422, 'an internal-network ntfy server is refused');

  const added = await web.post('/paging/methods', { _csrf: csrf, type: 'email', name: 'work', address: 'me.work@example.com' });
  t.equal(added.status, 303);
  t.equal(added.location, '/paging?saved=method');
  const [work] = await methods();
  t.equal(work?.email, me.email, 'owned by the person signed in');
  page = await web.get('/paging?saved=method');
  t.match(page.text, 'The contact method was added.');
  t.match(page.text, /<th scope="row">work<\/th>[\s\S]*<strong>Not verified<\/strong>/);

  t.equal((await web.post(`/paging/methods/${work!.id}/send`, { _csrf: csrf })).location, '/paging?saved=sent');
  await waitFor(() => smtp.messages.some((m) => m.to.includes('me.work@example.com')), 'the code mail');
  const code = /(\d{6})/.exec(smtp.messages.find((m) => m.to.includes('me.work@example.com'))!.text)![1]!;
  const wrong = await web.post(`/paging/methods/${work!.id}/verify`, { _csrf: csrf, code: code === '111111' ? '222222' : '111111' });
  t.equal(wrong.status, 422, 'a wrong code is refused on the page');
  t.match(wrong.text, /<strong>code<\/strong>: is wrong; 4 tries left/);
  const right = await web.post(`/paging/methods/${work!.id}/verify`, { _csrf: csrf, code });
  t.equal(right.location, '/paging?saved=verified');
  t.equal((await methods())[0]!.verified, true, 'verified');
  page = await web.get('/paging');
  t.match(page.text, /<th scope="row">work<\/th>[\s\S]*?<td>Verified<\/td>/);

  const sms = await web.post('/paging/methods', { _csrf: csrf, type: 'sms', name: 'phone', address: '+44 20 7183 8750' });
  t.equal(sms.status, 303);
  const phone = (await methods()).find((m) => m.address === '+442071838750');
  t.ok(phone, 'stored in E.164 form');
  const noProvider = await web.post(`/paging/methods/${phone!.id}/send`, { _csrf: csrf });
  t.equal(noProvider.status, 422);
  t.match(noProvider.text, 'no SMS provider configured');
});

t.test('notification rules, and only my own rows', async (t) => {
  const page = await web.get('/paging');
  const csrf = web.field(page.text, '_csrf');
  const [work] = await methods();
  const badDelay = await web.post('/paging/rules', { _csrf: csrf, contact_method_id: work!.id, delay_minutes: '-5', urgency: 'high' });
  t.equal(badDelay.status, 422);
  t.match(badDelay.text, /<strong>delay_minutes<\/strong>/);
  t.match(badDelay.text, 'value="-5"', 'what was typed is kept');
  const ok = await web.post('/paging/rules', { _csrf: csrf, contact_method_id: work!.id, delay_minutes: '3', urgency: 'low' });
  t.equal(ok.location, '/paging?saved=rule');
  const rules = (await api.get(`${CONFIG}/notification_rules`)).body.data;
  t.same(rules.map((r: { email: string; delay_minutes: number; urgency: string }) => [r.email, r.delay_minutes, r.urgency]), [[me.email, 3, 'low']]);

  // someone else's method: not on my page, not deletable from it
  const theirs = await api.post(`${CONFIG}/contact_methods`, { email: admin.email, type: 'ntfy', name: 'admin push', address: 'https://ntfy.example.com/admin' });
  t.notMatch((await web.get('/paging')).text, 'admin push', 'another person\'s method is not shown');
  t.equal((await web.post(`/paging/methods/${theirs.body.data.id}/delete`, { _csrf: csrf })).status, 404, 'nor deleted from here');
  const foreignRule = await web.post('/paging/rules', { _csrf: csrf, contact_method_id: theirs.body.data.id, delay_minutes: '0', urgency: 'high' });
  t.equal(foreignRule.status, 422, 'nor used in my rules');
  t.match(foreignRule.text, /<strong>contact_method_id<\/strong>/);

  const adminWeb = browserless(vigil.url);
  await adminWeb.signIn(admin.email, PASSWORD);
  const adminPage = await adminWeb.get('/paging');
  t.match(adminPage.text, 'admin push');
  t.notMatch(adminPage.text, 'me.work@example.com', 'an org admin\'s My paging holds their own only');

  const used = await web.post(`/paging/methods/${work!.id}/delete`, { _csrf: csrf });
  t.equal(used.status, 422, 'a method a rule uses is not deleted');
  t.equal((await web.post(`/paging/rules/${rules[0].id}/delete`, { _csrf: csrf })).location, '/paging?saved=deleted');
  t.equal((await web.post(`/paging/methods/${work!.id}/delete`, { _csrf: csrf })).location, '/paging?saved=deleted');
  t.notOk((await methods()).some((m) => m.id === work!.id), 'deleted');

  const viewerWeb = browserless(vigil.url);
  await viewerWeb.signIn(viewer.email, PASSWORD);
  const viewerPage = await viewerWeb.get('/paging');
  t.equal(viewerPage.status, 200);
  t.notMatch(viewerPage.text, '<form method="post" action="/paging', 'a viewer sees no forms');
});
