/**
 * How every bare baseline serves: its router on a Koa 3 app on 127.0.0.1 (a free port), `{"url", "pid", …extra}`
 * on stdout once it listens, and on SIGTERM its connections cut, then its pool closed.
 */
import http from 'node:http';
import Koa from 'koa';
import type Router from '@koa/router';
import type pg from 'pg';

export async function serveBare(router: Router, pool: pg.Pool, options: { silent?: boolean; extra?: Record<string, unknown> } = {}): Promise<void> {
  const app = new Koa();
  // autocannon may close a connection with an answer still being written: EPIPE, not a server fault to print
  if (options.silent) app.silent = true;
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, ...options.extra, pid: process.pid })}\n`);
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.end().finally(() => process.exit(0)));
  });
}
