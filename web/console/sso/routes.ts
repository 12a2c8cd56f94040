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
 *
 * An organization's own provider (resources/sso_settings.ts, tenant.ts) uses the same callback:
 * - `POST /login/sso` (the sign-in page's email, with its form token) finds the organization that claims the email's
 *   domain and starts a flow at its provider; the answer is a page that moves on to the provider at once (a meta
 *   refresh and a link: a form's redirect to another origin would break the console's `form-action 'self'`).
 * - The flow cookie names the provider the flow started with (`provider`: the organization, and its issuer); the
 *   callback uses that provider only, refuses the flow when the organization's issuer changed since, and openid-client
 *   refuses an answer from another issuer (RFC 9207 `iss`, the ID token's `iss`): an answer of one provider is never
 *   accepted for a flow started at another (mix-up). The person becomes a member of that organization only.
 * - Signing out of such a session (`POST /logout`, sign-in.ts) ends Vigil's session, then answers with a page that
 *   moves on to the organization's provider's `end_session_endpoint` (`logoutOfOrganization`), for the same reason.
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
import { html } from '../../../engine/html.ts';
import { documentOf } from '../layout.ts';
import { providerForEmail, providerOfOrganization, type TenantClients, type TenantProvider } from './tenant.ts';
import { OidcClient, OidcRefused, type FlowSecrets } from './oidc.ts';

export const OIDC_START_PATH = '/login/oidc';
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';
const FLOW_COOKIE = 'vigil_oidc';
const FLOW_PURPOSE = 'console oidc flow';
/** a person has this long at the provider between leaving and coming back */
const FLOW_SECONDS = 10 * 60;

interface Flow extends FlowSecrets {
  next: string;
  /** the provider the flow started with: '' the deployment's, else the organization whose own provider it is */
  provider: string;
  /** that provider's issuer when the flow started */
  issuer: string;
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
    const strings = [flow.state, flow.nonce, flow.verifier, flow.next, flow.provider, flow.issuer].every((v) => typeof v === 'string');
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

/** The provider a callback's flow names, as the callback uses it; null when it is gone or changed since the flow began. */
interface FlowProvider {
  name: string;
  oidc: OidcClient;
  organization: string;
  allowedDomains: readonly string[];
  role(groups: readonly string[]): ReturnType<typeof mappedRole>;
  /** sessions of the deployment's provider also end at the provider on sign-out */
  sso: boolean;
  /**
   * an organization's provider vouches for people in that organization only: its sessions act there alone (else an
   * organization's admin, who controls the provider, could sign in as a person of another organization)
   */
  confine: boolean;
}

export interface DeploymentProvider {
  settings: OidcSettings;
  oidc: OidcClient;
}

function tenantFlowProvider(tenant: TenantProvider, clients: TenantClients): FlowProvider {
  return {
    name: tenant.name, oidc: clients.for(tenant), organization: tenant.organizationId, allowedDomains: tenant.allowedDomains,
    role: (groups) => mappedRole(groups, tenant.roleMappings, tenant.defaultRole),
    // sign-out of its sessions reaches its logout by a page that moves on (logoutOfOrganization), not by the
    // deployment's redirect: the console's form-action allows one provider's origin, the deployment's
    sso: false,
    confine: true,
  };
}

/**
 * A page that moves on to the provider at once: no script (the console has none), a Refresh header and a link. A
 * refresh is a new navigation, which the console's `form-action 'self'` does not govern (a form's redirect is).
 */
function movingOn(ctx: Context, title: string, said: string, link: string, url: string): void {
  sendPage(ctx, 200, documentOf(title, html`<main id="main" class="centered stack"><h1>${title}</h1>
<p>${said}</p><p><a class="button" id="continue" href="${url}">${link}</a></p></main>`));
  ctx.set('Refresh', `0; url=${url}`);
}

export function oidcRoutes(router: Router, services: Services, deployment: DeploymentProvider | undefined, tenants: TenantClients) {
  const redirectUri = `${services.config.publicUrl}${OIDC_CALLBACK_PATH}`;
  const settings = deployment?.settings;
  if (deployment && settings) {
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
        started = await deployment.oidc.start(redirectUri);
      } catch (error) {
        services.log.warn({ event: 'oidc_discovery_failed', reason: error instanceof Error ? error.message.slice(0, 200) : 'error' }, 'the OpenID Connect provider could not be reached');
        return refuse(ctx, 503, `${settings.name} cannot be reached just now, so single sign-on is unavailable. Try again in a moment.`);
      }
      writeFlow(ctx, services, { ...started.secrets, next: safeNext(ctx.query.next), provider: '', issuer: settings.issuer, until: services.clock.now().getTime() + FLOW_SECONDS * 1000 });
      seeOther(ctx, started.url.href);
    });
  }

  /** Starts a flow at the organization's own provider; the caller checked the form token. */
  async function startTenant(ctx: Context, tenant: TenantProvider, next: string): Promise<void> {
    const oidc = tenants.for(tenant);
    let started: Awaited<ReturnType<OidcClient['start']>>;
    try {
      started = await oidc.start(redirectUri);
    } catch (error) {
      services.log.warn({ event: 'oidc_discovery_failed', organization_id: tenant.organizationId, reason: error instanceof Error ? error.message.slice(0, 200) : 'error' }, 'an organization\'s OpenID Connect provider could not be reached');
      return refuse(ctx, 503, `${tenant.name} cannot be reached just now, so single sign-on is unavailable. Try again in a moment, or ask your administrator.`);
    }
    writeFlow(ctx, services, { ...started.secrets, next, provider: tenant.organizationId, issuer: tenant.issuer, until: services.clock.now().getTime() + FLOW_SECONDS * 1000 });
    movingOn(ctx, `Sign in with ${tenant.name}`, `Taking you to ${tenant.name}…`, `Continue to ${tenant.name}`, started.url.href);
  }

  /**
   * Sign-out of a session the organization's own provider opened (its Vigil session is already gone): when that
   * provider publishes an `end_session_endpoint` (its discovery, through the guarded client), a page that moves on
   * to it with `client_id` and `post_logout_redirect_uri` (`<PUBLIC_URL>/login`), as the deployment's sign-out does;
   * false when it publishes none, cannot be reached, or the organization has no provider any more (the caller then
   * goes to the sign-in page: the person is signed out of Vigil either way).
   */
  async function logoutOfOrganization(ctx: Context, organizationId: string): Promise<boolean> {
    const tenant = await providerOfOrganization(services, organizationId);
    if (!tenant) return false;
    let url: URL | null;
    try {
      url = await tenants.for(tenant).logoutUrl(`${services.config.publicUrl}/login`);
    } catch (error) {
      services.log.warn({ event: 'oidc_logout_unreachable', organization_id: organizationId, reason: error instanceof Error ? error.message.slice(0, 200) : 'error' }, 'an organization\'s OpenID Connect provider could not be reached for sign-out');
      return false;
    }
    if (!url) return false;
    movingOn(ctx, `Signing out of ${tenant.name}`, `You are signed out of Vigil. Taking you to ${tenant.name} to end your session there too…`, `Sign out of ${tenant.name}`, url.href);
    return true;
  }

  /** The provider the flow started with, as it stands now; null when it is gone or its issuer changed. */
  async function providerOf(flow: Flow): Promise<FlowProvider | null> {
    if (flow.provider === '') {
      if (!deployment || !settings || settings.issuer !== flow.issuer) return null;
      return {
        name: settings.name, oidc: deployment.oidc, organization: settings.organization, allowedDomains: settings.allowedDomains, sso: true, confine: false,
        role: (groups) => mappedRole(groups, settings.roleMappings, settings.defaultRole),
      };
    }
    const tenant = await providerOfOrganization(services, flow.provider);
    return tenant && tenant.issuer === flow.issuer ? tenantFlowProvider(tenant, tenants) : null;
  }

  router.get(OIDC_CALLBACK_PATH, async (ctx) => {
    const flow = readFlow(ctx, services);
    clearCookie(ctx, services, flowCookie(services));
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    if (!flow || !constantTimeEqual(state, flow.state)) {
      services.log.warn({ event: 'oidc_refused', reason: flow ? 'state_mismatch' : 'no_flow' }, 'an OpenID Connect callback was refused');
      return refuse(ctx, 400, 'This sign-in did not start in this browser, or took too long. Start again from the sign-in page.');
    }
    const provider = await providerOf(flow);
    if (!provider) {
      services.log.warn({ event: 'oidc_refused', reason: 'provider_changed' }, 'an OpenID Connect callback was refused');
      return refuse(ctx, 400, 'Single sign-on was changed while you were signing in. Start again from the sign-in page.');
    }
    let identity;
    try {
      identity = await provider.oidc.finish(new URL(`${redirectUri}${ctx.search}`), flow);
    } catch (error) {
      if (!(error instanceof OidcRefused)) throw error;
      services.log.warn({ event: 'oidc_refused', reason: error.reason }, 'an OpenID Connect callback was refused');
      return refuse(ctx, 400, error.message);
    }
    if (!identity.email || !identity.emailVerified) {
      services.log.info({ event: 'oidc_refused', reason: identity.email ? 'email_not_verified' : 'no_email' }, 'an OpenID Connect sign-in was refused');
      return refuse(ctx, 403, `${provider.name} did not vouch for your email address (it is missing or not verified), so Vigil cannot sign you in. Verify your email with your identity provider, or ask your administrator.`);
    }
    if (!domainAllowed(identity.email, provider.allowedDomains)) {
      services.log.info({ event: 'oidc_refused', reason: 'domain_not_allowed' }, 'an OpenID Connect sign-in was refused');
      return refuse(ctx, 403, `Accounts of ${identity.email.slice(identity.email.lastIndexOf('@') + 1)} cannot sign in here. Sign in with your work account, or ask your administrator.`);
    }
    const role = provider.role(identity.groups);
    const outcome = await applySsoSignIn(services, { email: identity.email, name: identity.name }, provider.organization, role);
    if (outcome.kind === 'no_organization') {
      services.log.error({ event: 'oidc_refused', reason: 'organization_not_found' }, 'the single sign-on provider names no enabled organization');
      return refuse(ctx, 503, 'Single sign-on is not set up completely here (its organization is missing or disabled). Tell your operator.');
    }
    if (outcome.kind === 'removed') {
      services.log.info({ event: 'oidc_refused', reason: 'no_role', organization_id: outcome.organizationId }, 'an OpenID Connect sign-in mapped to no role');
      clearCookie(ctx, services, SESSION_COOKIE);
      return refuse(ctx, 403, 'None of your groups gives access to Vigil, so you are signed out and have no access here. Ask your administrator to add you to a group that does.');
    }
    const token = await openSession(services, outcome.userId, { organizationId: outcome.organizationId, sso: provider.sso, confine: provider.confine });
    if (!token) return refuse(ctx, 403, 'Your account is not a member of any enabled organization. Ask your operator to add you.');
    services.log.info({ event: 'oidc_signed_in', organization_id: outcome.organizationId, role: outcome.role, new_user: outcome.created }, 'signed in with OpenID Connect');
    setCookie(ctx, services, SESSION_COOKIE, token);
    seeOther(ctx, flow.next);
  });

  return { startTenant, logoutOfOrganization, providerForEmail: (email: string) => providerForEmail(services, email) };
}
