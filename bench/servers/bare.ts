/**
 * The baseline: Koa 3 and a pg.Pool (max 20, like Vigil's) answering GET /rows/:id with one primary-key
 * select, PUT /rows/:id with the same transaction a Vigil update runs (begin, select for update, update, audit
 * insert, commit), on small tables it creates and seeds in the scratch database, and GET /page with one ordered
 * select … limit n of Vigil's own ai_providers table (the rows a Vigil list page answers).
 * Prints `{"url", "ids"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import pg from 'pg';
import { serveBare } from './bare-serve.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_rows (
  id uuid primary key, name text not null, provider text not null, priority integer not null, updated_at timestamptz not null)`);
await pool.query(`create table if not exists bench_audit (id uuid primary key, at timestamptz not null, row_id uuid not null, changes jsonb not null)`);
const ids = Array.from({ length: 100 }, () => randomUUID());
await pool.query(
  `insert into bench_rows (id, name, provider, priority, updated_at)
   select id, 'row ' || n, 'vendor_a', n, now() from unnest($1::uuid[]) with ordinality as t(id, n)`,
  [ids],
);

const router = new Router();
/**
 * A list page: the organization's first `limit` ai_providers rows, Vigil's own table and order (the scenario seeds
 * them through Vigil), every stored column answered as the driver reads it: the same rows a Vigil page answers.
 */
router.get('/page', async (ctx) => {
  const limit = Math.min(500, Math.max(1, Number(ctx.query.limit ?? 100) || 100));
  const { rows } = await pool.query(
    'select * from cfg_ai_providers where organization_id = $1 order by priority asc nulls first, name asc nulls first, created_at asc, id asc limit $2',
    [String(ctx.query.organization), limit],
  );
  ctx.body = { data: rows };
});
router.get('/rows/:id', async (ctx) => {
  const { rows } = await pool.query('select id, name, provider, priority, updated_at from bench_rows where id = $1', [ctx.params.id]);
  if (!rows[0]) {
    ctx.status = 404;
    ctx.body = { error: 'not_found' };
    return;
  }
  ctx.body = { data: rows[0] };
});
router.put('/rows/:id', async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const { priority } = JSON.parse(Buffer.concat(chunks).toString()) as { priority: number };
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query('select id, name, provider, priority, updated_at from bench_rows where id = $1 for update', [ctx.params.id]);
    await client.query('update bench_rows set priority = $2, updated_at = now() where id = $1', [ctx.params.id, priority]);
    await client.query('insert into bench_audit (id, at, row_id, changes) values ($1, now(), $2, $3)', [
      randomUUID(), ctx.params.id, JSON.stringify({ priority: { before: rows[0].priority, after: priority } }),
    ]);
    await client.query('commit');
    ctx.body = { data: { ...rows[0], priority } };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
});
await serveBare(router, pool, { extra: { ids } });
