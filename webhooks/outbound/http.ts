/**
 * Outbound HTTP that a user's configuration can point anywhere (webhook deliveries, chat posts, synthetic
 * checks), safe against server-side request forgery:
 *
 * - only `http:` and `https:` URLs;
 * - the host name is resolved here and every address it resolves to is checked (addresses.ts) before a
 *   connection is made, and the connection goes to the address that was checked (no second lookup a DNS
 *   rebinding could change); an IP literal is checked the same way. Private, link-local and reserved addresses
 *   are refused, loopback too unless the operator allows it (`allowLoopback`);
 * - a redirect is followed only when it stays on the same origin (scheme, host, port) and keeps the method and
 *   body (307, 308), at most `maxRedirects` times; a redirect to another host is refused, never followed; any
 *   other 3xx is answered as it is (a caller treats it as the failure it is);
 * - the whole exchange (lookup, connect, request, response body) has one deadline, `timeoutMs`;
 * - at most `maxResponseBytes` of the answer are read.
 *
 * A refusal (`OutboundRefused`) happens before any packet leaves for the refused address. Other failures are
 * `OutboundFailed` (`timeout` or `network`). Error messages name the rule, never a header value or the body.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal } from './addresses.ts';

export interface OutboundPolicy {
  /** allow 127.0.0.0/8 and ::1 (a deployment setting: VIGIL_OUTBOUND_ALLOW_LOOPBACK=on; the test harness turns it on) */
  allowLoopback: boolean;
  /** how host names are resolved (default: the system resolver); tests inject one */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** one deadline for the whole exchange */
  timeoutMs: number;
  /** same-origin 307/308 redirects followed (default 3; 0 follows none) */
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

export type RefusalReason = 'scheme' | 'address' | 'redirect';

/** The request was not made (or not followed): the policy forbids it. Retrying does not help. */
export class OutboundRefused extends Error {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, message: string) {
    super(message);
    this.name = 'OutboundRefused';
    this.reason = reason;
  }
}

/** The request was made and did not complete: timed out, or the connection failed. Worth a retry. */
export class OutboundFailed extends Error {
  readonly kind: 'timeout' | 'network';
  constructor(kind: 'timeout' | 'network', message: string) {
    super(message);
    this.name = 'OutboundFailed';
    this.kind = kind;
  }
}

const DEFAULT_MAX_BYTES = 64 * 1024;
const REDIRECTS_KEEPING_BODY = new Set([307, 308]);

const systemResolve = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** A short, value-free description of a network error (its code only: messages can carry addresses). */
function networkError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code ? `connection failed (${code})` : 'connection failed';
}

export class OutboundHttp {
  readonly #policy: OutboundPolicy;
  readonly #agents: { http: http.Agent; https: https.Agent };

  constructor(policy: OutboundPolicy) {
    this.#policy = policy;
    // connections are reused per origin; each was made to an address this policy checked
    this.#agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };
  }

  /** Refused unless http(s) and, for an IP literal, an address the policy allows. */
  #check(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused('scheme', 'only http and https URLs are reached');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const refusal = addressRefusal(host, this.#policy.allowLoopback);
      if (refusal) throw new OutboundRefused('address', `refused: ${refusal}`);
    }
  }

  /** The resolver handed to the connection: resolves, checks every address, and connects to a checked one. */
  #lookup(): LookupFunction {
    const resolve = this.#policy.resolve ?? systemResolve;
    return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolve(hostname).then(
        (addresses) => {
          if (addresses.length === 0) return callback(new OutboundFailed('network', 'the host name has no address'));
          // one refused address refuses the name: a name that mixes public and private addresses is not trusted
          for (const a of addresses) {
            const refusal = addressRefusal(a.address, this.#policy.allowLoopback);
            if (refusal) return callback(new OutboundRefused('address', `refused: the host name resolves to an address that may not be reached (${refusal.replace(/^the address is /, '')})`));
          }
          if (options?.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error) => callback(new OutboundFailed('network', `the host name could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`)),
      );
    }) as LookupFunction;
  }

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const started = performance.now();
    const deadline = started + request.timeoutMs;
    let url = new URL(request.url);
    for (let redirects = request.maxRedirects ?? 3; ; redirects--) {
      const answer = await this.#once(url, request, deadline);
      const location = answer.status >= 300 && answer.status < 400 ? answer.headers.location : undefined;
      if (!location) return { ...answer, latencyMs: Math.round(performance.now() - started) };
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return { ...answer, latencyMs: Math.round(performance.now() - started) };
      }
      if (next.origin !== url.origin) throw new OutboundRefused('redirect', `refused: answered ${answer.status} redirecting to another host; redirects to another host are never followed`);
      if (!REDIRECTS_KEEPING_BODY.has(answer.status) || redirects <= 0) return { ...answer, latencyMs: Math.round(performance.now() - started) };
      url = next;
    }
  }

  #once(url: URL, request: OutboundRequest, deadline: number): Promise<Omit<OutboundResponse, 'latencyMs'>> {
    this.#check(url);
    const remaining = deadline - performance.now();
    if (remaining <= 0) return Promise.reject(new OutboundFailed('timeout', `timed out after ${Math.round(request.timeoutMs)} ms`));
    const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_BYTES;
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': 'Vigil-Outbound/1', ...request.headers };
    if (body) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const req = (secure ? https : http).request(url, {
        method: request.method ?? 'POST',
        headers,
        agent: secure ? this.#agents.https : this.#agents.http,
        lookup: this.#lookup(),
      });
      const timer = setTimeout(() => {
        finish(() => reject(new OutboundFailed('timeout', `timed out after ${Math.round(request.timeoutMs)} ms`)));
        req.destroy();
      }, remaining);
      req.on('error', (error) => finish(() => reject(error instanceof OutboundRefused || error instanceof OutboundFailed ? error : new OutboundFailed('network', networkError(error)))));
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
        res.on('error', (error) => finish(() => reject(new OutboundFailed('network', networkError(error)))));
        res.on('end', done);
      });
      req.end(body);
    });
  }

  /** Closes idle kept-alive connections. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}

const clients = new WeakMap<object, OutboundHttp>();

/** The outbound HTTP client of one running service (one per `services`, under its deployment's policy). */
export function outboundHttp(services: { config: { outbound?: Partial<OutboundPolicy> } }): OutboundHttp {
  let client = clients.get(services);
  if (!client) clients.set(services, (client = new OutboundHttp({ allowLoopback: services.config.outbound?.allowLoopback === true, resolve: services.config.outbound?.resolve })));
  return client;
}
