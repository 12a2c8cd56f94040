/**
 * One run of a synthetic check: `method` to `url` through the guarded outbound client (outbound/net/http.ts) with
 * the checks' widening, no redirect followed (a 301 is compared with `expected_status` as it is), passing when
 * the status matches within `timeout_ms` and, when `body_contains` is set, the body holds that text. Error texts
 * name what went wrong, never a header value or the body; an endpoint that gave no answer "could not be
 * reached", whatever kept it from answering (the operator's log says what).
 */
import type { OutboundHttp, Widening } from '../../outbound/net/http.ts';

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

export async function probeHttp(http: OutboundHttp, check: HttpCheck, widening: Widening): Promise<HttpResult> {
  let answer;
  try {
    answer = await http.request({
      url: check.url,
      method: check.method,
      headers: { 'user-agent': 'Vigil-Synthetic-Check/1', ...(check.headers ?? {}) },
      ...(check.method === 'POST' ? { body: '' } : {}),
      timeoutMs: check.timeout_ms,
      maxRedirects: 0,
      maxResponseBytes: check.body_contains !== null && check.method !== 'HEAD' ? BODY_LIMIT : 1,
      purpose: 'synthetic check',
      widening,
    });
  } catch {
    return { passed: false, latencyMs: null, error: 'the endpoint could not be reached' };
  }
  const { status, latencyMs } = answer;
  if (status !== check.expected_status) return { passed: false, latencyMs, error: `answered status ${status}, expected ${check.expected_status}` };
  if (check.body_contains !== null && !answer.body.toString('utf8').includes(check.body_contains)) return { passed: false, latencyMs, error: 'the answer body does not hold the expected text' };
  return { passed: true, latencyMs, error: null };
}
