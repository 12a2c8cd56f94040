/**
 * Console sign-in over plain HTTP, as a browser without JavaScript sends it: the operator's password and sign-in link
 * calls and their refusals, the form and where it may send the browser next, and every way a
 * session ends (sign-out, idle time on the injected clock, a password change, removal, a disabled organization).
 */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const org = await vigil.organization('business');
const ADMIN = '/api/admin/v1';

t.test('the operator sets a password: at least 12 characters, only for a user that exists', async (t) => {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: 'pw-rules@example.com' });
  const short = await vigil.operator.put(`${ADMIN}/users/${user.body.id}/password`, { password: 'elevenchars' });
  t.equal(short.status, 422);
  t.match(short.body.errors, [{ field: 'password', message: /at least 12/ }]);
  t.notOk(JSON.stringify(short.body).includes('elevenchars'), 'the refused password is not echoed');
  const extra = await vigil.operator.put(`${ADMIN}/users/${user.body.id}/password`, { password: 'long enough password', hash: 'x' });
  t.equal(extra.status, 422);
  t.match(extra.body.errors, [{ field: 'hash' }]);
  const missing = await vigil.operator.put(`${ADMIN}/users/00000000-0000-4000-8000-000000000000/password`, { password: 'long enough password' });
  t.equal(missing.status, 404);
  const ok = await vigil.operator.put(`${ADMIN}/users/${user.body.id}/password`, { password: 'long enough password' });
  t.equal(ok.status, 204);
  const noToken = await fetch(`${vigil.url}${ADMIN}/users/${user.body.id}/password`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"password":"long enough password"}' });
  t.equal(noToken.status, 401, 'the operator token is required');
});

t.test('a good sign-in answers 303 to next with an HttpOnly, SameSite=Lax session cookie; the session works', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const web = browserless(vigil.url);
  const page = await web.get('/login?next=%2Fdeliveries');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.notMatch(page.headers.get('content-security-policy'), /unsafe-inline/);
  const signed = await web.signIn(p.email, PASSWORD, '/deliveries');
  t.equal(signed.status, 303);
  t.equal(signed.location, '/deliveries');
  const cookie = signed.headers.getSetCookie().find((c) => c.startsWith('vigil_session='))!;
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Lax/);
  t.notMatch(cookie, /Secure/, 'not Secure over http');
  t.equal((await web.get('/deliveries')).status, 200);
  const home = await web.get('/');
  t.equal(home.status, 303);
  t.equal(home.location, '/now', 'the landing page is Now');
});

t.test('a bad sign-in says so without telling which field was wrong', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const wrongPassword = await browserless(vigil.url).signIn(p.email, 'not the password at all');
  const unknownEmail = await browserless(vigil.url).signIn('nobody-here@example.com', PASSWORD);
  const noPasswordUser = (await vigil.operator.post(`${ADMIN}/users`, { email: 'no-password@example.com' })).body;
  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${noPasswordUser.id}`, { role: 'member' });
  const noPassword = await browserless(vigil.url).signIn('no-password@example.com', PASSWORD);
  for (const answer of [wrongPassword, unknownEmail, noPassword]) {
    t.equal(answer.status, 401);
    t.match(answer.text, 'That email and password do not match an account.');
    t.notOk(answer.headers.getSetCookie().some((c) => c.startsWith('vigil_session=')), 'no session');
  }
  t.notOk(wrongPassword.text.includes('not the password at all'), 'the password is not echoed');
});

t.test('next= is a path on this service only', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const cases: [string, string][] = [
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['\\\\evil.example', '/'],
    ['/board\\..\\x', '/'],
    ['javascript:alert(1)', '/'],
    ['/\t/evil.example', '/'],
    ['/board\n/x', '/'],
    // dot segments that normalise into a host (issue 35)
    ['/.//evil.example/phish.html', '/'],
    ['/board/../..//evil.example/phish.html', '/'],
    ['/board/%2e%2e/%2e%2e//evil.example', '/'],
    ['/./\\evil.example', '/'],
    // encoded separators, which a proxy in front may decode
    ['/%2F%2Fevil.example', '/'],
    ['/%2fevil.example', '/'],
    ['/%5Cevil.example', '/'],
    ['/board/%2F..%2F..%2F%2Fevil.example', '/'],
    ['http://127.0.0.1:1/board', '/'],
    ['/board/MO-1?x=1', '/board/MO-1?x=1'],
    ['/board/./MO-1', '/board/MO-1'],
  ];
  for (const [next, expected] of cases) {
    const web = browserless(vigil.url);
    const page = await web.get(`/login?next=${encodeURIComponent(next)}`);
    // the form as posted by a forger who edits the hidden field too
    const signed = await web.post('/login', { _form: web.field(page.text, '_form'), next, email: p.email, password: PASSWORD });
    t.equal(signed.status, 303, next);
    t.equal(signed.location, expected, `next=${JSON.stringify(next)} goes to ${expected}`);
  }
});

t.test('signed in, GET /login?next= never sends the browser to another host (issue 35)', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const web = browserless(vigil.url);
  t.equal((await web.signIn(p.email, PASSWORD)).status, 303);
  for (const next of ['/.//evil.example/phish.html', '/board/../..//evil.example/phish.html', '/%2F%2Fevil.example', '/./\\evil.example', '/\t/evil.example']) {
    const answer = await web.get(`/login?next=${encodeURIComponent(next)}`);
    t.equal(answer.status, 303, next);
    t.equal(answer.location, '/', `next=${JSON.stringify(next)} goes home`);
  }
  const kept = await web.get(`/login?next=${encodeURIComponent('/deliveries?page=2')}`);
  t.equal(kept.location, '/deliveries?page=2', 'a path on this service is kept');
});

t.test('a planted form cookie cannot sign a victim in (issue 35)', async (t) => {
  const attacker = await person(vigil, { [org.id]: 'member' });
  const post = (cookie: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${vigil.url}/login`, {
      method: 'POST', redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  // a sibling subdomain (or a network attacker on http) sets a value of its choosing, and a cross-site form posts it
  const planted = 'planted-by-the-attacker-0123456789';
  const forged = await post(`vigil_form=${planted}`, { _form: planted, email: attacker.email, password: PASSWORD });
  t.equal(forged.status, 403, 'an unsigned cookie is refused');
  t.notOk(forged.headers.getSetCookie().some((c) => c.startsWith('vigil_session=')), 'no session');
  const badMac = await post(`vigil_form=${planted}.${'A'.repeat(43)}`, { _form: planted, email: attacker.email, password: PASSWORD });
  t.equal(badMac.status, 403, 'a cookie with a forged signature is refused');

  // the sign-in page does not adopt a planted cookie: it replaces it
  const page = await fetch(`${vigil.url}/login`, { headers: { cookie: `vigil_form=${planted}` } });
  const text = await page.text();
  t.notOk(text.includes(planted), 'the form does not carry the planted value');
  t.ok(page.headers.getSetCookie().some((c) => c.startsWith('vigil_form=') && !c.startsWith(`vigil_form=${planted}`)), 'a signed cookie replaces it');

  // a valid pair the attacker fetched for themselves, planted and posted from another site or a sibling subdomain
  const own = browserless(vigil.url);
  const ownPage = await own.get('/login');
  const pair = { cookie: `vigil_form=${own.cookies.get('vigil_form')}`, token: own.field(ownPage.text, '_form') };
  for (const site of ['cross-site', 'same-site']) {
    const sent = await post(pair.cookie, { _form: pair.token, email: attacker.email, password: PASSWORD }, { 'sec-fetch-site': site, origin: 'http://evil.example' });
    t.equal(sent.status, 403, `a sign-in posted ${site} is refused`);
  }
  t.equal((await post(pair.cookie, { _form: pair.token, email: attacker.email, password: PASSWORD }, { 'sec-fetch-site': 'same-origin' })).status, 303, 'the same pair from this origin signs in');
});

t.test('over https the form cookie is __Host-vigil_form: Secure, Path=/, no Domain', async (t) => {
  const secure = await startVigil({ publicUrl: 'https://vigil.example.com' });
  t.teardown(() => secure.close());
  const secureOrg = await secure.organization('business');
  const p = await person(secure, { [secureOrg.id]: 'member' });
  const web = browserless(secure.url);
  const page = await web.get('/login');
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('__Host-vigil_form='))!;
  t.ok(cookie, 'the prefixed name');
  t.match(cookie, /; Secure/);
  t.match(cookie, /Path=\//);
  t.notMatch(cookie, /Domain=/i);
  // a sibling subdomain can only set the unprefixed name: it does not count
  const value = web.cookies.get('__Host-vigil_form')!;
  const sibling = await fetch(`${secure.url}/login`, {
    method: 'POST', redirect: 'manual',
    headers: { cookie: `vigil_form=${value}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _form: web.field(page.text, '_form'), email: p.email, password: PASSWORD }).toString(),
  });
  t.equal(sibling.status, 403);
  t.equal((await web.signIn(p.email, PASSWORD)).status, 303, 'the prefixed cookie signs in');
});

t.test('the sign-in form needs its own token (login CSRF)', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const web = browserless(vigil.url);
  await web.get('/login');
  const forged = await web.post('/login', { _form: 'forged-token-forged-token', email: p.email, password: PASSWORD });
  t.equal(forged.status, 403);
  const bare = await browserless(vigil.url).post('/login', { email: p.email, password: PASSWORD });
  t.equal(bare.status, 403, 'no cookie, no token');
  const json = await fetch(`${vigil.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: p.email, password: PASSWORD }) });
  t.equal(json.status, 415, 'only forms are read');
});
