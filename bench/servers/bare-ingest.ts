/**
 * The alert benchmark's baselines: Koa 3 and a pg.Pool (max 20, like Vigil's MikroORM pool), on tables of their
 * own in the scratch database.
 * - `POST /ingest` reads the JSON body and inserts one row (id, organization, the first alert's fingerprint and
 *   name, the whole body as jsonb, the time received). No token lookup, no rate limit, no transaction: the floor
 *   an alert endpoint cannot go below.
 * - `POST /alerts` does the least a new alert needs, in one transaction: begin; insert the alert unless its
 *   fingerprint is known (`on conflict do nothing`); count the alerts raised in the last 300 s, up to 10 (the
 *   storm check); record one effect row; commit. Its table starts with 10,000 older alerts of other
 *   organizations, analyzed.
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
await pool.query(`create table if not exists bench_alerts (
  id uuid primary key, organization_id uuid not null, fingerprint text not null, title text not null,
  payload jsonb not null, raised_at timestamptz not null, unique (organization_id, fingerprint))`);
await pool.query('create index if not exists bench_alerts_raised on bench_alerts (organization_id, raised_at)');
await pool.query(`create table if not exists bench_alert_effects (
  seq bigserial primary key, alert_id uuid not null, at timestamptz not null, kind text not null, detail jsonb not null)`);
// a table with a history, as a real one has: without statistics the planner reads every alert of the window
// to count ten of them (a bitmap scan over thousands), with them it stops at the tenth
await pool.query(
  `insert into bench_alerts (id, organization_id, fingerprint, title, payload, raised_at)
   select gen_random_uuid(), ('00000000-0000-0000-0000-0000000000' || lpad((n % 20)::text, 2, '0'))::uuid, 'seed ' || n, 'seed', '{}', now() - make_interval(secs => n)
   from generate_series(1, 10000) n on conflict do nothing`,
);
await pool.query('analyze bench_alerts');
const organizationId = randomUUID();

type Grafana = { alerts: { fingerprint: string; labels: { alertname: string } }[] };

async function body(req: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

const router = new Router();
router.post('/ingest', async (ctx) => {
  const text = await body(ctx.req);
  const alert = (JSON.parse(text) as Grafana).alerts[0]!;
  await pool.query(
    'insert into bench_alert_rows (id, organization_id, fingerprint, title, payload, received_at) values ($1, $2, $3, $4, $5, now())',
    [randomUUID(), organizationId, alert.fingerprint, alert.labels.alertname, text],
  );
  ctx.body = { status: 'ok' };
});
router.post('/alerts', async (ctx) => {
  const text = await body(ctx.req);
  const alert = (JSON.parse(text) as Grafana).alerts[0]!;
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query(
      `insert into bench_alerts (id, organization_id, fingerprint, title, payload, raised_at) values ($1, $2, $3, $4, $5, now())
       on conflict (organization_id, fingerprint) do nothing returning id`,
      [randomUUID(), organizationId, alert.fingerprint, alert.labels.alertname, text],
    );
    const id = rows[0]?.id as string | undefined;
    if (id) {
      const { rows: [window] } = await client.query(
        `select count(*)::int as raised from (select 1 from bench_alerts where organization_id = $1 and raised_at > now() - interval '300 seconds' and id <> $2 limit 10) r`,
        [organizationId, id],
      );
      await client.query(`insert into bench_alert_effects (alert_id, at, kind, detail) values ($1, now(), $2, $3)`,
        [id, window.raised >= 9 ? 'storm_grouped' : 'page', JSON.stringify({ raised: window.raised })]);
    }
    await client.query('commit');
    ctx.body = { status: 'ok', created: Boolean(id) };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
});
await serveBare(router, pool);
