/**
 * Calls of the chat product's Web API, in Slack's shape: `POST <apiUrl>/<method>` with a JSON body,
 * `Authorization: Bearer <bot token>`, answered `{ ok: true, channel, ts }` or `{ ok: false, error }`, through the
 * SSRF-safe client (outbound/net/http.ts). Each answer is sorted into sent, transient (tried again: HTTP 5xx, 429,
 * `ratelimited`, the Web API's own transient errors, an unreachable API) or permanent (anything else:
 * `invalid_auth`, `channel_not_found`, …). The token goes in the header only; what is kept of an answer is an
 * error code of the Web API's vocabulary, never its free text, so a token an API echoed cannot be stored.
 */
import type { Services } from '../../engine/services.ts';
import { chatApiUrl } from '../net/chat-api.ts';
import { outboundHttp } from '../net/http.ts';
const TIMEOUT_MS = 10_000;
const MAX_ANSWER = 16 * 1024;
/** the Web API's errors that say "try again later" */
const TRANSIENT_ERRORS = new Set(['ratelimited', 'rate_limited', 'internal_error', 'service_unavailable', 'request_timeout', 'team_added_to_org']);

export type CallResult =
  | { outcome: 'ok'; channel: string | null; ts: string | null }
  | { outcome: 'transient' | 'permanent'; code: string; message: string; retryAfterSeconds: number | null };

const CODE = /^[a-z0-9_]{1,64}$/;

function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const seconds = Number(text);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** One call; never throws for what the far end or the network did. */
export async function callWebApi(services: Services, token: string, method: 'chat.postMessage' | 'chat.update', body: Record<string, unknown>): Promise<CallResult> {
  let answer;
  try {
    answer = await outboundHttp(services).request({
      url: chatApiUrl(services, method),
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Vigil-Chat/1' },
      body: JSON.stringify(body),
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 0,
      maxResponseBytes: MAX_ANSWER,
      purpose: 'chat web api',
    });
  } catch {
    // no redirect is followed (maxRedirects 0 answers it as it is, below); whatever kept the API from answering,
    // one message: the operator's log says what
    return { outcome: 'transient', code: 'unreachable', message: 'the chat API could not be reached', retryAfterSeconds: null };
  }
  const wait = retryAfter(answer.headers['retry-after']);
  if (answer.status === 429) return { outcome: 'transient', code: 'ratelimited', message: 'the chat API is rate limiting the app (HTTP 429)', retryAfterSeconds: wait };
  if (answer.status >= 500) return { outcome: 'transient', code: `http_${answer.status}`, message: `the chat API answered HTTP ${answer.status}`, retryAfterSeconds: wait };
  let parsed: { ok?: unknown; error?: unknown; channel?: unknown; ts?: unknown } | null = null;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    parsed = null;
  }
  if (answer.status < 200 || answer.status >= 300 || !parsed || typeof parsed !== 'object') {
    return { outcome: 'permanent', code: `http_${answer.status}`, message: `the chat API answered HTTP ${answer.status} without a Web API answer`, retryAfterSeconds: null };
  }
  if (parsed.ok === true) return { outcome: 'ok', channel: typeof parsed.channel === 'string' ? parsed.channel : null, ts: typeof parsed.ts === 'string' ? parsed.ts : null };
  const code = typeof parsed.error === 'string' && CODE.test(parsed.error) ? parsed.error : 'unknown_error';
  const transient = TRANSIENT_ERRORS.has(code);
  return { outcome: transient ? 'transient' : 'permanent', code, message: `the chat API answered ${code}`, retryAfterSeconds: transient ? wait : null };
}
