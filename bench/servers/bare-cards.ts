/**
 * The ops-board benchmark's baseline: Koa 3 and a pg.Pool (max 20, like Vigil's MikroORM pool) answering
 * `POST /cards` by reading the JSON body and inserting one row (id, organization, the Idempotency-Key header,
 * title, priority, the whole body as jsonb, the time received) into a table of its own in the scratch database,
 * answering 201 with the row's id. No token lookup, no rate limit, no transaction, no key check (a repeated key
 * is one more row): the floor a card endpoint cannot go below. (bench/servers/bare-ingest.ts is the same server
 * for Grafana bodies.) Prints `{"url", "pid"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import pg from 'pg';
import { serveBare } from './bare-serve.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_card_rows (
  id uuid primary key, organization_id uuid not null, dedup_key text, title text not null, priority text,
  payload jsonb not null, received_at timestamptz not null)`);
const organizationId = randomUUID();

const router = new Router();
router.post('/cards', async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  const card = JSON.parse(text) as { title: string; priority?: string };
  const id = randomUUID();
  await pool.query(
    'insert into bench_card_rows (id, organization_id, dedup_key, title, priority, payload, received_at) values ($1, $2, $3, $4, $5, $6, now())',
    [id, organizationId, ctx.get('idempotency-key') || null, card.title, card.priority ?? null, text],
  );
  ctx.status = 201;
  ctx.body = { id };
});
await serveBare(router, pool);
