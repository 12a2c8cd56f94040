/**
 * The baseline: Koa 3 and a pg.Pool (max 20, like Vigil's), on small tables it creates and seeds in the scratch
 * database (`bench_rows` with a unique name, as a Vigil family has a unique natural key, and `bench_audit`):
 * - `GET /rows/:id`: one primary-key select;
 * - the transactions Vigil's audited writes run, in bare pg: `PUT /rows/:id` (begin, select for update, update,
 *   audit insert, commit), `POST /rows` (begin, insert, audit insert, commit), `DELETE /rows/:id` (begin, select
 *   for update, delete, audit insert, commit; 404 when the row is gone);
 * - `POST /insert`: one autocommit insert of a small row into a table of its own, the floor of any write;
 * - `POST /seed?count=n`: n rows for the deletes to take, one statement; row k (1 ≤ k ≤ n) has the id
 *   `deletable(k)`, so a load generator names them without being sent 200,000 ids;
 * - `GET /page`: one ordered select … limit n of Vigil's own ai_providers table (the rows a Vigil list page answers).
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
  id uuid primary key, name text not null unique, provider text not null, priority integer not null, updated_at timestamptz not null)`);
await pool.query(`create table if not exists bench_inserts (
  id uuid primary key, name text not null, provider text not null, priority integer not null, updated_at timestamptz not null)`);
await pool.query(`create table if not exists bench_audit (id uuid primary key, at timestamptz not null, row_id uuid not null, changes jsonb not null)`);
const ids = Array.from({ length: 100 }, () => randomUUID());
await pool.query(
  `insert into bench_rows (id, name, provider, priority, updated_at)
   select id, 'row ' || n, 'vendor_a', n, now() from unnest($1::uuid[]) with ordinality as t(id, n)`,
  [ids],
);

type Written = { name: string; provider: string; priority: number };

async function body<T>(req: AsyncIterable<unknown>): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString()) as T;
}

/** One transaction on a pooled client; `undefined` from `work` (nothing to write) rolls it back. */
async function transaction<T>(work: (client: pg.PoolClient) => Promise<T | undefined>): Promise<T | undefined> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query(result === undefined ? 'rollback' : 'commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

const audit = (client: pg.PoolClient, rowId: string, changes: unknown) =>
  client.query('insert into bench_audit (id, at, row_id, changes) values ($1, now(), $2, $3)', [randomUUID(), rowId, JSON.stringify(changes)]);

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
  const { priority } = await body<{ priority: number }>(ctx.req);
  const row = await transaction(async (client) => {
    const { rows } = await client.query('select id, name, provider, priority, updated_at from bench_rows where id = $1 for update', [ctx.params.id]);
    await client.query('update bench_rows set priority = $2, updated_at = now() where id = $1', [ctx.params.id, priority]);
    await audit(client, ctx.params.id!, { priority: { before: rows[0].priority, after: priority } });
    return { ...rows[0], priority };
  });
  ctx.body = { data: row };
});
router.post('/rows', async (ctx) => {
  const { name, provider, priority } = await body<Written>(ctx.req);
  const row = await transaction(async (client) => {
    const { rows } = await client.query(
      'insert into bench_rows (id, name, provider, priority, updated_at) values ($1, $2, $3, $4, now()) returning id, name, provider, priority, updated_at',
      [randomUUID(), name, provider, priority],
    );
    await audit(client, rows[0].id, { name: { before: null, after: name }, provider: { before: null, after: provider }, priority: { before: null, after: priority } });
    return rows[0];
  });
  ctx.status = 201;
  ctx.body = { data: row };
});
router.delete('/rows/:id', async (ctx) => {
  const gone = await transaction(async (client) => {
    const { rows } = await client.query('select id, name, provider, priority, updated_at from bench_rows where id = $1 for update', [ctx.params.id]);
    if (!rows[0]) return undefined;
    await client.query('delete from bench_rows where id = $1', [ctx.params.id]);
    await audit(client, ctx.params.id!, { name: { before: rows[0].name, after: null }, provider: { before: rows[0].provider, after: null }, priority: { before: rows[0].priority, after: null } });
    return rows[0];
  });
  if (!gone) {
    ctx.status = 404;
    ctx.body = { error: 'not_found' };
    return;
  }
  ctx.status = 204;
});
router.post('/insert', async (ctx) => {
  const { name, provider, priority } = await body<Written>(ctx.req);
  const { rows } = await pool.query(
    'insert into bench_inserts (id, name, provider, priority, updated_at) values ($1, $2, $3, $4, now()) returning id, name, provider, priority, updated_at',
    [randomUUID(), name, provider, priority],
  );
  ctx.status = 201;
  ctx.body = { data: rows[0] };
});
router.post('/seed', async (ctx) => {
  const count = Math.min(1_000_000, Math.max(0, Math.floor(Number(ctx.query.count)) || 0));
  // row k's id is deletable(k) of bench/scenarios/config.ts: 00000000-0000-4000-8000-<k in 12 hex digits>
  const { rowCount } = await pool.query(
    `insert into bench_rows (id, name, provider, priority, updated_at)
     select ('00000000-0000-4000-8000-' || lpad(to_hex(k), 12, '0'))::uuid, 'deletable ' || k, 'vendor_a', 1, now() from generate_series(1, $1::int) k
     on conflict do nothing`,
    [count],
  );
  await pool.query('analyze bench_rows');
  ctx.body = { seeded: rowCount, count };
});
await serveBare(router, pool, { extra: { ids } });
