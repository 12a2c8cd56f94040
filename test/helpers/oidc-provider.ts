/**
 * A real OpenID provider inside a test: panva's `oidc-provider` (certified OP) on a loopback port, with its
 * development login page (any login name is an account of `accounts`, any password), consent granted on the
 * spot, PKCE required, RP-initiated logout on (`logout: false`: off, no `end_session_endpoint` in discovery). The claims of each account are a mutable map, so a test changes a
 * person's groups between two sign-ins.
 *
 * `tamper` replaces the ID token the token endpoint answers with (for the refusal tests): `mint` signs claims
 * of your choosing with the provider's own key, another key, or none (`alg: none`).
 */
import { createPrivateKey, generateKeyPairSync, sign as signWith, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations (it is driven here with plain objects)
import Provider from 'oidc-provider';

export interface Claims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  [claim: string]: unknown;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login name → claims; change them between sign-ins */
  accounts: Map<string, Claims>;
  /** replaces the ID token answered by the token endpoint; undefined answers the real one */
  tamper: ((idToken: string) => string) | undefined;
  /** rewrites the provider's redirect back to the service (the callback URL with `code` and `state`); undefined keeps it */
  redirect: ((callback: URL) => URL) | undefined;
  /** how many logout (end_session) requests reached the provider */
  logouts: number;
  /** a JWT of `claims`, signed with `key` ('provider': the provider's key in its JWKS; 'other': a key not in it; 'none': alg none) */
  mint(claims: Record<string, unknown>, key: 'provider' | 'other' | 'none'): string;
  /** the claims of a JWT (not checked) */
  decode(jwt: string): Record<string, unknown>;
  close(): Promise<void>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function jwt(claims: Record<string, unknown>, key: KeyObject | null, kid: string): string {
  const header = key ? { alg: 'RS256', typ: 'JWT', kid } : { alg: 'none', typ: 'JWT' };
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${key ? signWith('sha256', Buffer.from(input), key).toString('base64url') : ''}`;
}

/**
 * The provider's address at once (the service under test needs its issuer to start), and `serve(serviceUrl)` to
 * register that service as the client (its redirect URI is only known once it listens) and start answering.
 */
export async function startProvider(accounts: Record<string, Claims> = {}, options: { logout?: boolean } = {}): Promise<TestProvider & { serve(serviceUrl: string): void }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = 'test-key';
  const people = new Map(Object.entries(accounts));
  const clientId = 'vigil-test';
  const clientSecret = 'a-client-secret-of-the-test-provider';
  const made: TestProvider & { serve(serviceUrl: string): void } = {
    issuer, clientId, clientSecret, accounts: people, tamper: undefined, redirect: undefined, logouts: 0,
    mint: (claims, key) => jwt(claims, key === 'none' ? null : key === 'provider' ? privateKey : createPrivateKey(other.export({ format: 'pem', type: 'pkcs8' })), kid),
    decode: (token) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    serve: (serviceUrl) => server.on('request', providerFor(serviceUrl).callback()),
  };
  const providerFor = (serviceUrl: string) => {
    const provider = new Provider(issuer, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${serviceUrl}/login/oidc/callback`],
        post_logout_redirect_uris: [`${serviceUrl}/login`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      }],
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' }] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      scopes: ['openid', 'email', 'profile', 'groups'],
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: options.logout !== false } },
      cookies: { keys: ['test-provider-cookie-key'] },
      async findAccount(_ctx: unknown, id: string) {
        const claims = people.get(id);
        return claims ? { accountId: id, claims: async () => ({ sub: id, ...people.get(id) }) } : undefined;
      },
      // consent is granted at once: the test drives sign-in, not the provider's consent page
      async loadExistingGrant(ctx: any) {
        const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
        grant.addOIDCScope('openid email profile groups');
        await grant.save();
        return grant;
      },
    } as any);
    provider.use(async (ctx: any, next: () => Promise<void>) => {
      if (ctx.path === '/session/end') made.logouts += 1;
      await next();
      const location = ctx.response.get('location');
    if (made.redirect && ctx.status >= 300 && ctx.status < 400 && location.includes('/login/oidc/callback?')) ctx.redirect(made.redirect(new URL(location)).href);
    if (ctx.path === '/token' && made.tamper && ctx.body && typeof ctx.body.id_token === 'string') ctx.body = { ...ctx.body, id_token: made.tamper(ctx.body.id_token) };
    });
    return provider;
  };
  return made;
}
