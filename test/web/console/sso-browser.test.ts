/**
 * Signing in with OpenID Connect (issue 39), end to end in a real browser against a real provider
 * (`oidc-provider`, test/helpers/oidc-provider.ts) run inside the test: the first sign-in makes the membership with
 * the mapped role, the role follows the groups at each sign-in (the highest wins), a person whose groups no longer map
 * is signed out and loses access, a disallowed domain and an unverified email are refused with a page, and every
 * tampering with the answer (state, nonce, PKCE verifier, issuer, audience, expiry, a key not in the JWKS,
 * `alg: none`) is refused with a page and no session. Signing out ends the provider's session too; the operator's
 * sign-in link (break-glass) keeps working; axe finds nothing serious on the new pages.
 *
 * An organization's own provider (sso_settings) the same way: an email typed on the sign-in page and "Continue with
 * single sign-on" lead to that organization's provider, back as a member of it with the mapped role, and signing out
 * reaches that provider's logout (whose origin the console's form-action does not allow: the sign-out answers with a
 * page that moves on); an email whose domain no organization claims is refused on the sign-in page, in words.
 */
import t from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, axeViolations, browserSkip, openBrowser } from '../../helpers/browser.ts';
import { CONFIG, client, startVigil } from '../../helpers/harness.ts';
import { startProvider } from '../../helpers/oidc-provider.ts';

const ORGANIZATION = 'Acme SSO';

t.test('OpenID Connect sign-in in Chromium', { skip: browserSkip() }, async (t) => {
  const provider = await startProvider({
    ana: { email: 'ana@example.com', email_verified: true, name: 'Ana', groups: ['sre'] },
    bob: { email: 'bob@elsewhere.org', email_verified: true, groups: ['sre'] },
    cy: { email: 'cy@example.com', email_verified: false, groups: ['sre'] },
    dee: { email: 'dee@example.com', email_verified: true, groups: ['sre'] },
  });
  // an organization's own provider (sso_settings), found from the email's domain on the sign-in page
  const own = await startProvider({ tia: { email: 'tia@tenant.example', email_verified: true, name: 'Tia', groups: ['incident-leads'] } });
  const vigil = await startVigil({
    oidc: {
      issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
      scopes: ['openid', 'email', 'profile', 'groups'], organization: ORGANIZATION, groupsClaim: 'groups',
      roleMappings: new Map([['watchers', 'viewer'], ['sre', 'member'], ['vigil-admins', 'org_admin']]),
      defaultRole: null, allowedDomains: ['example.com'], name: 'Acme Login',
    },
  });
  provider.serve(vigil.url);
  own.serve(vigil.url);
  // the provider stamps tokens with the machine's time; the service judges them at its own (injected) clock
  vigil.clock.set(new Date());
  const { context, close } = await openBrowser();
  t.teardown(async () => {
    await close();
    await vigil.close();
    await provider.close();
    await own.close();
  });
  const made = await vigil.operator.post('/api/admin/v1/organizations', { name: ORGANIZATION, plan: 'business' });
  t.equal(made.status, 201);
  const key = await vigil.operator.post(`/api/admin/v1/organizations/${made.body.id}/api_keys`, { name: 'members', scopes: ['api:admin'] });
  const api = client(vigil.url, key.body.key);
  const members = async () => Object.fromEntries(((await api.get(`${CONFIG}/team_members`)).body.data as { email: string; role: string }[]).map((m) => [m.email, m.role]));
  const sessionCookie = async (ctx: BrowserContext) => (await ctx.cookies(vigil.url)).find((c) => c.name === 'vigil_session');

  /** From Vigil's sign-in page through the provider's login and back; the tab rests on Vigil's answer. */
  async function signIn(login: string): Promise<{ tab: Page; status: number }> {
    await context.clearCookies();
    const tab = await context.newPage();
    await tab.goto(`${vigil.url}/login`);
    await tab.getByRole('link', { name: 'Sign in with Acme Login' }).click();
    await tab.locator('input[name=login]').fill(login);
    await tab.locator('input[name=password]').fill('any password');
    const answer = tab.waitForResponse((r) => r.url().startsWith(`${vigil.url}/login/oidc/callback`));
    await tab.locator('button[type=submit]').click();
    const status = (await answer).status();
    await tab.waitForLoadState();
    return { tab, status };
  }

  await t.test('the sign-in page offers the provider beside the password form, and is axe clean', async (t) => {
    const tab = await context.newPage();
    await tab.goto(`${vigil.url}/login`);
    t.equal(await tab.getByRole('link', { name: 'Sign in with Acme Login' }).count(), 1);
    t.equal(await tab.getByLabel('Password').count(), 1, 'the password form stays');
    t.same(await axe(tab), []);
    await tab.close();
  });

  let anaSession: string | undefined;
  await t.test('the first sign-in makes the user and the membership with the mapped role', async (t) => {
    const { tab, status } = await signIn('ana');
    t.equal(status, 303);
    t.equal(new URL(tab.url()).pathname, '/now');
    t.match(await tab.locator('.who').innerText(), 'ana@example.com (member)');
    t.same(await members(), { 'ana@example.com': 'member' });
    await tab.close();
  });

  await t.test('a group change changes the role at the next sign-in; the highest mapped role wins', async (t) => {
    provider.accounts.get('ana')!.groups = ['sre', 'vigil-admins', 'unmapped'];
    const { tab } = await signIn('ana');
    t.match(await tab.locator('.who').innerText(), 'ana@example.com (org_admin)');
    t.same(await members(), { 'ana@example.com': 'org_admin' });
    anaSession = (await sessionCookie(context))?.value;
    t.ok(anaSession, 'signed in');
    provider.accounts.get('ana')!.groups = ['watchers'];
    const again = await signIn('ana');
    t.match(await again.tab.locator('.who').innerText(), 'ana@example.com (viewer)');
    await tab.close();
    await again.tab.close();
  });

  await t.test('a person whose groups no longer map is signed out and loses access; the user stays', async (t) => {
    provider.accounts.get('ana')!.groups = ['marketing'];
    const { tab, status } = await signIn('ana');
    t.equal(status, 403);
    t.match(await tab.getByRole('alert').innerText(), /None of your groups gives access/);
    t.same(await axe(tab), []);
    t.notOk(await sessionCookie(context), 'no session');
    t.same(await members(), {}, 'the membership is gone');
    const earlier = await fetch(`${vigil.url}/now`, { headers: { cookie: `vigil_session=${anaSession}` }, redirect: 'manual' });
    t.equal(earlier.status, 303, 'the session of an earlier sign-in no longer works');
    t.match(earlier.headers.get('location'), /^\/login/);
    const user = await vigil.operator.post('/api/admin/v1/users', { email: 'ana@example.com' });
    t.equal(user.status, 409, 'the user is kept');
    await tab.close();
  });

  await t.test('a disallowed domain and an unverified email are refused with a page, no session and no membership', async (t) => {
    for (const [login, said] of [['bob', /Accounts of elsewhere\.org cannot sign in here/], ['cy', /did not vouch for your email address/]] as const) {
      const { tab, status } = await signIn(login);
      t.equal(status, 403, login);
      t.match(await tab.getByRole('alert').innerText(), said, login);
      t.same(await axe(tab), [], login);
      t.notOk(await sessionCookie(context), `${login}: no session`);
      await tab.close();
    }
    t.same(await members(), {});
  });

  await t.test('every tampering with the answer is refused with a page and no session', async (t) => {
    const now = Math.floor(Date.now() / 1000);
    const reminted: Record<string, (claims: Record<string, unknown>) => string> = {
      'a nonce other than the one sent': (c) => provider.mint({ ...c, nonce: 'not-the-nonce-sent' }, 'provider'),
      'an ID token from another issuer': (c) => provider.mint({ ...c, iss: 'http://127.0.0.1:1/other-issuer' }, 'provider'),
      'an ID token for another audience': (c) => provider.mint({ ...c, aud: 'another-client' }, 'provider'),
      'an expired ID token': (c) => provider.mint({ ...c, iat: now - 7200, exp: now - 3600 }, 'provider'),
      'an ID token signed with a key not in the JWKS': (c) => provider.mint(c, 'other'),
      'an ID token with alg none': (c) => provider.mint(c, 'none'),
    };
    for (const [name, remint] of Object.entries(reminted)) {
      provider.tamper = (token) => remint(provider.decode(token));
      const { tab, status } = await signIn('dee');
      provider.tamper = undefined;
      t.equal(status, 400, name);
      t.match(await tab.getByRole('alert').innerText(), /could not be verified/, name);
      t.notOk(await sessionCookie(context), `${name}: no session`);
      await tab.close();
    }
    // state: the callback arrives with a state this browser's flow did not send
    provider.redirect = (callback) => (callback.searchParams.set('state', 'a-state-someone-else-made'), callback);
    const forged = await signIn('dee');
    t.equal(forged.status, 400, 'state mismatch');
    t.match(await forged.tab.getByRole('alert').innerText(), /did not start in this browser/);
    t.same(await axe(forged.tab), []);
    t.notOk(await sessionCookie(context), 'state mismatch: no session');
    await forged.tab.close();
    // PKCE: a code issued to another flow (with that flow's challenge), injected into this browser's callback
    let stolen: string | null = null;
    provider.redirect = (callback) => {
      stolen = callback.searchParams.get('code');
      return new URL(`${vigil.url}/login/oidc/callback?error=access_denied&state=${callback.searchParams.get('state')}`);
    };
    const first = await signIn('dee');
    t.equal(first.status, 400, 'the first flow did not complete');
    t.ok(stolen, 'a code of the first flow');
    await first.tab.close();
    provider.redirect = (callback) => (callback.searchParams.set('code', stolen!), callback);
    const injected = await signIn('dee');
    provider.redirect = undefined;
    t.equal(injected.status, 400, 'PKCE verifier mismatch');
    t.match(await injected.tab.getByRole('alert').innerText(), /refused to complete this sign-in/);
    t.notOk(await sessionCookie(context), 'PKCE verifier mismatch: no session');
    await injected.tab.close();
    t.same(await members(), {}, 'no membership was made by any of them');
  });

  await t.test('signing out ends the session at the provider too', async (t) => {
    const { tab } = await signIn('dee');
    t.match(await tab.locator('.who').innerText(), 'dee@example.com (member)');
    const before = provider.logouts;
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.getByRole('button', { name: 'Yes, sign me out' }).click();
    await tab.waitForURL(`${vigil.url}/login`);
    t.equal(provider.logouts, before + 1, 'the provider was asked to end its session');
    t.notOk(await sessionCookie(context), 'signed out here');
    await tab.close();
  });

  const tenant = await vigil.organization();
  const tenantApi = await tenant.key();
  const ownSaved = await tenantApi.put(`${CONFIG}/sso_settings`, {
    issuer: own.issuer, client_id: own.clientId, client_secret: own.clientSecret, allowed_domains: ['tenant.example'], provider_name: 'Tenant Login',
    role_mappings: { 'incident-leads': 'org_admin', staff: 'member' },
  });
  t.equal(ownSaved.status, 200, 'the organization\'s provider is set up');

  await t.test('an organization\'s own provider: email, its provider, the mapped role, and sign-out at its logout', async (t) => {
    await context.clearCookies();
    const tab = await context.newPage();
    await tab.goto(`${vigil.url}/login`);
    t.same(await axe(tab), [], 'the sign-in page with both kinds of single sign-on');
    await tab.getByLabel('Email').fill('tia@tenant.example');
    await tab.getByRole('button', { name: 'Continue with single sign-on' }).click();
    // Vigil's page moves on to the provider by itself (Refresh), with no script
    await tab.waitForURL((url) => url.href.startsWith(own.issuer));
    await tab.locator('input[name=login]').fill('tia');
    await tab.locator('input[name=password]').fill('any password');
    const answer = tab.waitForResponse((r) => r.url().startsWith(`${vigil.url}/login/oidc/callback`));
    await tab.locator('button[type=submit]').click();
    t.equal((await answer).status(), 303);
    await tab.waitForURL(`${vigil.url}/now`);
    t.match(await tab.locator('.who').innerText(), 'tia@tenant.example (org_admin)', 'the mapped role');
    const tenantMembers = Object.fromEntries(((await tenantApi.get(`${CONFIG}/team_members`)).body.data as { email: string; role: string }[]).map((m) => [m.email, m.role]));
    t.same(tenantMembers, { 'tia@tenant.example': 'org_admin' }, 'a member of that organization');
    t.notOk('tia@tenant.example' in (await members()), 'not of the deployment\'s organization');
    // /now refreshes itself on purpose, with a way to turn it off first (now-browser.test.ts checks that)
    t.same(await axeViolations(context, tab, ['meta-refresh']), []);
    const before = own.logouts;
    await tab.getByRole('button', { name: 'Sign out' }).click();
    // Vigil's page moves on to the provider's logout; the provider asks, then sends the browser back
    await tab.waitForURL((url) => url.href.startsWith(`${own.issuer}/session/end`));
    t.equal(own.logouts, before + 1, 'the organization\'s provider was asked to end its session');
    t.notOk(await sessionCookie(context), 'signed out here');
    await tab.getByRole('button', { name: 'Yes, sign me out' }).click();
    await tab.waitForURL(`${vigil.url}/login`);
    await tab.close();
  });

  await t.test('the page that moves on to the provider is axe clean, and its link works without the refresh', async (t) => {
    await context.clearCookies();
    const tab = await context.newPage();
    // Vigil's answer as served, less its Refresh header, so the page stays to be checked
    await tab.route(`${vigil.url}/login/sso`, async (route) => {
      const served = await route.fetch();
      const headers = { ...served.headers() };
      delete headers.refresh;
      await route.fulfill({ response: served, headers });
    });
    await tab.goto(`${vigil.url}/login`);
    await tab.getByLabel('Email').fill('tia@tenant.example');
    await tab.getByRole('button', { name: 'Continue with single sign-on' }).click();
    await tab.waitForURL(`${vigil.url}/login/sso`);
    t.equal(await tab.getByRole('heading', { level: 1 }).innerText(), 'Sign in with Tenant Login');
    t.same(await axe(tab), []);
    await tab.getByRole('link', { name: 'Continue to Tenant Login' }).click();
    await tab.waitForURL((url) => url.href.startsWith(own.issuer));
    t.equal(await tab.locator('input[name=login]').count(), 1, 'at the provider\'s login');
    await tab.close();
  });

  await t.test('an email whose domain no organization claims is refused on the sign-in page, in words', async (t) => {
    await context.clearCookies();
    const tab = await context.newPage();
    await tab.goto(`${vigil.url}/login`);
    await tab.getByLabel('Email').fill('sam@nobody.example');
    const answer = tab.waitForResponse(`${vigil.url}/login/sso`);
    await tab.getByRole('button', { name: 'Continue with single sign-on' }).click();
    t.equal((await answer).status(), 404);
    t.equal(await tab.getByRole('alert').innerText(), 'No organization here signs in its people through single sign-on for that email\'s domain. Sign in with your password, or ask your administrator.');
    t.equal(await tab.getByLabel('Email').inputValue(), 'sam@nobody.example', 'the email is kept');
    t.same(await axe(tab), []);
    t.notOk(await sessionCookie(context), 'no session');
    await tab.close();
  });

  await t.test('the operator\'s sign-in link keeps working (break-glass)', async (t) => {
    const user = await vigil.operator.post('/api/admin/v1/users', { email: 'ops@example.com' });
    await vigil.operator.put(`/api/admin/v1/organizations/${made.body.id}/members/${user.body.id}`, { role: 'org_admin' });
    const link = await vigil.operator.post(`/api/admin/v1/users/${user.body.id}/sign_in_link`, {});
    await context.clearCookies();
    const tab = await context.newPage();
    await tab.goto(link.body.url);
    await tab.getByLabel('New password').fill('a long break-glass password');
    await tab.getByLabel('The same again').fill('a long break-glass password');
    await tab.getByRole('button', { name: 'Save and sign in' }).click();
    await tab.waitForURL(`${vigil.url}/now`);
    t.match(await tab.locator('.who').innerText(), 'ops@example.com (org_admin)');
    await tab.close();
  });
});
