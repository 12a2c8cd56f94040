/**
 * The OpenAI-compatible wire: `POST {base_url}/chat/completions` and `GET {base_url}/models`, with
 * `Authorization: Bearer <key>` when a key is stored, through the guarded outbound client (outbound/net/http.ts: the
 * address policy, no redirect to another origin, so the key never leaves for another host). Failures are
 * classified here, once:
 * retryable — the provider could not be reached (a refused address, a timeout, a failed connection: one reason
 * for all, the operator's log says which), 429, 408, or any 5xx;
 * not retryable — any other 4xx (a wrong key, an unknown model, a refused request) and an answer that is not a
 * chat completion. Reasons name the status only: never the key, the base URL or the provider's body (which may
 * echo the prompt).
 */
import { OutboundError, type OutboundHttp } from '../../outbound/net/http.ts';

/** A chat completion's answer is read up to this size (a long completion is some hundred KiB); the model list's too. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface Endpoint {
  baseUrl: string;
  apiKey: string | null;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  response_format?: ResponseFormat;
}

export type CallResult =
  | { ok: true; content: string; usage: { prompt_tokens: number; completion_tokens: number } }
  | { ok: false; retryable: boolean; reason: string; retryAfterMs?: number };

const url = (endpoint: Endpoint, path: string) => `${endpoint.baseUrl.replace(/\/+$/, '')}${path}`;

function headers(endpoint: Endpoint): Record<string, string> {
  return { accept: 'application/json', ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) };
}

function failure(error: unknown): CallResult {
  if (error instanceof OutboundError && error.kind === 'redirect') return { ok: false, retryable: false, reason: error.message };
  return { ok: false, retryable: true, reason: 'could not be reached' };
}

/** Retry-After as sent (seconds or an HTTP date), in ms. */
function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function chatCompletion(http: OutboundHttp, endpoint: Endpoint, request: ChatRequest, timeoutMs: number): Promise<CallResult> {
  try {
    const res = await http.request({
      url: url(endpoint, '/chat/completions'),
      method: 'POST',
      headers: { ...headers(endpoint), 'content-type': 'application/json' },
      body: JSON.stringify(request),
      timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
      purpose: 'ai provider',
    });
    if (res.truncated) return { ok: false, retryable: false, reason: `answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` };
    const text = res.body.toString('utf8');
    const ok = res.status >= 200 && res.status < 300;
    if (!ok) {
      const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
      const after = res.headers['retry-after'];
      return { ok: false, retryable, reason: `answered HTTP ${res.status}`, retryAfterMs: retryAfter(Array.isArray(after) ? after[0] ?? null : after ?? null, Date.now()) };
    }
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, retryable: false, reason: 'answered something other than JSON' };
    }
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') return { ok: false, retryable: false, reason: 'answered no message content' };
    const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
    return { ok: true, content, usage: { prompt_tokens: count(body.usage?.prompt_tokens), completion_tokens: count(body.usage?.completion_tokens) } };
  } catch (error) {
    return failure(error);
  }
}

export interface ListedModel {
  id: string;
  /** Unix seconds, when the provider says */
  created?: number;
}

/** The provider's model list, or null when it could not be read (then nothing is upgraded). */
export async function listModels(http: OutboundHttp, endpoint: Endpoint, timeoutMs: number): Promise<ListedModel[] | null> {
  try {
    const res = await http.request({ url: url(endpoint, '/models'), method: 'GET', headers: headers(endpoint), timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES, purpose: 'ai provider' });
    if (res.status < 200 || res.status >= 300 || res.truncated) return null;
    const body: any = JSON.parse(res.body.toString('utf8'));
    if (!Array.isArray(body?.data)) return null;
    return body.data
      .filter((m: any) => typeof m?.id === 'string')
      .map((m: any) => ({ id: m.id as string, ...(typeof m.created === 'number' ? { created: m.created as number } : {}) }));
  } catch {
    return null;
  }
}
