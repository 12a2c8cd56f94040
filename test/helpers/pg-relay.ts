/**
 * A TCP relay between a service and PostgreSQL, to take the database away mid-run and bring it back without
 * touching the server other tests share (like the Redis relay of test/engine/rate-limit-store.test.ts).
 *
 * `cut()` refuses new connections, stops forwarding what the service sends, waits until every statement already
 * forwarded has been answered (each Query and Sync gets its ReadyForQuery), then destroys every connection. So a
 * COMMIT either reached the server and its answer reached the service, or never reached the server: the service's
 * answer tells the test what was written. (A real outage can also lose a COMMIT's answer, leaving its outcome
 * unknown to the service; no test can assert on that.) The wait is bounded: a statement waiting for a lock that a
 * held transaction keeps would wait for ever; such a statement is rolled back with its transaction when cut.
 */
import net from 'node:net';

/** ReadyForQuery ('Z') answers a Query ('Q'), a Sync ('S') and the start-up message. */
const READY = 0x5a;
const ANSWERED = new Set([0x51, 0x53]);
const DRAIN_LIMIT_MS = 10_000;

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  /** statements forwarded and not answered yet */
  pending: number;
  started: boolean;
  fromClient: Buffer;
  fromServer: Buffer;
}

export interface PgRelay {
  /** DATABASE_URL through the relay */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function pgRelay(databaseUrl: string): Promise<PgRelay> {
  const target = new URL(databaseUrl);
  const links = new Set<Link>();
  let holding = false;
  let settled: (() => void) | null = null;

  const check = () => {
    if (settled && [...links].every((l) => l.pending <= 0)) settled();
  };

  /** Forwards the whole messages the client sent, unless held. */
  const forward = (link: Link) => {
    while (!holding) {
      const buf = link.fromClient;
      let size: number;
      if (!link.started) {
        // the start-up message has no type byte
        if (buf.length < 4) return;
        size = buf.readInt32BE(0);
        if (buf.length < size) return;
        link.started = true;
        link.pending++;
      } else {
        if (buf.length < 5) return;
        size = 1 + buf.readInt32BE(1);
        if (buf.length < size) return;
        if (ANSWERED.has(buf[0]!)) link.pending++;
      }
      link.upstream.write(buf.subarray(0, size));
      link.fromClient = buf.subarray(size);
    }
  };

  const answered = (link: Link) => {
    for (;;) {
      const buf = link.fromServer;
      if (buf.length < 5) return;
      const size = 1 + buf.readInt32BE(1);
      if (buf.length < size) return;
      if (buf[0] === READY) link.pending--;
      link.fromServer = buf.subarray(size);
    }
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const link: Link = { client, upstream, pending: 0, started: false, fromClient: Buffer.alloc(0), fromServer: Buffer.alloc(0) };
    links.add(link);
    const drop = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
      check();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => {
      link.fromClient = Buffer.concat([link.fromClient, chunk]);
      forward(link);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      link.fromServer = Buffer.concat([link.fromServer, chunk]);
      answered(link);
      check();
    });
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => {
    server.off('error', reject);
    resolve();
  }));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      holding = true;
      await new Promise<void>((resolve) => {
        const limit = setTimeout(resolve, DRAIN_LIMIT_MS);
        settled = () => {
          clearTimeout(limit);
          resolve();
        };
        check();
      });
      settled = null;
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      links.clear();
      await closed;
      holding = false;
    },
    restore: () => listen(port),
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
