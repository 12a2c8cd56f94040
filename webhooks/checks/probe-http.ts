/**
 * One run of a synthetic check: `method` to `url`, no redirect followed (a 301 is compared with
 * `expected_status` as it is), passing when the status matches within `timeout_ms` and, when `body_contains` is
 * set, the body holds that text. Error texts name what went wrong, never a header value or the body.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { guardedLookup, literalRefusal, RefusedAddress, type AddressPolicy } from './address.ts';

export interface HttpCheck {
  url: string;
  method: string;
  expected_status: number;
  body_contains: string | null;
  timeout_ms: number;
  headers: Record<string, string> | null;
}

export interface HttpResult {
  passed: boolean;
  latencyMs: number | null;
  error: string | null;
}

/** The body is searched within its first MiB: a health page is small, and a huge one must not fill memory. */
const BODY_LIMIT = 1024 * 1024;

export async function probeHttp(check: HttpCheck, policy: AddressPolicy): Promise<HttpResult> {
  const url = new URL(check.url);
  const refused = literalRefusal(url.hostname, policy);
  if (refused) return { passed: false, latencyMs: null, error: `refused: ${refused}` };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const { status, body } = await request(url, check, policy);
    const latencyMs = elapsed();
    if (status !== check.expected_status) return { passed: false, latencyMs, error: `answered status ${status}, expected ${check.expected_status}` };
    if (check.body_contains !== null && !body.includes(check.body_contains)) return { passed: false, latencyMs, error: 'the answer body does not hold the expected text' };
    return { passed: true, latencyMs, error: null };
  } catch (error) {
    return { passed: false, latencyMs: null, error: describe(error, check.timeout_ms) };
  }
}

function request(url: URL, check: HttpCheck, policy: AddressPolicy): Promise<{ status: number; body: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: check.method,
      headers: { 'user-agent': 'Vigil-Synthetic-Check/1', ...(check.headers ?? {}), ...(check.method === 'POST' ? { 'content-length': '0' } : {}) },
      lookup: guardedLookup(policy) as never,
      signal: AbortSignal.timeout(check.timeout_ms),
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const wantBody = check.body_contains !== null && check.method !== 'HEAD';
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (!wantBody) return;
        if (size < BODY_LIMIT) chunks.push(chunk);
        size += chunk.length;
        if (size >= BODY_LIMIT) res.destroy();
      });
      const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, BODY_LIMIT).toString('utf8') });
      res.on('end', done);
      res.on('close', done);
      res.on('error', reject);
    });
    req.end();
  });
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedAddress) return `refused: ${error.message}`;
  const e = error as NodeJS.ErrnoException;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  // system error codes and TLS verification codes name the failure without echoing anything sent
  if (typeof e?.code === 'string') return `request failed: ${e.code}`;
  return 'request failed';
}
