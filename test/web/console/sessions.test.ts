/**
 * How console sessions end, over plain HTTP: sign-out, idle time (the injected clock), a password change, removal
 * from the organization, a disabled organization; and the sign-in link where a person chooses a password (one use,
 * 24 hours). A session that ended sends the next page view to the sign-in form.
 */
import t, { type Test } from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';
import { SESSION_IDLE_MINUTES, SESSION_MAX_HOURS } from '../../../engine/auth/sessions.ts';
import { routeOf } from '../../../engine/observability/routes.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';

async function signedIn(t: Test, orgId: string, role: 'viewer' | 'member' | 'org_admin' = 'member') {
  const p = await person(vigil, { [orgId]: role });
  const web = browserless(vigil.url);
  t.equal((await web.signIn(p.email, PASSWORD)).status, 303, 'signed in');
  t.equal((await web.get('/board')).status, 200, 'the board opens');
  return { p, web };
}

const endedAt = async (t: Test, web: ReturnType<typeof browserless>, why: string) => {
  const page = await web.get('/board');
  t.equal(page.status, 303, why);
  t.equal(page.location, '/login?next=%2Fboard', 'to the sign-in form, coming back to the page');
};

t.test('sign-out ends the session on the server: the same cookie no longer works', async (t) => {
  const org = await vigil.organization('business');
  const { web } = await signedIn(t, org.id);
  const stolen = web.cookies.get('vigil_session')!;
  const out = await web.post('/logout', { _csrf: await web.csrf() });
  t.equal(out.status, 303);
  t.equal(out.location, '/login');
  t.match(out.headers.getSetCookie().join(), /vigil_session=; .*Max-Age=0/);
  const replay = await fetch(`${vigil.url}/board`, { headers: { cookie: `vigil_session=${stolen}` }, redirect: 'manual' });
  t.equal(replay.status, 303, 'the old cookie sent again is signed out');
});

t.test('a forged sign-out (no CSRF token) is refused and the session goes on', async (t) => {
  const org = await vigil.organization('business');
  const { web } = await signedIn(t, org.id);
  t.equal((await web.post('/logout', {})).status, 403);
  t.equal((await web.get('/board')).status, 200);
});

t.test('a session ends after the documented idle time, not before', async (t) => {
  const org = await vigil.organization('business');
  const { web } = await signedIn(t, org.id);
  vigil.clock.advance((SESSION_IDLE_MINUTES - 1) * 60_000);
  t.equal((await web.get('/board')).status, 200, 'a minute short of the idle time: still signed in (and the clock restarts)');
  vigil.clock.advance((SESSION_IDLE_MINUTES - 1) * 60_000);
  t.equal((await web.get('/board')).status, 200, 'used again in time: still signed in');
  vigil.clock.advance(SESSION_IDLE_MINUTES * 60_000 + 1000);
  await endedAt(t, web, 'idle past the limit: signed out');
});

t.test('however active, a session ends a week after sign-in', async (t) => {
  const org = await vigil.organization('business');
  const { web } = await signedIn(t, org.id);
  const step = (SESSION_IDLE_MINUTES - 60) * 60_000;
  let used = 0;
  while (used + step < SESSION_MAX_HOURS * 3_600_000) {
    vigil.clock.advance(step);
    used += step;
    if ((await web.get('/board')).status !== 200) break;
  }
  t.equal((await web.get('/board')).status, 200, 'used within the idle time all week: still signed in');
  vigil.clock.advance(SESSION_MAX_HOURS * 3_600_000 - used + 1000);
  await endedAt(t, web, 'past a week since sign-in: signed out');
});

t.test('a password change ends every session of the user', async (t) => {
  const org = await vigil.organization('business');
  const { p, web } = await signedIn(t, org.id);
  t.equal((await vigil.operator.put(`${ADMIN}/users/${p.id}/password`, { password: 'another long password' })).status, 204);
  await endedAt(t, web, 'signed out at once');
  t.equal((await browserless(vigil.url).signIn(p.email, PASSWORD)).status, 401, 'the old password no longer works');
  t.equal((await browserless(vigil.url).signIn(p.email, 'another long password')).status, 303, 'the new one does');
});

t.test('removal from the organization ends the session there', async (t) => {
  const org = await vigil.organization('business');
  const { p, web } = await signedIn(t, org.id);
  t.equal((await vigil.operator.del(`${ADMIN}/organizations/${org.id}/members/${p.id}`)).status, 204);
  await endedAt(t, web, 'signed out at once');
  const again = await browserless(vigil.url).signIn(p.email, PASSWORD);
  t.equal(again.status, 403, 'a person in no organization cannot open a session');
  t.match(again.text, /not a member of any enabled organization/);
});

t.test('disabling the organization ends its sessions', async (t) => {
  const org = await vigil.organization('business');
  const { web } = await signedIn(t, org.id);
  t.equal((await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, { disabled: true })).status, 200);
  await endedAt(t, web, 'signed out at once');
});

t.test('a sign-in link: the person chooses a password once, within 24 hours', async (t) => {
  const org = await vigil.organization('business');
  const user = (await vigil.operator.post(`${ADMIN}/users`, { email: 'link-user@example.com' })).body;
  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.id}`, { role: 'member' });
  const made = await vigil.operator.post(`${ADMIN}/users/${user.id}/sign_in_link`);
  t.equal(made.status, 201);
  t.match(made.body, { url: new RegExp(`^${vigil.url}/sign-in/vigil_si_`), expires_at: '2026-' });
  t.equal(new Date(made.body.expires_at).getTime() - vigil.clock.now().getTime(), 24 * 3_600_000, 'valid 24 hours');
  const path = new URL(made.body.url).pathname;
  t.equal(routeOf(path, { configPaths: new Set(), webhookSources: new Set() }), '/sign-in/:id', 'logs and metrics name the route, never the token');

  const web = browserless(vigil.url);
  const page = await web.get(path);
  t.equal(page.status, 200);
  t.match(page.text, 'link-user@example.com');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer', 'the link is never sent on as a referrer');
  const form = web.field(page.text, '_form');
  const short = await web.post(path, { _form: form, password: 'too short', confirm: 'too short' });
  t.equal(short.status, 422);
  t.match(short.text, /at least 12 characters/);
  const differ = await web.post(path, { _form: form, password: 'a long new password', confirm: 'a different password' });
  t.equal(differ.status, 422);
  t.match(differ.text, /differ/);
  const forged = await browserless(vigil.url).post(path, { _form: form, password: 'a long new password', confirm: 'a long new password' });
  t.equal(forged.status, 403, 'the form token belongs to the browser that opened the page');
  const chosen = await web.post(path, { _form: form, password: 'a long new password', confirm: 'a long new password' });
  t.equal(chosen.status, 303);
  t.equal(chosen.location, '/now');
  t.equal((await web.get('/board')).status, 200, 'signed in');
  t.equal((await browserless(vigil.url).get(path)).status, 404, 'used once');
  t.equal((await browserless(vigil.url).signIn('link-user@example.com', 'a long new password')).status, 303, 'the chosen password signs in');

  const late = await vigil.operator.post(`${ADMIN}/users/${user.id}/sign_in_link`);
  vigil.clock.advance(24 * 3_600_000 + 1000);
  t.equal((await browserless(vigil.url).get(new URL(late.body.url).pathname)).status, 404, 'expired after 24 hours');
  t.equal((await browserless(vigil.url).get('/sign-in/vigil_si_nothing-like-this')).status, 404, 'an unknown link');
  t.equal((await vigil.operator.post(`${ADMIN}/users/00000000-0000-4000-8000-000000000000/sign_in_link`)).status, 404, 'an unknown user');
});

t.test('with an https PUBLIC_URL the session cookie is Secure', async (t) => {
  const secure = await startVigil({ publicUrl: 'https://vigil.example.com' });
  t.teardown(() => secure.close());
  const org = await secure.organization('business');
  const p = await person(secure, { [org.id]: 'member' });
  const signed = await browserless(secure.url).signIn(p.email, PASSWORD);
  t.equal(signed.status, 303);
  t.match(signed.headers.getSetCookie().find((c) => c.startsWith('vigil_session=')), /; Secure/);
});
