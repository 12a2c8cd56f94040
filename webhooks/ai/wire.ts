/**
 * The OpenAI-compatible wire: `POST {base_url}/chat/completions` and `GET {base_url}/models`, with
 * `Authorization: Bearer <key>` when a key is stored. Failures are classified here, once:
 * retryable — the attempt timed out, the connection failed, 429, 408, or any 5xx;
 * not retryable — any other 4xx (a wrong key, an unknown model, a refused request) and an answer that is not a
 * chat completion. Reasons name the status only: never the key, the base URL or the provider's body (which may
 * echo the prompt).
 */
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

function failure(error: unknown, timeoutMs: number): CallResult {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, retryable: true, reason: `timed out after ${timeoutMs} ms` };
  return { ok: false, retryable: true, reason: 'the connection failed' };
}

/** Retry-After as sent (seconds or an HTTP date), in ms. */
function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function chatCompletion(endpoint: Endpoint, request: ChatRequest, timeoutMs: number): Promise<CallResult> {
  try {
    const res = await fetch(url(endpoint, '/chat/completions'), {
      method: 'POST',
      headers: { ...headers(endpoint), 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) {
      const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
      return { ok: false, retryable, reason: `answered HTTP ${res.status}`, retryAfterMs: retryAfter(res.headers.get('retry-after'), Date.now()) };
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
    return failure(error, timeoutMs);
  }
}

export interface ListedModel {
  id: string;
  /** Unix seconds, when the provider says */
  created?: number;
}

/** The provider's model list, or null when it could not be read (then nothing is upgraded). */
export async function listModels(endpoint: Endpoint, timeoutMs: number): Promise<ListedModel[] | null> {
  try {
    const res = await fetch(url(endpoint, '/models'), { headers: headers(endpoint), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    const body: any = await res.json();
    if (!Array.isArray(body?.data)) return null;
    return body.data
      .filter((m: any) => typeof m?.id === 'string')
      .map((m: any) => ({ id: m.id as string, ...(typeof m.created === 'number' ? { created: m.created as number } : {}) }));
  } catch {
    return null;
  }
}
