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
  t.equal(home.location, '/board');
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
