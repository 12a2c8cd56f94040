/**
 * A webhook receiver on 127.0.0.1 for outbound delivery tests: records every request, answers as a test says
 * (a status, a hang past the sender's timeout, a redirect), and de-duplicates by `webhook-id` the way a
 * receiver following Standard Webhooks would: `processed` holds each message once, however often it came.
 */
import http from 'node:http';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** what the receiver answered (0: it hung up without answering) */
  answered: number;
  /** when it arrived (Date.now()) */
  at: number;
  /** the sender's port (socketOwner in socket-owner.ts tells which process sent it) */
  remotePort: number;
}

/** What to do with one request: a status, `hang` (never answer), a redirect, or a status with the request's headers echoed as the body. */
export type Behaviour = number | 'hang' | { redirect: string; status?: number } | { echo: number };

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** messages answered 2xx, each webhook-id once */
  processed: Map<string, Received>;
  /** answers to give, in order; when empty, `fallback` */
  script: Behaviour[];
  /** an answer for every request to this path (before `script`) */
  paths: Map<string, Behaviour>;
  fallback: Behaviour;
  /** answers every request left hanging with `status` */
  release(status?: number): void;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Behaviour = 200): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests: [],
    processed: new Map(),
    script: [],
    paths: new Map(),
    fallback,
    release: (status = 200) => {
      for (const res of hanging) res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      hanging.clear();
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behaviour = receiver.paths.get(req.url ?? '/') ?? (receiver.script.length ? receiver.script.shift()! : receiver.fallback);
      const received: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: 0, at: Date.now(), remotePort: req.socket.remotePort ?? 0 };
      receiver.requests.push(received);
      if (behaviour === 'hang') {
        hanging.add(res);
        return;
      }
      if (typeof behaviour === 'object' && 'echo' in behaviour) {
        received.answered = behaviour.echo;
        res.writeHead(behaviour.echo, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
        return;
      }
      if (typeof behaviour === 'object') {
        received.answered = behaviour.status ?? 307;
        res.writeHead(received.answered, { location: behaviour.redirect }).end();
        return;
      }
      received.answered = behaviour;
      const id = String(req.headers['webhook-id'] ?? '');
      if (behaviour >= 200 && behaviour < 300 && !receiver.processed.has(id)) receiver.processed.set(id, received);
      res.writeHead(behaviour, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: behaviour < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
