/**
 * The one guarded way out: every request the service makes to an address an organization or a payload chose
 * (webhook deliveries, chat, AI providers, trackers, the code host, synthetic checks, certificate monitors, SNS)
 * goes through `OutboundHttp`, safe against server-side request forgery:
 *
 * - only `http:` and `https:` URLs, without credentials in them;
 * - the host name is resolved here and every address it resolves to is judged by the address policy
 *   (addresses.ts) before a connection is made, and the connection goes to the address that was judged (no
 *   second lookup a DNS rebinding could change); an IP literal is judged the same way;
 * - a redirect is followed only to the same origin (scheme, host, port), judged again, at most `maxRedirects`
 *   times: 307 and 308 always (they keep the method and body), 301, 302 and 303 only for GET and HEAD; a redirect
 *   to another origin is never followed (`OutboundError` kind `redirect`); any other 3xx, and every 3xx once the
 *   redirects allowed are used up (none with `maxRedirects` 0), is answered as it is;
 * - the whole exchange (lookup, connect, request, response body) has one deadline, `timeoutMs`;
 * - at most `maxResponseBytes` of the answer are read.
 *
 * A refused address, a failed lookup, a refused connection and a timeout are one failure for the caller
 * (`OutboundError` kind `unreachable`, message "could not be reached"), so what a caller shows cannot map the
 * networks behind the service; the operator's log line says which rule refused the address or what failed
 * (`detail`), with the purpose and host, never a path, header or body. A refusal happens before any packet
 * leaves for the refused address.
 *
 * `peerCertificate` is the TLS equivalent for certificate monitors: a handshake under the same policy, reading
 * the certificate.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls, { type PeerCertificate } from 'node:tls';
import type { Logger } from '../../engine/logger.ts';
import type { OutboundSettings } from './config.ts';
import { addressPolicy, describeRefusal, refusal, type AddressPolicy, type Widening } from './addresses.ts';

export type { Widening } from './addresses.ts';

export interface OutboundOptions {
  policy: AddressPolicy;
  /** how host names are resolved (default: the system resolver); tests inject one */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** where refusals and failures are logged for the operator */
  log?: Logger;
}

/** What every call says about itself: its purpose (logged) and what it may reach beyond the deployment's policy. */
export interface OutboundCall {
  /** what the call is for, in the operator's log ("ai provider", "ticket import"…) */
  purpose: string;
  /** one deadline for the whole exchange */
  timeoutMs: number;
  /** checks only: what their own settings open */
  widening?: Widening;
}

export interface OutboundRequest extends OutboundCall {
  url: string;
  /** default POST */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** same-origin redirects followed (default 3; 0 follows none) */
  maxRedirects?: number;
  /** the answer's body is read up to this size (default 64 KiB), the rest dropped */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** whether the body was longer than `maxResponseBytes` */
  truncated: boolean;
  /** from the first byte sent to the last byte read, in ms */
  latencyMs: number;
}

export interface TlsPeer extends OutboundCall {
  host: string;
  port: number;
  /** the server name sent (SNI); none for an IP literal */
  servername?: string;
}

/**
 * The request did not get an answer: `unreachable` (a refused address or scheme, a failed lookup or connection, a
 * timeout: one message for all) or `redirect` (the answer redirected to another origin). `detail` is for the
 * operator's log and tests, never for a caller's answer.
 */
export class OutboundError extends Error {
  readonly kind: 'unreachable' | 'redirect';
  readonly detail: string;
  constructor(kind: 'unreachable' | 'redirect', detail: string) {
    super(kind === 'unreachable' ? 'could not be reached' : 'answered with a redirect to another host, which is never followed');
    this.name = 'OutboundError';
    this.kind = kind;
    this.detail = detail;
  }
}

const DEFAULT_MAX_BYTES = 64 * 1024;
const KEEPS_METHOD = new Set([307, 308]);
/** followed for GET and HEAD only: for another method they would turn the request into a GET */
const GET_ONLY = new Set([301, 302, 303]);

const systemResolve = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** An error's code only: messages can carry addresses. */
const code = (error: unknown) => (error as NodeJS.ErrnoException)?.code ?? 'error';

const widened = (w: Widening = {}) => `${w.loopback ? 'l' : ''}${w.internal ? 'i' : ''}`;

export class OutboundHttp {
  readonly #options: OutboundOptions;
  /** kept-alive connections per widening: a connection made under a wider policy is never reused by a narrower call */
  readonly #agents = new Map<string, { http: http.Agent; https: https.Agent }>();

  constructor(options: OutboundOptions) {
    this.#options = options;
  }

  #agentsFor(widening?: Widening) {
    const key = widened(widening);
    let agents = this.#agents.get(key);
    if (!agents) this.#agents.set(key, (agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) }));
    return agents;
  }

  /** The failure a caller sees, logged with what the operator needs to know. */
  #unreachable(call: OutboundCall, host: string, detail: string, refused: boolean): OutboundError {
    const fields = { outbound: call.purpose, host, [refused ? 'rule' : 'failure']: detail };
    if (refused) this.#options.log?.warn(fields, 'outbound request refused by the address policy');
    else this.#options.log?.info(fields, 'outbound request failed');
    return new OutboundError('unreachable', refused ? `refused: ${detail}` : detail);
  }

  /** Refused unless the address may be reached under the policy and the call's widening. */
  #judge(address: string, call: OutboundCall, host: string): OutboundError | null {
    const refused = refusal(address, this.#options.policy, call.widening);
    return refused ? this.#unreachable(call, host, describeRefusal(refused), true) : null;
  }

  /** The resolver handed to the connection: resolves, judges every address, and connects to a judged one. */
  #lookup(call: OutboundCall, host: string): LookupFunction {
    const resolve = this.#options.resolve ?? systemResolve;
    return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolve(hostname).then(
        (addresses) => {
          if (addresses.length === 0) return callback(this.#unreachable(call, host, 'the host name has no address', false));
          // one refused address refuses the name: a name that mixes public and private addresses is not trusted
          for (const a of addresses) {
            const refused = this.#judge(a.address, call, host);
            if (refused) return callback(refused);
          }
          if (options?.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error) => callback(this.#unreachable(call, host, `lookup failed (${code(error)})`, false)),
      );
    }) as LookupFunction;
  }

  /** A literal address is judged here (Node calls no `lookup` for one); a name is judged by `#lookup`. */
  #judgeLiteral(hostname: string, call: OutboundCall, host: string): OutboundError | null {
    const bare = hostname.replace(/^\[|\]$/g, '');
    return isIP(bare) ? this.#judge(bare, call, host) : null;
  }

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const started = performance.now();
    const deadline = started + request.timeoutMs;
    let url = new URL(request.url);
    const method = request.method ?? 'POST';
    for (let redirects = request.maxRedirects ?? 3; ; redirects--) {
      const answer = await this.#once(url, { ...request, method }, deadline);
      const done = () => ({ ...answer, latencyMs: Math.round(performance.now() - started) });
      const location = answer.status >= 300 && answer.status < 400 ? answer.headers.location : undefined;
      // maxRedirects 0: no redirect is followed, and any is answered as it is (a synthetic check compares its status)
      if (!location || !URL.canParse(location, url) || redirects <= 0) return done();
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        this.#options.log?.warn({ outbound: request.purpose, host: url.host, status: answer.status }, 'outbound redirect to another host not followed');
        throw new OutboundError('redirect', `answered ${answer.status} to another origin`);
      }
      const follows = KEEPS_METHOD.has(answer.status) || (GET_ONLY.has(answer.status) && (method === 'GET' || method === 'HEAD'));
      if (!follows) return done();
      url = next;
    }
  }

  #once(url: URL, request: OutboundRequest & { method: string }, deadline: number): Promise<Omit<OutboundResponse, 'latencyMs'>> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(this.#unreachable(request, url.protocol, 'not an http(s) URL', true));
    if (url.username || url.password) return Promise.reject(this.#unreachable(request, url.host, 'credentials in the URL', true));
    const literal = this.#judgeLiteral(url.hostname, request, url.host);
    if (literal) return Promise.reject(literal);
    const remaining = deadline - performance.now();
    if (remaining <= 0) return Promise.reject(this.#unreachable(request, url.host, 'timeout', false));
    const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_BYTES;
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': 'Vigil-Outbound/1', ...request.headers };
    if (body) headers['content-length'] = String(body.length);
    const agents = this.#agentsFor(request.widening);
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const failed = (error: unknown) => finish(() => reject(error instanceof OutboundError ? error : this.#unreachable(request, url.host, `connection failed (${code(error)})`, false)));
      const req = (secure ? https : http).request(url, { method: request.method, headers, agent: secure ? agents.https : agents.http, lookup: this.#lookup(request, url.host) });
      const timer = setTimeout(() => {
        failed(this.#unreachable(request, url.host, 'timeout', false));
        req.destroy();
      }, remaining);
      req.on('error', failed);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const done = () => finish(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated }));
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, maxBytes - size));
          size += Math.min(chunk.length, maxBytes - size);
          if (chunk.length > 0 && size >= maxBytes) {
            // enough read: answer now and drop the connection rather than read the rest
            truncated = true;
            done();
            res.destroy();
          }
        });
        res.on('error', failed);
        res.on('end', done);
      });
      req.end(body);
    });
  }

  /**
   * The certificate `target` serves, from a TLS handshake under the same policy. The chain is not verified: a
   * certificate monitor reads expiry, and internal endpoints often use a private CA. Nothing is sent after the
   * handshake.
   */
  peerCertificate(target: TlsPeer): Promise<PeerCertificate> {
    const host = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
    const literal = this.#judgeLiteral(target.host, target, host);
    if (literal) return Promise.reject(literal);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: target.host, port: target.port, servername: target.servername, rejectUnauthorized: false, lookup: this.#lookup(target, host) });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        fn();
      };
      const timer = setTimeout(() => finish(() => reject(this.#unreachable(target, host, 'timeout', false))), target.timeoutMs);
      socket.once('secureConnect', () => {
        const certificate = socket.getPeerCertificate();
        finish(() => resolve(certificate));
      });
      socket.once('error', (error) => finish(() => reject(error instanceof OutboundError ? error : this.#unreachable(target, host, `TLS connection failed (${code(error)})`, false))));
    });
  }

  /** Closes idle kept-alive connections. */
  close(): void {
    for (const agents of this.#agents.values()) {
      agents.http.destroy();
      agents.https.destroy();
    }
  }
}

const clients = new WeakMap<object, OutboundHttp>();

/** The outbound client of one running service (one per `services`, under its deployment's policy). */
export function outboundHttp(services: { config: { outbound?: OutboundSettings }; log?: Logger }): OutboundHttp {
  let client = clients.get(services);
  if (!client) {
    const settings = services.config.outbound ?? {};
    client = new OutboundHttp({ policy: addressPolicy(settings.allowedNetworks, settings.allowLoopback === true), resolve: settings.resolve, log: services.log });
    clients.set(services, client);
  }
  return client;
}
