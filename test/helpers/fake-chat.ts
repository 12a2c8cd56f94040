/**
 * A fake chat Web API (Slack's shape) on 127.0.0.1 for chat delivery tests: `POST /<method>` with a JSON body and
 * a bearer token. It knows a set of channels (by name, answered with their ids), keeps every message posted (with
 * its replies and updates), records every call, and answers errors as a test scripts them: an HTTP status, a Web
 * API error (`{ ok: false, error }`), or a 429 with Retry-After. A token other than `token` is `invalid_auth`.
 * `users.info` (a form body, as the Web API takes it) answers the profile of a user of `users` (`user_not_found`
 * otherwise), `conversations.open` with `users` (one id) answers the direct-message channel with that user (`D…`,
 * the same each time; posts to it are kept like any), and `POST /response/<anything>` stands for an interaction's
 * `response_url`, kept in `responses`.
 */
import http from 'node:http';

export interface ChatCall {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  raw: string;
  /** what was answered: the HTTP status and the body */
  status: number;
  answer: any;
}

export interface ChatMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: any[];
  thread_ts: string | null;
  /** the texts of every chat.update, in order */
  updates: { text: string; blocks: any[] }[];
}

/** A scripted answer: an HTTP status (with a Web API error body for 4xx), a Web API error, or a rate limit. */
export type ChatBehaviour = { status: number } | { error: string } | { ratelimited: number };

export interface FakeChat {
  url: string;
  /** the bot token it accepts */
  token: string;
  calls: ChatCall[];
  /** channel name (without #) → id */
  channels: Map<string, string>;
  /** chat user id → the id of their direct-message channel with the app (conversations.open) */
  dms: Map<string, string>;
  messages: ChatMessage[];
  /** chat user id → the email on their profile (undefined: a profile without one) */
  users: Map<string, string | undefined>;
  /** what was posted to a `response_url` (`<url>/response/…`) */
  responses: { path: string; body: any }[];
  /** from now on, `response_url` calls get no answer until the returned function is called */
  holdResponses(): () => void;
  /** `response_url` calls held and still open (not answered, not given up by the caller) */
  heldOpen(): number;
  /** answers to give to the next calls, in order; then the normal behaviour */
  script: ChatBehaviour[];
  /** messages of a channel (by name) that open a thread */
  posts(channel: string): ChatMessage[];
  replies(parent: ChatMessage): ChatMessage[];
  close(): Promise<void>;
}

export async function startFakeChat(options: { token: string; channels: string[]; users?: Record<string, string | undefined> }): Promise<FakeChat> {
  let next = 1;
  const fake: FakeChat = {
    url: '',
    token: options.token,
    calls: [],
    channels: new Map(options.channels.map((name, i) => [name.replace(/^#/, ''), `C${String(i + 1).padStart(6, '0')}`])),
    dms: new Map(),
    messages: [],
    users: new Map(Object.entries(options.users ?? {})),
    responses: [],
    holdResponses() {
      holding = true;
      return () => {
        holding = false;
        for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
    },
    heldOpen: () => held.filter((res) => !res.destroyed && !res.writableEnded).length,
    script: [],
    posts(channel) {
      const id = fake.channels.get(channel.replace(/^#/, ''));
      return fake.messages.filter((m) => m.channel === id && m.thread_ts === null);
    },
    replies(parent) {
      return fake.messages.filter((m) => m.thread_ts === parent.ts);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const channelId = (value: unknown): string | null => {
    if (typeof value !== 'string') return null;
    if ([...fake.channels.values(), ...fake.dms.values()].includes(value)) return value;
    return fake.channels.get(value.replace(/^#/, '')) ?? null;
  };
  const handle = (method: string, headers: http.IncomingHttpHeaders, body: any): { status: number; answer: any; retryAfter?: number } => {
    const scripted = fake.script.shift();
    if (scripted && 'status' in scripted) return { status: scripted.status, answer: scripted.status < 500 ? { ok: false, error: 'invalid_request' } : { ok: false, error: 'internal_error' } };
    if (scripted && 'ratelimited' in scripted) return { status: 429, answer: { ok: false, error: 'ratelimited' }, retryAfter: scripted.ratelimited };
    if (scripted) return { status: 200, answer: { ok: false, error: scripted.error } };
    if (headers.authorization !== `Bearer ${fake.token}`) return { status: 200, answer: { ok: false, error: 'invalid_auth' } };
    if (method === 'users.info') {
      const id = body?.user;
      if (typeof id !== 'string' || !fake.users.has(id)) return { status: 200, answer: { ok: false, error: 'user_not_found' } };
      const email = fake.users.get(id);
      return { status: 200, answer: { ok: true, user: { id, name: id.toLowerCase(), profile: { real_name: id, ...(email ? { email } : {}) } } } };
    }
    if (method !== 'users.info' && !String(headers['content-type']).startsWith('application/json')) return { status: 200, answer: { ok: false, error: 'invalid_form_data' } };
    if (method === 'conversations.open') {
      const user = body?.users;
      if (typeof user !== 'string' || !/^[A-Z0-9]+$/.test(user)) return { status: 200, answer: { ok: false, error: 'user_not_found' } };
      if (!fake.dms.has(user)) fake.dms.set(user, `D${String(fake.dms.size + 1).padStart(6, '0')}`);
      return { status: 200, answer: { ok: true, channel: { id: fake.dms.get(user) } } };
    }
    const channel = channelId(body?.channel);
    if (!channel) return { status: 200, answer: { ok: false, error: 'channel_not_found' } };
    if (method === 'chat.postMessage') {
      if (body.thread_ts && !fake.messages.some((m) => m.channel === channel && m.ts === body.thread_ts)) return { status: 200, answer: { ok: false, error: 'thread_not_found' } };
      const ts = `1772366400.${String(next++).padStart(6, '0')}`;
      fake.messages.push({ channel, ts, text: body.text, blocks: body.blocks ?? [], thread_ts: body.thread_ts ?? null, updates: [] });
      return { status: 200, answer: { ok: true, channel, ts, message: { text: body.text } } };
    }
    if (method === 'chat.update') {
      const message = fake.messages.find((m) => m.channel === channel && m.ts === body.ts);
      if (!message) return { status: 200, answer: { ok: false, error: 'message_not_found' } };
      message.updates.push({ text: body.text, blocks: body.blocks ?? [] });
      return { status: 200, answer: { ok: true, channel, ts: body.ts, text: body.text } };
    }
    return { status: 200, answer: { ok: false, error: 'unknown_method' } };
  };
  let holding = false;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : JSON.parse(raw);
      } catch {
        body = null;
      }
      const method = (req.url ?? '/').replace(/^\/+/, '');
      if (method.startsWith('response/')) {
        fake.responses.push({ path: method, body });
        if (holding) return void held.push(res);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
        return;
      }
      const { status, answer, retryAfter } = handle(method, req.headers, body);
      fake.calls.push({ method, headers: req.headers, body, raw, status, answer });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}) });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
