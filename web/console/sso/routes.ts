/**
 * Signing in with the deployment's OpenID Connect provider (`VIGIL_OIDC_*`):
 *
 * - `GET /login/oidc?next=…` starts a flow: a new `state`, `nonce` and PKCE verifier go into a short-lived cookie
 *   signed with the deployment's key (`vigil_oidc`, `__Host-` over https; HttpOnly, SameSite=Lax so the provider's
 *   redirect back carries it), and the browser goes to the provider.
 * - `GET /login/oidc/callback` (the redirect URI, `<PUBLIC_URL>/login/oidc/callback`) takes the cookie once (it is
 *   cleared whatever happens), refuses a `state` that is not the cookie's, and hands the rest to openid-client
 *   (oidc.ts). Then: the email must be verified by the provider and in an allowed domain; the person's groups map to
 *   a role (the highest), or the default role, or none; with a role the user and membership are made or updated
 *   (engine/auth/sso.ts) and a session opens in that organization; with none the membership is removed, the
 *   person's sessions there end, and the page says so.
 * - Every refusal is a page that says what happened, with no session.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { constantTimeEqual } from '../../../engine/crypto.ts';
import { applySsoSignIn } from '../../../engine/auth/sso.ts';
import { openSession } from '../../../engine/auth/sessions.ts';
import type { Services } from '../../../engine/services.ts';
import { clearCookie, readCookie, safeNext, seeOther, sendPage, SESSION_COOKIE, setCookie } from '../http.ts';
import { refusalPage } from '../page.ts';
import { mappedRole, type OidcSettings } from './config.ts';
import { OidcClient, OidcRefused, type FlowSecrets } from './oidc.ts';

export const OIDC_START_PATH = '/login/oidc';
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';
const FLOW_COOKIE = 'vigil_oidc';
const FLOW_PURPOSE = 'console oidc flow';
/** a person has this long at the provider between leaving and coming back */
const FLOW_SECONDS = 10 * 60;

interface Flow extends FlowSecrets {
  next: string;
  /** when the flow stops being accepted, ms since the epoch (the injected clock) */
  until: number;
}

const flowCookie = (services: Services) => (services.config.publicUrl.startsWith('https:') ? `__Host-${FLOW_COOKIE}` : FLOW_COOKIE);

function writeFlow(ctx: Context, services: Services, flow: Flow): void {
  const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
  setCookie(ctx, services, flowCookie(services), `${payload}.${services.secrets.sign(FLOW_PURPOSE, payload)}`, FLOW_SECONDS);
}

/** The flow this browser started here, unexpired and signed by this deployment; undefined otherwise. */
function readFlow(ctx: Context, services: Services): Flow | undefined {
  const [payload, mac, extra] = (readCookie(ctx, flowCookie(services)) ?? '').split('.');
  if (!payload || !mac || extra !== undefined || payload.length > 2000) return undefined;
  if (!constantTimeEqual(mac, services.secrets.sign(FLOW_PURPOSE, payload))) return undefined;
  try {
    const flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flow;
    const strings = [flow.state, flow.nonce, flow.verifier, flow.next].every((v) => typeof v === 'string');
    return strings && typeof flow.until === 'number' && flow.until > services.clock.now().getTime() ? flow : undefined;
  } catch {
    return undefined;
  }
}

function refuse(ctx: Context, status: number, message: string): void {
  sendPage(ctx, status, refusalPage(null, '/login', status, message));
}

/** The email's domain is one the settings allow (any, when none are listed). */
function domainAllowed(email: string, allowed: readonly string[]): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return allowed.length === 0 || allowed.includes(domain);
}

export function oidcRoutes(router: Router, services: Services, settings: OidcSettings, oidc: OidcClient): void {
  const redirectUri = `${services.config.publicUrl}${OIDC_CALLBACK_PATH}`;
  // signing out posts to /logout, which redirects to the provider's logout: a browser holds a form's redirects to
  // the page's form-action, so the console's pages allow the issuer's origin there too (and no other)
  const issuerOrigin = new URL(settings.issuer).origin;
  router.use(async (ctx, next) => {
    await next();
    const policy = ctx.response.get('Content-Security-Policy');
    if (policy) ctx.set('Content-Security-Policy', policy.replace("form-action 'self'", `form-action 'self' ${issuerOrigin}`));
  });

  router.get(OIDC_START_PATH, async (ctx) => {
    let started: Awaited<ReturnType<OidcClient['start']>>;
    try {
      started = await oidc.start(redirectUri);
    } catch (error) {
      services.log.warn({ event: 'oidc_discovery_failed', reason: error instanceof Error ? error.message.slice(0, 200) : 'error' }, 'the OpenID Connect provider could not be reached');
      return refuse(ctx, 503, `${settings.name} cannot be reached just now, so single sign-on is unavailable. Try again in a moment.`);
    }
    writeFlow(ctx, services, { ...started.secrets, next: safeNext(ctx.query.next), until: services.clock.now().getTime() + FLOW_SECONDS * 1000 });
    seeOther(ctx, started.url.href);
  });

  router.get(OIDC_CALLBACK_PATH, async (ctx) => {
    const flow = readFlow(ctx, services);
    clearCookie(ctx, services, flowCookie(services));
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    if (!flow || !constantTimeEqual(state, flow.state)) {
      services.log.warn({ event: 'oidc_refused', reason: flow ? 'state_mismatch' : 'no_flow' }, 'an OpenID Connect callback was refused');
      return refuse(ctx, 400, 'This sign-in did not start in this browser, or took too long. Start again from the sign-in page.');
    }
    let identity;
    try {
      identity = await oidc.finish(new URL(`${redirectUri}${ctx.search}`), flow);
    } catch (error) {
      if (!(error instanceof OidcRefused)) throw error;
      services.log.warn({ event: 'oidc_refused', reason: error.reason }, 'an OpenID Connect callback was refused');
      return refuse(ctx, 400, error.message);
    }
    if (!identity.email || !identity.emailVerified) {
      services.log.info({ event: 'oidc_refused', reason: identity.email ? 'email_not_verified' : 'no_email' }, 'an OpenID Connect sign-in was refused');
      return refuse(ctx, 403, `${settings.name} did not vouch for your email address (it is missing or not verified), so Vigil cannot sign you in. Verify your email with your identity provider, or ask your administrator.`);
    }
    if (!domainAllowed(identity.email, settings.allowedDomains)) {
      services.log.info({ event: 'oidc_refused', reason: 'domain_not_allowed' }, 'an OpenID Connect sign-in was refused');
      return refuse(ctx, 403, `Accounts of ${identity.email.slice(identity.email.lastIndexOf('@') + 1)} cannot sign in here. Sign in with your work account, or ask your administrator.`);
    }
    const role = mappedRole(identity.groups, settings.roleMappings, settings.defaultRole);
    const outcome = await applySsoSignIn(services, { email: identity.email, name: identity.name }, settings.organization, role);
    if (outcome.kind === 'no_organization') {
      services.log.error({ event: 'oidc_refused', reason: 'organization_not_found' }, 'VIGIL_OIDC_ORGANIZATION names no enabled organization');
      return refuse(ctx, 503, 'Single sign-on is not set up completely here (its organization is missing or disabled). Tell your operator.');
    }
    if (outcome.kind === 'removed') {
      services.log.info({ event: 'oidc_refused', reason: 'no_role', organization_id: outcome.organizationId }, 'an OpenID Connect sign-in mapped to no role');
      clearCookie(ctx, services, SESSION_COOKIE);
      return refuse(ctx, 403, 'None of your groups gives access to Vigil, so you are signed out and have no access here. Ask your administrator to add you to a group that does.');
    }
    const token = await openSession(services, outcome.userId, { organizationId: outcome.organizationId, sso: true });
    if (!token) return refuse(ctx, 403, 'Your account is not a member of any enabled organization. Ask your operator to add you.');
    services.log.info({ event: 'oidc_signed_in', organization_id: outcome.organizationId, role: outcome.role, new_user: outcome.created }, 'signed in with OpenID Connect');
    setCookie(ctx, services, SESSION_COOKIE, token);
    seeOther(ctx, flow.next);
  });
}
