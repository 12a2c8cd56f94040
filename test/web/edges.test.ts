/**
 * The edges a red team tried (issue 35, hole 6): the API reference page's headers, a not-found answer in the
 * asker's language (an HTML page to a browser, JSON to an API client), HSTS when the service is reached over https,
 * `/status/<slug>/` with a trailing slash, and emails no mail system delivers refused wherever one is accepted.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { seedStatusPage } from '../helpers/status-page.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

t.test('the API reference page is framed by no one, not sniffed and sends no referrer', async (t) => {
  const page = await fetch(`${vigil.url}${CONFIG}/docs`);
  t.equal(page.status, 200);
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer');
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
});

t.test('an unknown page answers an HTML 404 to a browser and JSON to an API client', async (t) => {
  const browser = await fetch(`${vigil.url}/no/such/page`, { headers: { accept: BROWSER_ACCEPT } });
  t.equal(browser.status, 404);
  t.match(browser.headers.get('content-type'), /^text\/html/);
  t.match(await browser.text(), /<title>Not found/);
  t.equal(browser.headers.get('x-content-type-options'), 'nosniff');
  t.match(browser.headers.get('content-security-policy'), /default-src 'none'.*frame-ancestors 'none'/);
  for (const accept of [undefined, '*/*', 'application/json']) {
    const api = await fetch(`${vigil.url}/no/such/page`, { headers: accept ? { accept } : {} });
    t.equal(api.status, 404, `Accept: ${accept}`);
    t.match(await api.json(), { error: 'not_found' });
  }
  const post = await fetch(`${vigil.url}/no/such/page`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
  t.match(await post.json(), { error: 'not_found' }, 'a write to nowhere stays JSON');
});

t.test('HSTS only when PUBLIC_URL is https', async (t) => {
  for (const path of ['/healthz', '/login', `${CONFIG}/docs`, '/no/such/page']) {
    t.equal((await fetch(`${vigil.url}${path}`)).headers.get('strict-transport-security'), null, `not over http: ${path}`);
  }
  const secure = await startVigil({ publicUrl: 'https://vigil.example.com' });
  t.teardown(() => secure.close());
  for (const path of ['/healthz', '/login', `${CONFIG}/docs`, '/no/such/page', `${CONFIG}/alerts`]) {
    t.equal((await fetch(`${secure.url}${path}`)).headers.get('strict-transport-security'), 'max-age=31536000', path);
  }
});

t.test('/status/<slug>/ redirects to /status/<slug>, where the relative links resolve', async (t) => {
  await seedStatusPage(vigil, 'acme-edges');
  const slashed = await fetch(`${vigil.url}/status/acme-edges/?refresh=60`, { redirect: 'manual' });
  t.equal(slashed.status, 301);
  t.equal(slashed.headers.get('location'), '/status/acme-edges?refresh=60');
  const page = await fetch(`${vigil.url}/status/acme-edges`);
  t.equal(page.status, 200);
  t.match(await page.text(), 'href="acme-edges/feed.rss"', 'relative to /status/');
  t.equal((await fetch(`${vigil.url}/status/acme-edges/feed.rss`)).status, 200, 'that link is the feed');
});

// what no mail system delivers, and a few that look odd but are delivered every day
const REFUSED = [
  '"<svg/onload=alert(1)>"@x', '"<svg/onload=alert(1)>"@example.com', '"quoted"@example.com', '<a@example.com>',
  'a@example', 'a@@example.com', 'a b@example.com', 'a\u0007@example.com', 'a\n@example.com', '.a@example.com',
  'a..b@example.com', 'a@-example.com', 'a@example..com', 'a@[127.0.0.1]', `${'a'.repeat(65)}@example.com`, 'a,b@example.com',
];
const ACCEPTED = ['dana.ortiz+oncall@example.co.uk', "o'brien@example.com", 'x_y-z@mail.example.com'];

t.test('the operator API refuses emails no mail system delivers, naming the field', async (t) => {
  for (const email of REFUSED) {
    const made = await vigil.operator.post('/api/admin/v1/users', { email });
    t.equal(made.status, 422, JSON.stringify(email));
    t.match(made.body.errors, [{ field: 'email' }]);
  }
  for (const email of ACCEPTED) t.equal((await vigil.operator.post('/api/admin/v1/users', { email })).status, 201, email);
});

t.test('the configuration API refuses them too: team members, teams, notification recipients', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const email of REFUSED.slice(0, 6)) {
    const member = await api.post(`${CONFIG}/team_members`, { email, role: 'member' });
    t.equal(member.status, 422, `team_members ${JSON.stringify(email)}`);
    t.match(member.body.errors, [{ field: 'email' }]);
    const settings = await api.put(`${CONFIG}/notification_settings`, { email_recipients: [email] });
    t.equal(settings.status, 422, `notification_settings ${JSON.stringify(email)}`);
    t.match(settings.body.errors, [{ field: /^email_recipients/ }]);
  }
  t.equal((await api.put(`${CONFIG}/notification_settings`, { email_recipients: ACCEPTED })).status, 200);
});
