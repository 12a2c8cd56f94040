/**
 * The code host's REST API (GitHub's shape) as the installed app: fix pull requests use it, and anything else
 * that acts through an organization's installation (issue search for ticket import) can reuse it.
 *
 * Authentication is GitHub's own for apps: a JWT signed RS256 with the app's private key (by
 * `universal-github-app-jwt`; `iss` the app id, valid 10 minutes, issued 30 s in the past against clock skew) is
 * exchanged at `POST /app/installations/{installation_id}/access_tokens` for an installation token, which every
 * call then carries as `Authorization: Bearer …`. Installation tokens live an hour; one is reused per
 * installation in this process until five minutes before its `expires_at`.
 *
 * The base URL, app id and private key are deployment settings (`ServiceConfig.codeHost`: `VIGIL_CODE_HOST_*`).
 * Calls go through the guarded outbound client (outbound/net/http.ts: the address policy, a timeout, 15 s by default,
 * at most `MAX_ANSWER_BYTES` read), since answers carry what payloads and repositories chose. Redirects are
 * followed only to the same origin (GitHub answers 301/307 for a renamed or moved repository), at most three
 * times; a redirect to another host is refused, so the token never leaves for it. A code host that gave no
 * answer "could not be reached", whatever kept it from answering (the operator's log says what).
 *
 * Secrets: neither the private key, the JWT nor an installation token appears in an error, a log line or a
 * return value other than the token request itself. Errors carry the method, the path and the status, plus at
 * most 200 characters of the code host's own `message`.
 */
import githubAppJwt from 'universal-github-app-jwt';
import type { Services } from '../../engine/services.ts';
import type { CodeHostSettings } from './config.ts';
import { OutboundError, outboundHttp, type OutboundHttp } from './http.ts';

export const DEFAULT_CODE_HOST_API_URL = 'https://api.github.com';
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;
/** file contents come base64 in JSON: a large source file, with room */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** an installation token is renewed this long before its expiry */
const TOKEN_MARGIN_MS = 5 * 60_000;

export type CodeHostErrorKind = 'not_configured' | 'credentials' | 'http' | 'unreachable' | 'redirect' | 'answer';

export class CodeHostError extends Error {
  readonly kind: CodeHostErrorKind;
  /** the HTTP status the code host answered, when it answered */
  readonly status?: number;
  constructor(kind: CodeHostErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'CodeHostError';
    this.kind = kind;
    this.status = status;
  }
}

export interface CodeHostResponse<T = any> {
  status: number;
  body: T;
}

export interface CodeHost {
  /** The installation id this client acts as. */
  readonly installationId: string;
  /**
   * One REST call as the installation. Answers 2xx statuses, and the statuses listed in `accept` (such as 404
   * for "does it exist?"); any other answer throws a `CodeHostError`.
   */
  request<T = any>(method: string, path: string, body?: unknown, accept?: readonly number[]): Promise<CodeHostResponse<T>>;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** installation tokens per deployment (the Services object) and installation */
const tokens = new WeakMap<Services, Map<string, Promise<CachedToken>>>();

/** The deployment's code-host settings, or why there are none. */
export function codeHostSettings(services: Services): CodeHostSettings & { configured: boolean } {
  const settings = services.config.codeHost;
  const apiUrl = (settings?.apiUrl || DEFAULT_CODE_HOST_API_URL).replace(/\/+$/, '');
  return { ...settings, apiUrl, configured: Boolean(settings?.appId && settings?.privateKey) };
}

const shortMessage = (body: unknown): string => {
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  if (typeof message !== 'string' || message.trim() === '') return '';
  const text = message.replace(/\s+/g, ' ').trim();
  return `: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
};

function readBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * One HTTP call through the guarded client. `authorization` is sent only to the base URL's origin (the client
 * follows same-origin redirects only). `what` names the call in errors (method and path, never the query's
 * values or a token).
 */
async function call(http: OutboundHttp, settings: CodeHostSettings, method: string, path: string, authorization: string, body: unknown, what: string): Promise<CodeHostResponse> {
  let res;
  try {
    res = await http.request({
      url: `${settings.apiUrl}${path}`,
      method,
      timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
      maxResponseBytes: MAX_ANSWER_BYTES,
      purpose: 'code host',
      headers: {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'vigil-fix-requests',
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    if (error instanceof OutboundError && error.kind === 'redirect') throw new CodeHostError('redirect', `The code host redirected ${what} to another host; the redirect was not followed.`);
    throw new CodeHostError('unreachable', `The code host could not be reached for ${what}.`);
  }
  if (res.truncated) throw new CodeHostError('answer', `The code host answered ${what} with more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB.`, res.status);
  return { status: res.status, body: readBody(res.body) };
}

async function installationToken(services: Services, settings: CodeHostSettings, installationId: string): Promise<CachedToken> {
  let jwt: string;
  try {
    const nowSeconds = Math.floor(services.clock.now().getTime() / 1000);
    jwt = (await githubAppJwt({ id: settings.appId!, privateKey: settings.privateKey!, now: nowSeconds })).token;
  } catch {
    // the library's message may describe the key; say only what to check
    throw new CodeHostError('credentials', 'The code-host app\'s private key could not sign a token: check VIGIL_CODE_HOST_APP_PRIVATE_KEY (a PEM private key).');
  }
  const path = `/app/installations/${encodeURIComponent(installationId)}/access_tokens`;
  const what = 'POST /app/installations/{installation_id}/access_tokens';
  const res = await call(outboundHttp(services), settings, 'POST', path, `Bearer ${jwt}`, undefined, what);
  if (res.status !== 201 && res.status !== 200) {
    const hint =
      res.status === 404 ? ' (the installation does not exist or the app was uninstalled: check code_host_settings.installation_id)'
        : res.status === 401 ? ' (the app id or private key is not the app\'s: check VIGIL_CODE_HOST_APP_ID and VIGIL_CODE_HOST_APP_PRIVATE_KEY)'
          : '';
    throw new CodeHostError('credentials', `The code host refused the app's installation token: ${what} answered HTTP ${res.status}${hint}.`, res.status);
  }
  const token = (res.body as { token?: unknown } | null)?.token;
  if (typeof token !== 'string' || token === '') throw new CodeHostError('answer', `The code host answered ${what} without a token.`);
  const expires = Date.parse(String((res.body as { expires_at?: unknown }).expires_at ?? ''));
  // without an expiry, assume GitHub's hour
  return { token, expiresAt: Number.isNaN(expires) ? services.clock.now().getTime() + 3_600_000 : expires };
}

/** The cached token, or a new one (one request in flight per installation). */
async function tokenFor(services: Services, settings: CodeHostSettings, installationId: string, renew = false): Promise<string> {
  let perService = tokens.get(services);
  if (!perService) tokens.set(services, (perService = new Map()));
  const key = `${settings.apiUrl}\n${settings.appId}\n${installationId}`;
  const cached = perService.get(key);
  if (cached && !renew) {
    const held = await cached.catch(() => null);
    if (held && held.expiresAt - TOKEN_MARGIN_MS > services.clock.now().getTime()) return held.token;
    if (perService.get(key) !== cached) return tokenFor(services, settings, installationId);
  }
  const fresh = installationToken(services, settings, installationId);
  perService.set(key, fresh);
  try {
    return (await fresh).token;
  } catch (error) {
    if (perService.get(key) === fresh) perService.delete(key);
    throw error;
  }
}

/** A client acting as the organization's app installation. Throws `not_configured` when the deployment has no app. */
export function codeHostClient(services: Services, installationId: string): CodeHost {
  const settings = codeHostSettings(services);
  if (!settings.configured) {
    throw new CodeHostError('not_configured', 'This deployment has no code-host app configured (VIGIL_CODE_HOST_APP_ID and VIGIL_CODE_HOST_APP_PRIVATE_KEY).');
  }
  return {
    installationId,
    async request(method, path, body, accept = []) {
      const what = `${method} ${path.split('?')[0]}`;
      let res = await call(outboundHttp(services), settings, method, path, `Bearer ${await tokenFor(services, settings, installationId)}`, body, what);
      // a token revoked or expired early: renew once
      if (res.status === 401) res = await call(outboundHttp(services), settings, method, path, `Bearer ${await tokenFor(services, settings, installationId, true)}`, body, what);
      if ((res.status >= 200 && res.status < 300) || accept.includes(res.status)) return res;
      throw new CodeHostError('http', `The code host answered ${what} with HTTP ${res.status}${shortMessage(res.body)}.`, res.status);
    },
  };
}

/** Path segments of `owner/name`, encoded. */
export function repoPath(repo: string): string {
  const [owner, name] = repo.split('/');
  return `/repos/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}`;
}
