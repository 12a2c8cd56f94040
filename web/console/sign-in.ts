/**
 * Signing in and out: `GET /login` (email, password), `POST /login` (303 to `next`, a path on this service, or /),
 * `POST /logout`, the one-time link where a person chooses a password (`/sign-in/<token>`), and the organization
 * switcher (`POST /organization`).
 *
 * - Before a session exists, forms carry a random token that must equal the one in the `vigil_form` cookie (double
 *   submit): a cross-site page can neither read the cookie nor set it, so it cannot forge a sign-in (login CSRF).
 *   The cookie is signed with the deployment's key, so a value planted by a sibling subdomain or over plain http is
 *   refused and replaced; over https it is `__Host-vigil_form`, which no sibling subdomain and no http page can set;
 *   and a form posted from another site or a sibling subdomain (`Sec-Fetch-Site`) is refused even with a valid pair
 *   the attacker fetched for themselves.
 * - A wrong email, a wrong password and a user without a password all answer the same 401 sentence, after the same
 *   scrypt work.
 * - Failed sign-ins slow further attempts down step by step (sign-in-throttle.ts): while an attempt must wait, it
 *   answers 429 with Retry-After and the password is not checked.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { constantTimeEqual } from '../../engine/crypto.ts';
import { ApiError } from '../../engine/errors.ts';
import { passwordProblem, PASSWORD_MIN_LENGTH } from '../../engine/auth/passwords.ts';
import {
  checkPassword, chooseOrganization, endSession, membershipsOf, openSession, preSessionToken, resolveSession, signInLinkUser, useSignInLink,
} from '../../engine/auth/sessions.ts';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import { html, type Html } from '../../engine/html.ts';
import { clearCookie, FORM_COOKIE, FormError, readCookie, readForm, safeNext, seeOther, sendPage, SESSION_COOKIE, setCookie } from './http.ts';
import { documentOf } from './layout.ts';
import { refusalPage, screen } from './page.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';
import { OidcClient } from './sso/oidc.ts';
import { OIDC_START_PATH, oidcRoutes } from './sso/routes.ts';
import { anyTenantProvider, passwordRefusedIn, TenantClients } from './sso/tenant.ts';

export const TENANT_SSO_PATH = '/login/sso';

const BAD_SIGN_IN = 'That email and password do not match an account. Check both and try again.';

const FORM_PURPOSE = 'console pre-session form';

/** `__Host-` over https: the browser then takes the cookie only from this origin, Secure, for the whole site. */
const formCookie = (services: Services) => (services.config.publicUrl.startsWith('https:') ? `__Host-${FORM_COOKIE}` : FORM_COOKIE);

/** The token of a cookie this service signed; undefined for none, a forged or an unsigned one. */
function signedFormToken(ctx: Context, services: Services): string | undefined {
  const [token, mac, extra] = (readCookie(ctx, formCookie(services)) ?? '').split('.');
  if (!token || !mac || extra !== undefined || !/^[A-Za-z0-9_-]{20,64}$/.test(token)) return undefined;
  return constantTimeEqual(mac, services.secrets.sign(FORM_PURPOSE, token)) ? token : undefined;
}

function formToken(ctx: Context, services: Services): string {
  const existing = signedFormToken(ctx, services);
  if (existing) return existing;
  const made = preSessionToken();
  setCookie(ctx, services, formCookie(services), `${made}.${services.secrets.sign(FORM_PURPOSE, made)}`);
  return made;
}

function formTokenMatches(ctx: Context, services: Services, sent: unknown): boolean {
  // a browser says where a request comes from: another site, or a sibling subdomain (same-site), never signs in here
  if (['cross-site', 'same-site'].includes(ctx.get('sec-fetch-site'))) return false;
  const token = signedFormToken(ctx, services);
  return typeof sent === 'string' && token !== undefined && constantTimeEqual(token, sent);
}

/**
 * The sign-in page: with the deployment's OpenID Connect provider (sso/) offered first when one is configured, and,
 * when organizations have their own (sso/tenant.ts), a second button on the email field: "Continue with single
 * sign-on" finds the provider from the email's domain (no password needed).
 */
function loginPage(services: Services, token: string, next: string, options: { email?: string; problem?: string; tenants?: boolean } = {}): Html {
  const problem = options.problem ? html`<div class="notice error" role="alert"><p>${options.problem}</p></div>` : '';
  const ssoName = services.config.oidc?.name;
  const sso = ssoName === undefined ? '' : html`<p><a class="button" href="${`${OIDC_START_PATH}?next=${encodeURIComponent(next)}`}">Sign in with ${ssoName}</a></p>
<p class="muted">Or with a password:</p>`;
  const tenant = options.tenants
    ? html`<button type="submit" formaction="${TENANT_SSO_PATH}" formnovalidate>Continue with single sign-on</button><p class="muted">Single sign-on needs only your work email.</p>`
    : '';
  return documentOf('Sign in', html`<main id="main" class="centered stack"><h1>Sign in to Vigil</h1>${problem}${sso}
<form method="post" action="/login" class="stack"><input type="hidden" name="_form" value="${token}"><input type="hidden" name="next" value="${next}">
<div class="field"><label for="email">Email</label><input type="email" id="email" name="email" autocomplete="username" required value="${options.email ?? ''}"></div>
<div class="field"><label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button>${tenant}</form>
<p class="muted">No password yet? Ask your operator for a sign-in link.</p></main>`);
}

function choosePage(token: string, email: string, action: string, problem?: string): Html {
  const notice = problem ? html`<div class="notice error" role="alert"><p>${problem}</p></div>` : '';
  return documentOf('Choose a password', html`<main id="main" class="centered stack"><h1>Choose a password</h1>
<p>For <strong>${email}</strong>. At least ${PASSWORD_MIN_LENGTH} characters.</p>${notice}
<form method="post" action="${action}" class="stack"><input type="hidden" name="_form" value="${token}">
<div class="field"><label for="password">New password</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></div>
<div class="field"><label for="confirm">The same again</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" required></div>
<button type="submit">Save and sign in</button></form></main>`);
}

const waitSentence = (seconds: number) =>
  `Too many failed sign-ins. Try again in ${seconds < 60 ? `${seconds} second(s)` : `${Math.ceil(seconds / 60)} minute(s)`}.`;

async function signedIn(ctx: Context, services: Services, userId: string, next: string, organizationId?: string): Promise<void> {
  const token = await openSession(services, userId, { organizationId });
  if (!token) {
    return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'Your account is not a member of any enabled organization. Ask your operator to add you.'));
  }
  setCookie(ctx, services, SESSION_COOKIE, token);
  clearCookie(ctx, services, formCookie(services));
  seeOther(ctx, next);
}

async function form(ctx: Context): Promise<Record<string, string> | null> {
  try {
    return await readForm(ctx);
  } catch (error) {
    if (error instanceof FormError) {
      sendPage(ctx, error.status, refusalPage(null, '/login', error.status, error.message));
      return null;
    }
    throw error;
  }
}

export function signInRoutes(router: Router, services: Services, throttle: SignInThrottle | undefined): void {
  const settings = services.config.oidc;
  const oidc = settings ? new OidcClient(settings, services.clock) : undefined;
  const sso = oidcRoutes(router, services, settings && oidc ? { settings, oidc } : undefined, new TenantClients(services));
  const page = async (ctx: Context, status: number, next: string, options: { email?: string; problem?: string } = {}) =>
    sendPage(ctx, status, loginPage(services, formToken(ctx, services), next, { ...options, tenants: await anyTenantProvider(services) }));

  router.get('/login', async (ctx) => {
    const next = safeNext(ctx.query.next);
    if (await resolveSession(services, readCookie(ctx, SESSION_COOKIE))) return seeOther(ctx, next);
    await page(ctx, 200, next);
  });

  // email first: the organization that claims the email's domain, and its provider
  router.post(TENANT_SSO_PATH, async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    if (!formTokenMatches(ctx, services, fields._form)) {
      return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'This sign-in form is out of date or did not come from this service. Open the sign-in page again.'));
    }
    const next = safeNext(fields.next);
    const email = (fields.email ?? '').trim().slice(0, 254);
    if (!email.includes('@')) return page(ctx, 422, next, { email, problem: 'Enter your work email address: single sign-on is found from its domain.' });
    const tenant = await sso.providerForEmail(email);
    if (!tenant) return page(ctx, 404, next, { email, problem: 'No organization here signs in its people through single sign-on for that email\'s domain. Sign in with your password, or ask your administrator.' });
    await sso.startTenant(ctx, tenant, next);
  });

  router.post('/login', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    if (!formTokenMatches(ctx, services, fields._form)) {
      return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'This sign-in form is out of date or did not come from this service. Open the sign-in page again.'));
    }
    const next = safeNext(fields.next);
    const email = (fields.email ?? '').slice(0, 254);
    const wait = await throttle?.wait(ctx.ip, email);
    if (wait) {
      ctx.set('Retry-After', String(wait));
      return page(ctx, 429, next, { email, problem: waitSentence(wait) });
    }
    const userId = email && fields.password ? await checkPassword(services, email, fields.password) : null;
    if (!userId) {
      const slowed = await throttle?.failed(ctx.ip, email);
      if (slowed) ctx.set('Retry-After', String(slowed));
      return page(ctx, 401, next, { email, problem: BAD_SIGN_IN });
    }
    await throttle?.succeeded(ctx.ip, email);
    // an organization with its own provider may refuse passwords to members below org_admin (break-glass: org admins
    // keep theirs, and the operator's sign-in links always work): the session opens in an organization that allows it
    const memberships = await membershipsOf(sqlExecutor(services.db), userId);
    const refused = await passwordRefusedIn(services, memberships.map((m) => ({ organizationId: m.organization.id, role: m.role })));
    const allowed = memberships.find((m) => !refused.has(m.organization.id));
    if (memberships.length && !allowed) {
      return page(ctx, 403, next, { email, problem: 'Your organization signs its members in through single sign-on, not with a password. Use "Continue with single sign-on".' });
    }
    await signedIn(ctx, services, userId, next, allowed?.organization.id);
  });

  router.post('/logout', screen(services, '/board', async (services, { ctx }) => {
    const token = readCookie(ctx, SESSION_COOKIE);
    const ended: { sso: boolean; confinedTo?: string } = token ? await endSession(services, token) : { sso: false };
    clearCookie(ctx, services, SESSION_COOKIE);
    // a session an organization's own provider opened ends at that provider too: a page that moves on to its logout
    if (ended.confinedTo && (await sso.logoutOfOrganization(ctx, ended.confinedTo))) return;
    // a session opened by single sign-on ends at the provider too, when it publishes a logout endpoint
    const atProvider = ended.sso && oidc ? await oidc.logoutUrl(`${services.config.publicUrl}/login`).catch(() => null) : null;
    seeOther(ctx, atProvider?.href ?? '/login');
  }));

  router.post('/organization', screen(services, '/board', async (services, { ctx, session, form }) => {
    const target = String(form.organization_id ?? '').toLowerCase();
    // an organization that refuses passwords to this person is entered by signing in through its provider
    const membership = session.memberships.find((m) => m.organization.id === target);
    if (membership && !session.caller.credential.confinedTo && (await passwordRefusedIn(services, [{ organizationId: target, role: membership.role }])).has(target)) {
      throw new ApiError('forbidden', 'That organization signs its members in through its own single sign-on. Sign out, then sign in with "Continue with single sign-on".');
    }
    await chooseOrganization(services, session, target);
    seeOther(ctx, safeNext(form.next));
  }));

  const gone = (ctx: Context) => sendPage(ctx, 404, refusalPage(null, '/login', 404, 'This sign-in link is unknown, already used or expired. Ask your operator for a new one.'));

  router.get('/sign-in/:token', async (ctx) => {
    const user = await signInLinkUser(services, ctx.params.token!);
    if (!user) return gone(ctx);
    sendPage(ctx, 200, choosePage(formToken(ctx, services), user.email, ctx.path));
  });

  router.post('/sign-in/:token', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    if (!formTokenMatches(ctx, services, fields._form)) {
      return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'This form is out of date or did not come from this service. Open the link again.'));
    }
    const user = await signInLinkUser(services, ctx.params.token!);
    if (!user) return gone(ctx);
    const weak = passwordProblem(fields.password);
    const problem = weak ? `The password ${weak}.` : fields.password !== fields.confirm ? 'The two passwords differ.' : null;
    if (problem) return sendPage(ctx, 422, choosePage(formToken(ctx, services), user.email, ctx.path, problem));
    const userId = await useSignInLink(services, ctx.params.token!, fields.password!);
    if (!userId) return gone(ctx);
    await signedIn(ctx, services, userId, '/now');
  });
}
