/**
 * The alert benchmark's baseline: Koa 3 and a pg.Pool (max 20, like Vigil's MikroORM pool) answering
 * `POST /ingest` by reading the JSON body and inserting one row (id, organization, the first alert's fingerprint
 * and name, the whole body as jsonb, the time received) into a table of its own in the scratch database.
 * No token lookup, no rate limit, no transaction: the floor an alert endpoint cannot go below.
 * Prints `{"url", "pid"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import pg from 'pg';
import { serveBare } from './bare-serve.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_alert_rows (
  id uuid primary key, organization_id uuid not null, fingerprint text not null, title text not null,
  payload jsonb not null, received_at timestamptz not null)`);
const organizationId = randomUUID();

const router = new Router();
router.post('/ingest', async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  const alert = (JSON.parse(text) as { alerts: { fingerprint: string; labels: { alertname: string } }[] }).alerts[0]!;
  await pool.query(
    'insert into bench_alert_rows (id, organization_id, fingerprint, title, payload, received_at) values ($1, $2, $3, $4, $5, now())',
    [randomUUID(), organizationId, alert.fingerprint, alert.labels.alertname, text],
  );
  ctx.body = { status: 'ok' };
});
await serveBare(router, pool);
