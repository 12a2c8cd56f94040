/**
 * The export benchmark's baseline: Koa 3 and a pg.Pool (max 20, like Vigil's) answering `GET /export` by selecting
 * BENCH_EXPORT_ROWS (5,000) rows of one organization from a table of its own in the scratch database and writing
 * each as an HCL import and resource block (attributes as JSON values). One query, no references, no plan, no
 * secrets: the floor an export of that many rows cannot go below. Prints `{"url", "pid"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import pg from 'pg';
import { serveBare } from './bare-serve.ts';

const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required');
const rows = Number(process.env.BENCH_EXPORT_ROWS ?? 5000);

const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, application_name: 'vigil-bench-bare' });
await pool.query(`create table if not exists bench_export_rows (
  id uuid primary key, organization_id uuid not null, family text not null, name text not null, attributes jsonb not null)`);
const organizationId = randomUUID();
// nine families, rows of a few attributes each, like the mix bench/scenarios/export.ts grows in Vigil
await pool.query(
  `insert into bench_export_rows (id, organization_id, family, name, attributes)
   select gen_random_uuid(), $1, 'family_' || (n % 9), 'row_' || n,
          jsonb_build_object('name', 'row ' || n, 'service', 'svc-' || n, 'priority', n % 50, 'target_percent', 99.9,
                             'description', 'objective "' || n || '"', 'labels', jsonb_build_array('a', 'b'))
   from generate_series(1, $2::int) as n`,
  [organizationId, rows],
);

const router = new Router();
router.get('/export', async (ctx) => {
  const { rows: found } = await pool.query('select id, family, name, attributes from bench_export_rows where organization_id = $1 order by family, name', [organizationId]);
  const blocks = found.map((r: { id: string; family: string; name: string; attributes: Record<string, unknown> }) => {
    const attributes = Object.entries(r.attributes).map(([k, value]) => `  ${k} = ${JSON.stringify(value)}`).join('\n');
    return `import {\n  to = vigil_${r.family}.${r.name}\n  id = "${r.id}"\n}\n\nresource "vigil_${r.family}" "${r.name}" {\n${attributes}\n}\n`;
  });
  ctx.type = 'text/plain';
  ctx.body = blocks.join('\n');
});
await serveBare(router, pool, { silent: true });
