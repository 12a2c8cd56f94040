/**
 * Where the chat product's Web API is (Slack's shape; `VIGIL_CHAT_API_URL`, default https://slack.com/api), and the
 * one read the inbound side makes of it: `users.info`, which names a chat user's email so a button press or a
 * slash command can be mapped to a member (webhooks/chat/), and `callWebApi`, the posts. Here, beside the guarded client,
 * because the chat sender (outbound/chat/send.ts), the chat paging channel (domain/paging/channels/chat.ts) and the
 * inbound webhooks call the API, and domain/ and webhooks/ may import net/ only.
 * The bot token goes in the header only; nothing of an answer is kept but the email.
 */
import type { Services } from '../../engine/services.ts';
import { outboundHttp } from './http.ts';

export const DEFAULT_CHAT_API = 'https://slack.com/api';

/** Text in mrkdwn: the three characters the Web API asks to escape (& < >); not HTML. */
export const mrkdwnText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** `<api>/<method>` for the configured Web API. */
export function chatApiUrl(services: Services, method: string): string {
  return `${(services.config.chat?.apiUrl ?? DEFAULT_CHAT_API).replace(/\/+$/, '')}/${method}`;
}

const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

/**
 * The email of a chat user (`users.info` with the bot token; the app needs the `users:read.email` scope), or an
 * error code: `no_email` when the API answers the user without one, `unreachable` or the Web API's code. Never throws.
 */
export async function chatUserEmail(services: Services, token: string, userId: string): Promise<{ email: string } | { error: string }> {
  let answer;
  try {
    answer = await outboundHttp(services).request({
      url: chatApiUrl(services, 'users.info'),
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Vigil-Chat/1' },
      body: new URLSearchParams({ user: userId }).toString(),
      timeoutMs: 5_000,
      maxRedirects: 0,
      maxResponseBytes: 64 * 1024,
      purpose: 'chat users.info',
    });
  } catch {
    return { error: 'unreachable' };
  }
  let parsed: { ok?: unknown; error?: unknown; user?: { profile?: { email?: unknown } } } | null = null;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    parsed = null;
  }
  if (answer.status !== 200 || !parsed || typeof parsed !== 'object') return { error: `http_${answer.status}` };
  if (parsed.ok !== true) return { error: typeof parsed.error === 'string' && /^[a-z0-9_]{1,64}$/.test(parsed.error) ? parsed.error : 'unknown_error' };
  const email = parsed.user?.profile?.email;
  return typeof email === 'string' && EMAIL.test(email.trim()) ? { email: email.trim().toLowerCase() } : { error: 'no_email' };
}

/**
 * A private answer to the person who pressed a button: Slack ignores the HTTP answer of a block_actions request,
 * so the ephemeral text goes to the interaction's `response_url` (`replace_original: false` keeps the post).
 * Best effort: a failure is the operator's log line only.
 */
export async function respondPrivately(services: Services, responseUrl: string, text: string): Promise<void> {
  try {
    await outboundHttp(services).request({
      url: responseUrl,
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Vigil-Chat/1' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
      timeoutMs: 5_000,
      maxRedirects: 0,
      maxResponseBytes: 16 * 1024,
      purpose: 'chat response_url',
    });
  } catch {
    // the guarded client logged why; the press itself is done
  }
}

/**
 * Calls of the chat product's Web API, in Slack's shape: `POST <apiUrl>/<method>` with a JSON body,
 * `Authorization: Bearer <bot token>`, answered `{ ok: true, channel, ts }` or `{ ok: false, error }`. Each answer is
 * sorted into sent, transient (tried again: HTTP 5xx, 429, `ratelimited`, the Web API's own transient errors, an
 * unreachable API) or permanent (anything else: `invalid_auth`, `channel_not_found`, …). What is kept of an answer is
 * an error code of the Web API's vocabulary, never its free text, so a token an API echoed cannot be stored. Here,
 * beside users.info, because the chat sender (outbound/chat/send.ts) and the chat paging channel
 * (domain/paging/channels/chat.ts, which may import net/ only) both post.
 */
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

/** A channel id as chat.postMessage answers it (a string) or conversations.open does (`{ id }`). */
function channelIdOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}

/** One call; never throws for what the far end or the network did. */
export async function callWebApi(services: Services, token: string, method: 'chat.postMessage' | 'chat.update' | 'conversations.open', body: Record<string, unknown>): Promise<CallResult> {
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
  if (parsed.ok === true) return { outcome: 'ok', channel: channelIdOf(parsed.channel), ts: typeof parsed.ts === 'string' ? parsed.ts : null };
  const code = typeof parsed.error === 'string' && CODE.test(parsed.error) ? parsed.error : 'unknown_error';
  const transient = TRANSIENT_ERRORS.has(code);
  return { outcome: transient ? 'transient' : 'permanent', code, message: `the chat API answered ${code}`, retryAfterSeconds: transient ? wait : null };
}
