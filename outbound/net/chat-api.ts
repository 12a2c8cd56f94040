/**
 * Where the chat product's Web API is (Slack's shape; `VIGIL_CHAT_API_URL`, default https://slack.com/api), and the
 * one read the inbound side makes of it: `users.info`, which names a chat user's email so a button press or a
 * slash command can be mapped to a member (webhooks/chat/). Here, beside the guarded client, because both the
 * chat sender (outbound/chat/web-api.ts) and the inbound webhooks call the API, and webhooks/ may import net/ only.
 * The bot token goes in the header only; nothing of an answer is kept but the email.
 */
import type { Services } from '../../engine/services.ts';
import { outboundHttp } from './http.ts';

export const DEFAULT_CHAT_API = 'https://slack.com/api';

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
