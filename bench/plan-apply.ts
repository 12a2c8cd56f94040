/**
 * `node bench/plan-apply.ts`: `vigil plan` and `vigil apply` of a 5,000-row export into an empty organization,
 * beside the export's own figure, on PostgreSQL (a scratch database, dropped afterwards). The source organization
 * is grown with the export benchmark's mix (bench/scenarios/export.ts); the plan is computed through the public API
 * and checked by the service's dry run (POST /batch, dry_run), the apply is one batch (one transaction, all or
 * nothing), then the plan is made again (a no-op). Results in bench/results/plan-apply-latest.md.
 *
 * DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres); BENCH_ROWS (5000).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { applyPlan } from '../export/apply.ts';
import { checkedPlan } from '../export/batch.ts';
import { readConfigFile } from '../export/config-file.ts';
import { httpConfigApi } from '../export/remote.ts';
import { families } from '../resources/index.ts';
import { scratchDatabase, type Scratch } from './lib.ts';
import { exportService } from './export-service.ts';
import { grow } from './scenarios/export.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 5000);
const OPERATOR = `bench-operator-${randomBytes(8).toString('hex')}`;

async function call(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* the export is text */
  }
  return { status: res.status, body: parsed, text };
}

async function organization(base: string, name: string): Promise<string> {
  const org = await call(`${base}/api/admin/v1/organizations`, 'POST', OPERATOR, { name, plan: 'enterprise' });
  return (await call(`${base}/api/admin/v1/organizations/${org.body.id}/api_keys`, 'POST', OPERATOR, { name: 'bench', scopes: ['api:admin'] })).body.key as string;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

let scratch: Scratch | undefined;
let close: (() => Promise<void>) | undefined;
try {
  scratch = await scratchDatabase();
  const running = await exportService(scratch, OPERATOR);
  close = running.close;
  const base = running.url;
  const source = await organization(base, 'plan-apply bench source');
  await grow(base, source, 0, ROWS, { slis: [], slos: [] });
  await call(`${base}/api/v1/config/export?format=hcl`, 'GET', source); // warm-up
  const exported = await timed(async () => (await call(`${base}/api/v1/config/export?format=hcl`, 'GET', source)).text);
  const file = readConfigFile(exported.value, families);

  const target = await organization(base, 'plan-apply bench target');
  const api = httpConfigApi(base, target);
  const plan = await timed(() => checkedPlan(api, families, file));
  if (plan.value.refusals.length) throw new Error(`the plan was refused: ${JSON.stringify(plan.value.refusals.slice(0, 3))}`);
  const applied = await timed(() => applyPlan(api, plan.value));
  if (applied.value.stopped) throw new Error(applied.value.stopped.message);
  const again = await timed(() => checkedPlan(api, families, file));

  const ms = (n: number) => `${n.toFixed(0)} ms`;
  const text = [
    `# Plan and apply benchmark — ${new Date().toISOString()}`,
    '',
    `Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}.`,
    `PostgreSQL scratch database. A source organization grown to ${ROWS} rows with the export benchmark's mix (bench/scenarios/export.ts); its export`,
    `(${file.resources.length} resource blocks, ${(Buffer.byteLength(exported.value) / 1024).toFixed(0)} KiB) planned and applied into an empty organization through the public API, one run each.`,
    '',
    '| step | what it does | time |',
    '|---|---|---:|',
    `| export | GET /export?format=hcl of the source (after one warm-up) | ${ms(exported.ms)} |`,
    `| plan | read the target as its export, compare, then the service's dry run of all ${plan.value.actions.length} changes (POST /batch, dry_run: checked, rolled back) | ${ms(plan.ms)} |`,
    `| apply | the same ${plan.value.actions.length} changes as one batch: one transaction, one change id | ${ms(applied.ms)} |`,
    `| plan again | the target now matches: ${again.value.actions.length} changes, so no dry run | ${ms(again.ms)} |`,
    '',
    `Per 1,000 rows: plan ${ms((plan.ms / plan.value.actions.length) * 1000)}, apply ${ms((applied.ms / plan.value.actions.length) * 1000)}; the export of the same rows ${ms((exported.ms / file.resources.length) * 1000)}.`,
    '',
  ].join('\n');
  await writeFile(fileURLToPath(new URL('./results/plan-apply-latest.md', import.meta.url)), text);
  process.stdout.write(text);
} finally {
  await close?.();
  await scratch?.drop();
}
