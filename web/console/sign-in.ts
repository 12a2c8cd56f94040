/**
 * Signing in and out: `GET /login` (email, password), `POST /login` (303 to `next`, a path on this service, or /),
 * `POST /logout`, the one-time link where a person chooses a password (`/sign-in/<token>`), and the organization
 * switcher (`POST /organization`).
 *
 * - Before a session exists, forms carry a random token that must equal the `vigil_form` cookie (double submit):
 *   a cross-site page can neither read the cookie nor set it, so it cannot forge a sign-in (login CSRF).
 * - A wrong email, a wrong password and a user without a password all answer the same 401 sentence, after the same
 *   scrypt work.
 * - Attempts are counted per client address and per account (the email) in the rate-limit store the API's limits
 *   use (memory, PostgreSQL or Redis); over either limit: 429 with Retry-After, and the password is not checked.
 */
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { constantTimeEqual } from '../../engine/crypto.ts';
import type { CredentialLimiter } from '../../engine/http/rate-limit.ts';
import { passwordProblem, PASSWORD_MIN_LENGTH } from '../../engine/auth/passwords.ts';
import {
  checkPassword, chooseOrganization, endSession, openSession, preSessionToken, resolveSession, signInLinkUser, useSignInLink,
} from '../../engine/auth/sessions.ts';
import type { Services } from '../../engine/services.ts';
import { html, type Html } from '../../engine/html.ts';
import { clearCookie, FORM_COOKIE, FormError, readCookie, readForm, safeNext, seeOther, sendPage, SESSION_COOKIE, setCookie } from './http.ts';
import { documentOf } from './layout.ts';
import { refusalPage, screen } from './page.ts';

/** How many sign-in attempts an address, and an account, may make in a window. */
export const SIGN_IN_LIMITS = {
  address: { points: 30, durationSeconds: 900 },
  account: { points: 10, durationSeconds: 900 },
} as const;

export interface SignInLimiters {
  address: CredentialLimiter;
  account: CredentialLimiter;
}

const BAD_SIGN_IN = 'That email and password do not match an account. Check both and try again.';

function formToken(ctx: Context, services: Services): string {
  const existing = readCookie(ctx, FORM_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing)) return existing;
  const made = preSessionToken();
  setCookie(ctx, services, FORM_COOKIE, made);
  return made;
}

function formTokenMatches(ctx: Context, sent: unknown): boolean {
  const cookie = readCookie(ctx, FORM_COOKIE);
  return typeof sent === 'string' && cookie !== undefined && constantTimeEqual(cookie, sent);
}

function loginPage(token: string, next: string, options: { email?: string; problem?: string } = {}): Html {
  const problem = options.problem ? html`<div class="notice error" role="alert"><p>${options.problem}</p></div>` : '';
  return documentOf('Sign in', html`<main id="main" class="centered stack"><h1>Sign in to Vigil</h1>${problem}
<form method="post" action="/login" class="stack"><input type="hidden" name="_form" value="${token}"><input type="hidden" name="next" value="${next}">
<div class="field"><label for="email">Email</label><input type="email" id="email" name="email" autocomplete="username" required value="${options.email ?? ''}"></div>
<div class="field"><label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button></form>
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

const accountKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);

async function overLimit(limiters: SignInLimiters | undefined, ctx: Context, email: string): Promise<number | null> {
  if (!limiters) return null;
  const [address, account] = await Promise.all([limiters.address.take(`address:${ctx.ip}`), limiters.account.take(`account:${accountKey(email)}`)]);
  const waits = [address.retryAfter, account.retryAfter].filter((w): w is number => w !== null);
  return waits.length ? Math.max(...waits) : null;
}

async function signedIn(ctx: Context, services: Services, userId: string, next: string): Promise<void> {
  const token = await openSession(services, userId);
  if (!token) {
    return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'Your account is not a member of any enabled organization. Ask your operator to add you.'));
  }
  setCookie(ctx, services, SESSION_COOKIE, token);
  clearCookie(ctx, services, FORM_COOKIE);
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

export function signInRoutes(router: Router, services: Services, limiters: SignInLimiters | undefined): void {
  router.get('/login', async (ctx) => {
    const next = safeNext(ctx.query.next);
    if (await resolveSession(services, readCookie(ctx, SESSION_COOKIE))) return seeOther(ctx, next);
    sendPage(ctx, 200, loginPage(formToken(ctx, services), next));
  });

  router.post('/login', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    if (!formTokenMatches(ctx, fields._form)) {
      return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'This sign-in form is out of date or did not come from this service. Open the sign-in page again.'));
    }
    const next = safeNext(fields.next);
    const email = (fields.email ?? '').slice(0, 254);
    const wait = await overLimit(limiters, ctx, email);
    if (wait !== null) {
      ctx.set('Retry-After', String(wait));
      return sendPage(ctx, 429, loginPage(formToken(ctx, services), next, { email, problem: `Too many sign-in attempts. Try again in ${Math.ceil(wait / 60)} minute(s).` }));
    }
    const userId = email && fields.password ? await checkPassword(services, email, fields.password) : null;
    if (!userId) return sendPage(ctx, 401, loginPage(formToken(ctx, services), next, { email, problem: BAD_SIGN_IN }));
    await signedIn(ctx, services, userId, next);
  });

  router.post('/logout', screen(services, '/board', async (services, { ctx }) => {
    const token = readCookie(ctx, SESSION_COOKIE);
    if (token) await endSession(services, token);
    clearCookie(ctx, services, SESSION_COOKIE);
    seeOther(ctx, '/login');
  }));

  router.post('/organization', screen(services, '/board', async (services, { ctx, session, form }) => {
    await chooseOrganization(services, session, String(form.organization_id ?? '').toLowerCase());
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
    if (!formTokenMatches(ctx, fields._form)) {
      return sendPage(ctx, 403, refusalPage(null, '/login', 403, 'This form is out of date or did not come from this service. Open the link again.'));
    }
    const user = await signInLinkUser(services, ctx.params.token!);
    if (!user) return gone(ctx);
    const weak = passwordProblem(fields.password);
    const problem = weak ? `The password ${weak}.` : fields.password !== fields.confirm ? 'The two passwords differ.' : null;
    if (problem) return sendPage(ctx, 422, choosePage(formToken(ctx, services), user.email, ctx.path, problem));
    const userId = await useSignInLink(services, ctx.params.token!, fields.password!);
    if (!userId) return gone(ctx);
    await signedIn(ctx, services, userId, '/board');
  });
}
