/**
 * A fake OpenAI-compatible provider on 127.0.0.1 for tests: `POST /v1/chat/completions` and `GET /v1/models`.
 * It records every request (headers and parsed body), answers from a queue of scripted answers (status, content,
 * usage, latency, headers) and then from a default, and serves a model list that tests can change.
 *
 *   const ai = await startFakeOpenAi();
 *   ai.script({ status: 503 }, { content: '{"summary":"…"}', usage: { prompt_tokens: 1000, completion_tokens: 200 } });
 *   … base_url: ai.url …
 *   ai.chats()[0].body.messages
 */
import http from 'node:http';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** the JSON body, parsed (undefined when none) */
  body: any;
  raw: string;
}

export interface Scripted {
  /** default 200 */
  status?: number;
  /** the assistant message's content (a 200's default: the fake's `defaultContent`) */
  content?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** wait this long before answering (a timeout test) */
  delayMs?: number;
  headers?: Record<string, string>;
  /** a raw body instead of a chat completion */
  raw?: string;
}

export interface FakeOpenAi {
  /** the base URL to store as `base_url` (ends in /v1) */
  url: string;
  requests: FakeRequest[];
  /** the chat-completion requests only */
  chats(): FakeRequest[];
  /** answers for the next chat completions, in order */
  script(...answers: Scripted[]): void;
  /** answers after the script runs out (may read the request) */
  respond: (request: FakeRequest) => Scripted;
  models: { id: string; created?: number }[];
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_USAGE = { prompt_tokens: 1000, completion_tokens: 100 };

export async function startFakeOpenAi(options: { models?: { id: string; created?: number }[]; content?: string } = {}): Promise<FakeOpenAi> {
  const queue: Scripted[] = [];
  const fake: FakeOpenAi = {
    url: '',
    requests: [],
    chats: () => fake.requests.filter((r) => r.path.endsWith('/chat/completions')),
    script: (...answers) => void queue.push(...answers),
    respond: () => ({ content: options.content ?? '{"summary":"fake answer"}' }),
    models: options.models ?? [],
    reset() {
      fake.requests.length = 0;
      queue.length = 0;
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const request: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, raw };
    fake.requests.push(request);
    const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload);
    };
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      return send(200, JSON.stringify({ object: 'list', data: fake.models.map((m) => ({ object: 'model', owned_by: 'fake', ...m })) }));
    }
    if (request.method !== 'POST' || !request.path.endsWith('/chat/completions')) return send(404, JSON.stringify({ error: { message: 'not found' } }));
    const answer = queue.shift() ?? fake.respond(request);
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    const status = answer.status ?? 200;
    if (answer.raw !== undefined) return send(status, answer.raw, answer.headers);
    if (status !== 200) return send(status, JSON.stringify({ error: { message: `scripted ${status}`, type: 'fake' } }), answer.headers);
    const model = (body as { model?: string } | undefined)?.model ?? 'unknown';
    send(200, JSON.stringify({
      id: `chatcmpl-${fake.requests.length}`, object: 'chat.completion', created: 1772366400, model,
      choices: [{ index: 0, message: { role: 'assistant', content: answer.content ?? fake.respond(request).content ?? '' }, finish_reason: 'stop' }],
      usage: { ...(answer.usage ?? DEFAULT_USAGE), total_tokens: (answer.usage ?? DEFAULT_USAGE).prompt_tokens + (answer.usage ?? DEFAULT_USAGE).completion_tokens },
    }), answer.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  return fake;
}
