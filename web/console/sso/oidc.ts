/**
 * The relying party's side of OpenID Connect, through `openid-client` (a certified client): discovery from the
 * issuer, the authorization code flow with PKCE (S256), `state` and `nonce`, the ID token checked by the library
 * (issuer, audience, expiry and issued-at against the injected clock, signature from the issuer's JWKS, `nonce`;
 * `alg: none` and HMAC with the client secret are never accepted for ID tokens), userinfo fetched when the ID
 * token lacks the email or the groups claim, and RP-initiated logout when the provider publishes an
 * `end_session_endpoint`.
 *
 * Requests go through `fetch` given: the deployment's own issuer (`VIGIL_OIDC_ISSUER`, the operator's address)
 * uses the platform's fetch, like the other addresses the operator sets; an issuer an organization chose must be
 * handed the guarded client's fetch (outbound/net).
 */
import * as client from 'openid-client';
import type { Clock } from '../../../engine/clock.ts';

export interface OidcProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  /** requested only when the provider's discovery lists them (`groups`: some providers refuse a scope they lack) */
  scopesIfSupported?: readonly string[];
  groupsClaim: string;
}

/** What a flow keeps between its start and its callback (in a signed cookie, sso/routes.ts). */
export interface FlowSecrets {
  state: string;
  nonce: string;
  verifier: string;
}

/** What the provider vouched for, after every check passed. */
export interface Identity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  groups: string[];
  /** the ID token, for the logout request's `id_token_hint` (never stored or shown) */
  idToken: string;
}

/** A refusal of the provider's answer; `reason` is for the operator's log (never a token or a claim value). */
export class OidcRefused extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Discovery is repeated after this long, so a provider's rotated endpoints are found without a restart. */
const DISCOVERY_TTL_MS = 10 * 60_000;
const TIMEOUT_SECONDS = 10;

export class OidcClient {
  readonly #settings: OidcProviderSettings;
  readonly #clock: Clock;
  readonly #fetch: client.CustomFetch | undefined;
  #discovered: { server: client.ServerMetadata; at: number } | undefined;

  constructor(settings: OidcProviderSettings, clock: Clock, requester?: client.CustomFetch) {
    this.#settings = settings;
    this.#clock = clock;
    this.#fetch = requester;
  }

  /** plain http only for a loopback issuer (bin/env.ts refuses any other): trying it out, and the tests */
  get #insecure(): boolean {
    return new URL(this.#settings.issuer).protocol === 'http:';
  }

  async #configuration(): Promise<client.Configuration> {
    const now = this.#clock.now().getTime();
    if (!this.#discovered || now - this.#discovered.at > DISCOVERY_TTL_MS) {
      const found = await client.discovery(new URL(this.#settings.issuer), this.#settings.clientId, undefined, undefined, {
        execute: this.#insecure ? [client.allowInsecureRequests] : [],
        timeout: TIMEOUT_SECONDS,
        ...(this.#fetch ? { [client.customFetch]: this.#fetch } : {}),
      });
      this.#discovered = { server: found.serverMetadata(), at: now };
    }
    const server = this.#discovered.server;
    // the spec's default method is client_secret_basic; a provider that lists only client_secret_post gets that
    const methods = server.token_endpoint_auth_methods_supported;
    const auth = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(this.#settings.clientSecret) : client.ClientSecretPost(this.#settings.clientSecret);
    const config = new client.Configuration(server, this.#settings.clientId, {
      // tokens are judged at the service's clock (injected), not the machine's
      [client.clockSkew]: Math.round((now - Date.now()) / 1000),
    }, auth);
    config.timeout = TIMEOUT_SECONDS;
    if (this.#fetch) config[client.customFetch] = this.#fetch;
    if (this.#insecure) client.allowInsecureRequests(config);
    // the library trusts TLS for an ID token from the token endpoint unless told otherwise (OIDC Core 3.1.3.7 allows
    // it); the signature is checked against the issuer's JWKS all the same, so a token signed with any other key fails
    client.enableNonRepudiationChecks(config);
    return config;
  }

  /** The issuer as discovery answered it (the one ID tokens and RFC 9207 `iss` answers are checked against). */
  get issuer(): string {
    return this.#settings.issuer;
  }

  /** The provider's authorization URL for a new flow, and the secrets the callback needs. */
  async start(redirectUri: string): Promise<{ url: URL; secrets: FlowSecrets }> {
    const config = await this.#configuration();
    const secrets = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: [...this.#settings.scopes, ...(this.#settings.scopesIfSupported ?? []).filter((s) => config.serverMetadata().scopes_supported?.includes(s))].join(' '),
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(secrets.verifier),
      code_challenge_method: 'S256',
      state: secrets.state,
      nonce: secrets.nonce,
    });
    return { url, secrets };
  }

  /** The callback: the code exchanged (PKCE), the ID token checked, userinfo read when needed. Throws OidcRefused. */
  async finish(callbackUrl: URL, secrets: FlowSecrets): Promise<Identity> {
    const config = await this.#configuration();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: secrets.verifier, expectedState: secrets.state, expectedNonce: secrets.nonce, idTokenExpected: true,
      });
    } catch (error) {
      throw refusal(error);
    }
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) throw new OidcRefused('no_id_token', 'The identity provider did not answer with an ID token.');
    let info: Record<string, unknown> = { ...claims };
    const groupsClaim = this.#settings.groupsClaim;
    if ((info.email === undefined || info[groupsClaim] === undefined) && config.serverMetadata().userinfo_endpoint) {
      try {
        // fetchUserInfo checks that the answer is about the ID token's subject
        const more = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        info = { ...more, ...info };
        if (info.email === undefined && more.email !== undefined) info = { ...info, email: more.email, email_verified: more.email_verified, xms_edov: more.xms_edov };
      } catch (error) {
        throw refusal(error);
      }
    }
    return {
      subject: claims.sub,
      email: typeof info.email === 'string' ? info.email.trim().toLowerCase() : null,
      emailVerified: vouchedFor(info),
      name: typeof info.name === 'string' ? info.name : null,
      groups: groupsOf(info, groupsClaim),
      idToken: tokens.id_token,
    };
  }

  /** Where the browser goes to end the provider's session too; null when the provider publishes no logout. */
  async logoutUrl(postLogoutRedirectUri: string, idToken?: string): Promise<URL | null> {
    const config = await this.#configuration();
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, {
      client_id: this.#settings.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
      ...(idToken ? { id_token_hint: idToken } : {}),
    });
  }
}

/** The groups claim as strings: an array (Keycloak, Okta, Authentik, Entra) or one string; a dotted path reaches in. */
function groupsOf(info: Record<string, unknown>, claim: string): string[] {
  let value: unknown = claim in info ? info[claim] : claim.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), info);
  if (typeof value === 'string') value = [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string').map((g) => g.replace(/^\//, '')) : [];
}

/** The library's error as a refusal: its code for the log, one sentence for the person. */
function refusal(error: unknown): OidcRefused {
  if (error instanceof OidcRefused) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcRefused(`provider:${error.error}`, `The identity provider did not sign you in (${error.error.slice(0, 60)}). Try again, or ask your administrator.`);
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcRefused(`token_endpoint:${error.error}`, 'The identity provider refused to complete this sign-in. Start again from the sign-in page.');
  }
  const code = error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : 'error';
  const detail = error instanceof Error ? error.message.slice(0, 200) : '';
  return new OidcRefused(`${code}${detail ? `: ${detail}` : ''}`, 'The identity provider\'s answer could not be verified, so you are not signed in. Start again from the sign-in page.');
}

/**
 * Whether the provider vouches for the email: `email_verified` true, only the boolean. Microsoft Entra ID sends no
 * `email_verified` for work accounts; its optional claim `xms_edov` (the email's domain owner is verified by the
 * tenant) stands in for it, and only when `email_verified` is absent altogether, so a provider's `false` always wins.
 */
function vouchedFor(info: Record<string, unknown>): boolean {
  if (info.email_verified !== undefined) return info.email_verified === true;
  return info.xms_edov === true;
}
