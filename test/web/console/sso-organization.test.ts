/**
 * Signing in with an organization's own OpenID Connect provider (issue 39, sso_settings), over HTTP with a cookie jar
 * per origin, against two real providers (`oidc-provider`, test/helpers/oidc-provider.ts) for two organizations of one
 * deployment: the email's domain picks the provider, the first sign-in makes a membership of that organization only
 * with the mapped role, the role follows the groups, unmapped groups take access away, an unverified email and a
 * domain the organization does not allow are refused, an answer of the other provider is refused (mix-up),
 * `password_sign_in: false` refuses a member's password but not an org admin's nor the operator's sign-in link, the
 * client secret appears in no answer, signing out of such a session moves on to that provider's logout (or ends Vigil's
 * session only when the provider publishes none), export or audit entry, and an issuer whose name resolves to an address the
 * deployment may not reach is refused by the guarded client before anything is sent.
 *
 * The service runs with loopback closed (VIGIL_OUTBOUND_ALLOW_LOOPBACK off) and 127.0.0.1 alone allow-listed, where
 * the providers listen.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { startProvider, type TestProvider } from '../../helpers/oidc-provider.ts';

const INTERNAL_NAME = 'idp.internal.test';
const resolve = async (hostname: string): Promise<LookupAddress[]> =>
  hostname === INTERNAL_NAME ? [{ address: '127.0.0.2', family: 4 }] : lookup(hostname, { all: true });

const providerA = await startProvider({
  ana: { email: 'ana@acme.example', email_verified: true, name: 'Ana', groups: ['sre'] },
  uv: { email: 'uv@acme.example', email_verified: false, groups: ['sre'] },
  out: { email: 'out@elsewhere.example', email_verified: true, groups: ['sre'] },
  cam: { email: 'cam@acme.example', email_verified: true, groups: ['sre'] },
});
// B publishes no end_session_endpoint: signing out of its sessions ends Vigil's only
const providerB = await startProvider({ bo: { email: 'bo@beta.example', email_verified: true, groups: ['ops'] } }, { logout: false });
const vigil = await startVigil({ outbound: { allowLoopback: false, allowedNetworks: ['127.0.0.1/32'], resolve } });
providerA.serve(vigil.url);
providerB.serve(vigil.url);
// the providers stamp tokens with the machine's time; the service judges them at its own (injected) clock
vigil.clock.set(new Date());
t.teardown(async () => {
  await vigil.close();
  await providerA.close();
  await providerB.close();
});

const orgA = await vigil.organization();
const orgB = await vigil.organization();
const apiA = await orgA.key();
const apiB = await orgB.key();
const SSO = `${CONFIG}/sso_settings`;
const setUp = async (api: typeof apiA, provider: TestProvider, domain: string, extra: Record<string, unknown> = {}) =>
  api.put(SSO, {
    issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret, allowed_domains: [domain], provider_name: `${domain} Login`,
    role_mappings: { sre: 'member', admins: 'org_admin', ops: 'viewer' }, ...extra,
  });
for (const [api, provider, domain] of [[apiA, providerA, 'acme.example'], [apiB, providerB, 'beta.example']] as const) {
  const saved = await setUp(api, provider, domain);
  if (saved.status !== 200) throw new Error(`sso_settings not saved: ${JSON.stringify(saved.body)}`);
}
const membersOf = async (api: typeof apiA) => Object.fromEntries(((await api.get(`${CONFIG}/team_members`)).body.data as { email: string; role: string }[]).map((m) => [m.email, m.role]));

/** A browser in miniature: cookies per origin (host and port), redirects followed by hand. */
class Browser {
  jars = new Map<string, Map<string, string>>();
  jar(url: URL) {
    let jar = this.jars.get(url.host);
    if (!jar) this.jars.set(url.host, (jar = new Map()));
    return jar;
  }
  async go(href: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ status: number; url: URL; location: string | null; refresh: string | null; csp: string | null; text: string }> {
    const url = new URL(href);
    const jar = this.jar(url);
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value.join('=') === '') jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
    const location = res.headers.get('location');
    return {
      status: res.status, url, location: location && new URL(location, url).href, refresh: res.headers.get('refresh'), csp: res.headers.get('content-security-policy'), text: await res.text(),
    };
  }
  session = () => this.jar(new URL(vigil.url)).get('vigil_session');
}

const field = (page: string, name: string) => page.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';
const unescape = (value: string) => value.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replaceAll('&amp;', '&');

/** The sign-in page's email step: the answer (a page that moves on to the provider, or a refusal). */
async function emailStep(browser: Browser, email: string) {
  const login = await browser.go(`${vigil.url}/login`);
  return browser.go(`${vigil.url}/login/sso`, { method: 'POST', form: { _form: field(login.text, '_form'), next: '/now', email } });
}

/** The authorization URL the email step's page moves on to. */
const continueUrl = (page: string) => unescape(page.match(/id="continue" href="([^"]+)"/)?.[1] ?? '');

/** Through the provider's login page until it redirects back to the service; the callback URL, not yet visited. */
async function atProvider(browser: Browser, authorization: string, login: string): Promise<string> {
  let step = await browser.go(authorization);
  for (let hops = 0; hops < 10; hops++) {
    if (step.location?.startsWith(`${vigil.url}/login/oidc/callback`)) return step.location;
    if (step.location) step = await browser.go(step.location);
    else if (step.status === 200 && step.text.includes('name="login"')) {
      const action = new URL(unescape(step.text.match(/<form[^>]*action="([^"]+)"/)![1]!), step.url).href;
      step = await browser.go(action, { method: 'POST', form: { prompt: 'login', login, password: 'any password' } });
    } else throw new Error(`the provider answered ${step.status}`);
  }
  throw new Error('too many redirects at the provider');
}

/** A whole sign-in from the email step; the service's answer at the callback. */
async function signIn(email: string, login: string, browser = new Browser()) {
  const started = await emailStep(browser, email);
  if (started.status !== 200) throw new Error(`the email step answered ${started.status}`);
  const callback = await atProvider(browser, continueUrl(started.text), login);
  return { browser, answer: await browser.go(callback) };
}

t.test('the sign-in page offers single sign-on, and the email\'s domain picks the organization\'s provider', async (t) => {
  const browser = new Browser();
  t.match((await browser.go(`${vigil.url}/login`)).text, /Continue with single sign-on/);
  const a = await emailStep(browser, 'Someone@ACME.example');
  t.equal(a.status, 200);
  t.match(a.text, /acme\.example Login/);
  t.ok(continueUrl(a.text).startsWith(`${providerA.issuer}/`), 'to provider A');
  const authorization = new URL(continueUrl(a.text));
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
  t.ok(authorization.searchParams.get('state') && authorization.searchParams.get('nonce'), 'state and nonce');
  t.ok(continueUrl((await emailStep(browser, 'x@beta.example')).text).startsWith(`${providerB.issuer}/`), 'to provider B');
  const unknown = await emailStep(browser, 'x@nobody.example');
  t.equal(unknown.status, 404);
  t.match(unknown.text, /No organization here signs in its people through single sign-on/);
});

let earlier: string | undefined;
t.test('the first sign-in makes a member of that organization only, with the mapped role', async (t) => {
  const { browser, answer } = await signIn('ana@acme.example', 'ana');
  t.equal(answer.status, 303);
  t.equal(answer.location, `${vigil.url}/now`);
  t.ok(browser.session(), 'a session');
  t.same(await membersOf(apiA), { 'ana@acme.example': 'member' });
  t.same(await membersOf(apiB), {}, 'not a member of the other organization');
  const now = await browser.go(`${vigil.url}/now`);
  t.equal(now.status, 200);
  t.match(now.text, 'ana@acme.example (member)');
  earlier = browser.session();
});

t.test('a session of an organization\'s provider acts in that organization only', async (t) => {
  // cam is an org admin of B (the operator made her): A's provider vouches for her in A, not in B
  const camId = (await vigil.operator.post('/api/admin/v1/users', { email: 'cam@acme.example' })).body.id;
  t.equal((await vigil.operator.put(`/api/admin/v1/organizations/${orgB.id}/members/${camId}`, { role: 'org_admin' })).status, 200);
  const { browser, answer } = await signIn('cam@acme.example', 'cam');
  t.equal(answer.status, 303);
  const account = await browser.go(`${vigil.url}/account`);
  t.equal(account.status, 200);
  t.notOk(account.text.includes(orgB.id), 'the other organization is not offered');
  const csrf = field(account.text, '_csrf');
  const switched = await browser.go(`${vigil.url}/organization`, { method: 'POST', form: { _csrf: csrf, organization_id: orgB.id, next: '/now' } });
  t.equal(switched.status, 404, 'switching to the other organization is refused');
  const token = await browser.go(`${vigil.url}/account/tokens`, { method: 'POST', form: { _csrf: csrf, name: 'reach', max_role: 'viewer', [`organization:${orgB.id}`]: '1' } });
  t.equal(token.status, 422, 'no token for the other organization');
  t.notOk(token.text.includes('vigil_pat_'), 'no token shown');
  t.equal((await vigil.operator.del(`/api/admin/v1/organizations/${orgB.id}/members/${camId}`)).status, 204);
  t.equal((await vigil.operator.del(`/api/admin/v1/organizations/${orgA.id}/members/${camId}`)).status, 204);
});

t.test('the role follows the groups at each sign-in; groups that no longer map sign the person out', async (t) => {
  providerA.accounts.get('ana')!.groups = ['sre', 'admins'];
  t.equal((await signIn('ana@acme.example', 'ana')).answer.status, 303);
  t.same(await membersOf(apiA), { 'ana@acme.example': 'org_admin' });
  providerA.accounts.get('ana')!.groups = ['marketing'];
  const { browser, answer } = await signIn('ana@acme.example', 'ana');
  t.equal(answer.status, 403);
  t.match(answer.text, /None of your groups gives access/);
  t.notOk(browser.session(), 'no session');
  t.same(await membersOf(apiA), {}, 'the membership is gone');
  const old = await fetch(`${vigil.url}/now`, { headers: { cookie: `vigil_session=${earlier}` }, redirect: 'manual' });
  t.equal(old.status, 303, 'the earlier session no longer works');
  providerA.accounts.get('ana')!.groups = ['sre'];
});

t.test('an unverified email and a domain the organization does not allow are refused', async (t) => {
  const unverified = await signIn('uv@acme.example', 'uv');
  t.equal(unverified.answer.status, 403);
  t.match(unverified.answer.text, /did not vouch for your email address/);
  t.notOk(unverified.browser.session());
  // typed as acme.example, but the provider vouches for another domain
  const elsewhere = await signIn('out@acme.example', 'out');
  t.equal(elsewhere.answer.status, 403);
  t.match(elsewhere.answer.text, /Accounts of elsewhere\.example cannot sign in here/);
  t.notOk(elsewhere.browser.session());
  t.notOk(Object.keys(await membersOf(apiA)).some((e) => e !== 'ana@acme.example'), 'no membership made');
});

t.test('an answer of another provider is refused for a flow started at this one (mix-up)', async (t) => {
  const browser = new Browser();
  const started = await emailStep(browser, 'bo@acme.example');
  const state = new URL(continueUrl(started.text)).searchParams.get('state')!;
  // a complete answer of provider B (its code and issuer), delivered to the flow provider A started
  const other = new Browser();
  const fromB = new URL(await atProvider(other, continueUrl((await emailStep(other, 'bo@beta.example')).text), 'bo'));
  fromB.searchParams.set('state', state);
  const answer = await browser.go(fromB.href);
  t.equal(answer.status, 400);
  t.match(answer.text, /could not be verified/, "refused by the issuer check, before the code is spent");
  t.notOk(browser.session(), 'no session');
  t.same(await membersOf(apiA), {}, 'nobody joined A');
  t.same(await membersOf(apiB), {}, 'nobody joined B');
});

t.test('a flow whose organization changed its issuer meanwhile is refused before anything is sent', async (t) => {
  const browser = new Browser();
  const callback = await atProvider(browser, continueUrl((await emailStep(browser, 'ana@acme.example')).text), 'ana');
  t.equal((await apiA.put(SSO, { issuer: 'https://login.changed.example' })).status, 200);
  const answer = await browser.go(callback);
  t.equal((await apiA.put(SSO, { issuer: providerA.issuer })).status, 200);
  t.equal(answer.status, 400);
  t.match(answer.text, /Single sign-on was changed while you were signing in/);
  t.notOk(browser.session(), 'no session');
});

t.test('password_sign_in false refuses a member\'s password, not an org admin\'s, and the sign-in link works', async (t) => {
  t.equal((await apiA.put(SSO, { password_sign_in: false })).status, 200);
  const made: Record<string, string> = {};
  for (const [email, role] of [['member@acme.example', 'member'], ['admin@acme.example', 'org_admin']] as const) {
    const user = await vigil.operator.post('/api/admin/v1/users', { email });
    made[email] = user.body.id;
    t.equal((await vigil.operator.put(`/api/admin/v1/users/${user.body.id}/password`, { password: 'a long enough password' })).status, 204);
    t.equal((await vigil.operator.put(`/api/admin/v1/organizations/${orgA.id}/members/${user.body.id}`, { role })).status, 200);
  }
  const password = async (email: string, secret = 'a long enough password') => {
    const browser = new Browser();
    const login = await browser.go(`${vigil.url}/login`);
    return { browser, answer: await browser.go(`${vigil.url}/login`, { method: 'POST', form: { _form: field(login.text, '_form'), next: '/now', email, password: secret } }) };
  };
  const member = await password('member@acme.example');
  t.equal(member.answer.status, 403);
  t.match(member.answer.text, /signs its members in through single sign-on/);
  t.notOk(member.browser.session(), 'no session for the member');
  const admin = await password('admin@acme.example');
  t.equal(admin.answer.status, 303, 'an org admin keeps the password (break-glass)');
  t.ok(admin.browser.session());
  // the operator's sign-in link (break-glass) still opens a session
  const link = await vigil.operator.post(`/api/admin/v1/users/${made['member@acme.example']}/sign_in_link`, {});
  const browser = new Browser();
  const page = await browser.go(link.body.url);
  const chosen = await browser.go(link.body.url, { method: 'POST', form: { _form: field(page.text, '_form'), password: 'another long password', confirm: 'another long password' } });
  t.equal(chosen.status, 303);
  t.ok(browser.session(), 'the sign-in link signs the member in');
  t.equal((await apiA.put(SSO, { password_sign_in: true })).status, 200);
  t.equal((await password('member@acme.example', 'another long password')).answer.status, 303, 'passwords work again once allowed');
});

t.test('signing out of a session of an organization\'s provider moves on to that provider\'s logout', async (t) => {
  const { browser, answer } = await signIn('ana@acme.example', 'ana');
  t.equal(answer.status, 303);
  const token = browser.session();
  const now = await browser.go(`${vigil.url}/now`);
  const out = await browser.go(`${vigil.url}/logout`, { method: 'POST', form: { _csrf: field(now.text, '_csrf') } });
  t.equal(out.status, 200, 'a page that moves on (a redirect would break the console\'s form-action)');
  const logout = new URL(continueUrl(out.text));
  t.equal(logout.origin + logout.pathname, `${providerA.issuer}/session/end`, 'provider A\'s end_session_endpoint, from its discovery');
  t.equal(logout.searchParams.get('client_id'), providerA.clientId);
  t.equal(logout.searchParams.get('post_logout_redirect_uri'), `${vigil.url}/login`);
  t.equal(out.url.href, `${vigil.url}/logout`);
  t.match(out.text, /You are signed out of Vigil/);
  t.equal(out.refresh, `0; url=${logout.href}`, 'the Refresh header moves on to the same address');
  t.match(out.csp, /form-action 'self';/, 'the console\'s CSP stays as strict as for everyone');
  const raw = await fetch(`${vigil.url}/now`, { headers: { cookie: `vigil_session=${token}` }, redirect: 'manual' });
  t.equal(raw.status, 303, 'the Vigil session is gone');
  t.notOk(browser.session(), 'the cookie is cleared');
  // the provider's end-session is reached and its confirmation sends the browser back to the sign-in page
  const before = providerA.logouts;
  const confirm = await browser.go(logout.href);
  t.equal(providerA.logouts, before + 1, 'provider A was asked to end its session');
  t.equal(confirm.status, 200, 'the provider asks to confirm');
  const action = new URL(unescape(confirm.text.match(/<form[^>]*action="([^"]+)"/)![1]!), confirm.url).href;
  const ended = await browser.go(action, { method: 'POST', form: { xsrf: field(confirm.text, 'xsrf'), logout: 'yes' } });
  t.equal(ended.location, `${vigil.url}/login`, 'back to Vigil\'s sign-in page');
});

t.test('signing out of a session of a provider without end_session_endpoint ends Vigil\'s session only', async (t) => {
  const { browser, answer } = await signIn('bo@beta.example', 'bo');
  t.equal(answer.status, 303);
  const token = browser.session();
  const now = await browser.go(`${vigil.url}/now`);
  const out = await browser.go(`${vigil.url}/logout`, { method: 'POST', form: { _csrf: field(now.text, '_csrf') } });
  t.equal(out.status, 303);
  t.equal(out.location, `${vigil.url}/login`);
  const raw = await fetch(`${vigil.url}/now`, { headers: { cookie: `vigil_session=${token}` }, redirect: 'manual' });
  t.equal(raw.status, 303, 'the Vigil session is gone');
  t.notOk(browser.session(), 'the cookie is cleared');
});

t.test('a provider that cannot be reached at sign-out leaves the person signed out of Vigil', async (t) => {
  const { browser, answer } = await signIn('ana@acme.example', 'ana');
  t.equal(answer.status, 303);
  const token = browser.session();
  // the organization moved its issuer to an address the guarded client refuses: discovery for the logout fails
  t.equal((await apiA.put(SSO, { issuer: `https://${INTERNAL_NAME}` })).status, 200);
  const now = await browser.go(`${vigil.url}/now`);
  const out = await browser.go(`${vigil.url}/logout`, { method: 'POST', form: { _csrf: field(now.text, '_csrf') } });
  t.equal((await apiA.put(SSO, { issuer: providerA.issuer })).status, 200);
  t.equal(out.status, 303);
  t.equal(out.location, `${vigil.url}/login`);
  const raw = await fetch(`${vigil.url}/now`, { headers: { cookie: `vigil_session=${token}` }, redirect: 'manual' });
  t.equal(raw.status, 303, 'the Vigil session is gone');
  t.notOk(browser.session(), 'the cookie is cleared');
});

t.test('the client secret is in no answer, export or audit entry', async (t) => {
  const secret = providerA.clientSecret;
  const answers = [
    (await apiA.get(SSO)).body,
    (await apiA.get(`${CONFIG}/export?format=hcl`)).body,
    (await vigil.operator.get(`/api/admin/v1/organizations/${orgA.id}/audit_log`)).body,
    (await apiA.get(`${CONFIG}/audit_log`)).body,
  ];
  t.equal((answers[0] as { data: { client_secret_set: boolean } }).data.client_secret_set, true);
  for (const answer of answers) t.notOk(JSON.stringify(answer).includes(secret), 'not in the answer');
});

t.test('an issuer whose name resolves to an address the deployment may not reach is refused by the guarded client', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const saved = await api.put(SSO, { issuer: `https://${INTERNAL_NAME}`, client_id: 'vigil', client_secret: 'a secret of the internal issuer', allowed_domains: ['internal.example'] });
  t.equal(saved.status, 200, 'a host name is judged when it is called, not when it is saved');
  const browser = new Browser();
  const answer = await emailStep(browser, 'x@internal.example');
  t.equal(answer.status, 503);
  t.match(answer.text, /cannot be reached just now/);
  t.notOk(browser.jar(new URL(vigil.url)).has('vigil_oidc'), 'no flow started');
  const literal = await api.put(SSO, { issuer: 'http://127.0.0.2:9' });
  t.equal(literal.status, 422, 'a literal loopback address is refused when saved');
  t.equal(literal.body.errors[0].field, 'issuer');
});
