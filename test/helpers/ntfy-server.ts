/**
 * A local ntfy server (docs.ntfy.sh/publish) on 127.0.0.1 for paging tests. It takes a publish as JSON to `/`
 * (`topic`, `title`, `message`, `priority`, `tags`, `click`, `actions`) or as a plain body to `/<topic>` (headers
 * `Title`, `Priority`, `Tags`, `Click`, `Actions`), records every request, and answers the published message as ntfy
 * does (`{ id, time, event: "message", topic, … }`). Access control as a server with `auth-default-access: deny-all`
 * for the `protected` topics: no Authorization → 403, a bearer token other than `token` → 401. A scripted status
 * answers the next publish (429 with `Retry-After`).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';

export interface NtfyRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** the publish as the server read it (JSON or headers) */
  published: { topic: string; title?: string; message?: string; priority?: number; tags?: string[]; click?: string; actions?: any[] } | null;
  answered: number;
}

export interface NtfyServer {
  url: string;
  token: string;
  protected: Set<string>;
  requests: NtfyRequest[];
  /** statuses for the next publishes, in order (429 gets Retry-After: 60) */
  script: number[];
  close(): Promise<void>;
}

const ERRORS: Record<number, { code: number; error: string }> = {
  400: { code: 40001, error: 'invalid request' },
  401: { code: 40101, error: 'unauthorized' },
  403: { code: 40301, error: 'forbidden' },
  429: { code: 42901, error: 'limit reached: too many requests' },
  500: { code: 50001, error: 'internal server error' },
};

export async function startNtfy(options: { token?: string; protected?: string[] } = {}): Promise<NtfyServer> {
  const fake: NtfyServer = {
    url: '',
    token: options.token ?? `tk_${randomBytes(15).toString('hex').slice(0, 29)}`,
    protected: new Set(options.protected ?? []),
    requests: [],
    script: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const read = (req: http.IncomingMessage, raw: string): NtfyRequest['published'] => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/') {
      try {
        const body = JSON.parse(raw);
        return body && typeof body.topic === 'string' ? body : null;
      } catch {
        return null;
      }
    }
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
    return {
      topic: path.slice(1), message: raw, title: header('title'), priority: header('priority') ? Number(header('priority')) : undefined,
      tags: header('tags')?.split(','), click: header('click'), actions: header('actions') ? [header('actions')] : undefined,
    };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const published = req.method === 'POST' || req.method === 'PUT' ? read(req, raw) : null;
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        fake.requests.push({ path: req.url ?? '/', headers: req.headers, raw, published, answered: status });
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(`${JSON.stringify(body)}\n`);
      };
      const fail = (status: number, headers: Record<string, string> = {}) => answer(status, { ...(ERRORS[status] ?? { code: status * 100 + 1, error: 'error' }), http: status }, headers);
      const scripted = fake.script.shift();
      if (scripted !== undefined && scripted >= 400) return fail(scripted, scripted === 429 ? { 'retry-after': '60' } : {});
      if (!published || !/^[-_A-Za-z0-9]{1,64}$/.test(published.topic)) return fail(400);
      const auth = req.headers.authorization;
      if (auth !== undefined && auth !== `Bearer ${fake.token}`) return fail(401);
      if (fake.protected.has(published.topic) && auth === undefined) return fail(403);
      const { topic, title, message, priority, tags, click, actions } = published;
      answer(200, {
        id: randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12), time: Math.floor(Date.now() / 1000), expires: Math.floor(Date.now() / 1000) + 43200,
        event: 'message', topic, title, message: message ?? 'triggered', priority, tags, click, actions,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
