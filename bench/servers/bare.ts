/**
 * The baseline: Koa 3 and a pg.Pool (max 20, like Vigil's) answering GET /rows/:id with one primary-key
 * select on a small table it creates and seeds in the scratch database. Prints `{"url", "ids"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import pg from 'pg';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_rows (
  id uuid primary key, name text not null, provider text not null, priority integer not null, updated_at timestamptz not null)`);
const ids = Array.from({ length: 100 }, () => randomUUID());
await pool.query(
  `insert into bench_rows (id, name, provider, priority, updated_at)
   select id, 'row ' || n, 'vendor_a', n, now() from unnest($1::uuid[]) with ordinality as t(id, n)`,
  [ids],
);

const router = new Router();
router.get('/rows/:id', async (ctx) => {
  const { rows } = await pool.query('select id, name, provider, priority, updated_at from bench_rows where id = $1', [ctx.params.id]);
  if (!rows[0]) {
    ctx.status = 404;
    ctx.body = { error: 'not_found' };
    return;
  }
  ctx.body = { data: rows[0] };
});
const app = new Koa();
app.use(router.routes());

const server = http.createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, ids, pid: process.pid })}\n`);

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.end().finally(() => process.exit(0)));
});
