/**
 * `npm run bench:plan-apply`: `vigil plan` and `vigil apply` at size, on PostgreSQL (a scratch database, dropped
 * afterwards), each figure beside a bare baseline measured in the same run and against the goals of issue 41:
 * - reading the 5,000-row export file (the plain-HCL reader) beside JSON.parse of the same blocks (format=json);
 *   BENCH_HCL2_PARSER=1 also times hcl2-parser on it (tens of seconds: the reader used before);
 * - a syntax error located in a file of over 2 MB (goal: under 1 s), beside the same bare JSON.parse;
 * - the plan of 5,000 creates into an empty organization, with the service's dry run (goal: under 3 s);
 * - the apply of them, as `vigil apply` does it: the plan, then one batch, no dry run first (goal: under 10 s),
 *   beside the bare floor of writing 5,000 rows: one INSERT … SELECT of 5,000 rows of the same JSON into a table;
 * - the plan again, 5,000 unchanged rows (goal: under 2 s), beside the export it reads (GET /export?format=json).
 * The source organization is grown with the export benchmark's mix (bench/scenarios/export.ts). Results in
 * bench/results/plan-apply-latest.md, with the machine's load average (other work on the machine slows every figure).
 *
 * DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres); BENCH_ROWS (5000);
 * BENCH_PROFILE=<file.cpuprofile> writes a CPU profile of the plan of creates alone (client and service: one process),
 * for Chrome's DevTools or `node bench/profile-summary.ts <file>`. Each step's process CPU time is reported beside its wall time.
 */
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { planAndApply } from '../export/apply.ts';
import { checkedPlan } from '../export/batch.ts';
import { ConfigFileError, readConfigFile } from '../export/config-file.ts';
import { tryParse } from '../export/hcl-reader.ts';
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

/** Wall time and this process's CPU time (user + system: the client and the service both run here; PostgreSQL does not). */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

/** `work` under the V8 CPU profiler, the profile written to `file`. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}

function timedSync<T>(work: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = work();
  return { ms: performance.now() - started, value };
}

/** A file of over 2 MB: the export repeated under other labels, with one syntax error about two thirds in. */
function brokenLargeFile(exported: string): { text: string; line: number } {
  const copies: string[] = [exported];
  for (let n = 1; copies.join('\n').length < 2_100_000; n++) copies.push(exported.replace(/^(resource "vigil_[a-z0-9_]+" ")([^"]+)"/gm, `$1$2_copy${n}"`).replace(/^(  to = vigil_[a-z0-9_]+\.)(\S+)$/gm, `$1$2_copy${n}`));
  const lines = copies.join('\n').split('\n');
  const at = lines.findIndex((l, i) => i > (lines.length * 2) / 3 && /^  [a-z_]+ += "/.test(l));
  lines[at] = lines[at]!.replace('= "', '= = "');
  return { text: lines.join('\n'), line: at + 1 };
}

/** The floor of writing the rows: one INSERT … SELECT of every block as jsonb, in one statement, into a scratch table. */
async function bareInsert(url: string, json: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create table bench_bare_rows (id uuid primary key default gen_random_uuid(), family text not null, label text not null, body jsonb not null)');
    const started = performance.now();
    await client.query(
      `insert into bench_bare_rows (family, label, body)
       select f.key, l.key, l.value from jsonb_each($1::jsonb -> 'resource') f, jsonb_each(f.value) l`,
      [json],
    );
    return performance.now() - started;
  } finally {
    await client.query('drop table if exists bench_bare_rows').catch(() => undefined);
    await client.end();
  }
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
  const exportedJson = await timed(async () => (await call(`${base}/api/v1/config/export?format=json`, 'GET', source)).text);
  const bareParse = timedSync(() => JSON.parse(exportedJson.value) as unknown);
  const read = timedSync(() => readConfigFile(exported.value, families));
  const file = read.value;
  const broken = brokenLargeFile(exported.value);
  const located = timedSync(() => {
    try {
      readConfigFile(broken.text, families);
    } catch (error) {
      if (error instanceof ConfigFileError) return error;
      throw error;
    }
    throw new Error('the broken file was read without error');
  });
  if (located.value.line !== broken.line || !located.value.column) throw new Error(`the syntax error was placed on line ${broken.line}, not ${located.value.line}:${located.value.column}`);

  const target = await organization(base, 'plan-apply bench target');
  const api = httpConfigApi(base, target);
  const plan = await profiled(process.env.BENCH_PROFILE, () => timed(() => checkedPlan(api, families, file)));
  if (plan.value.refusals.length) throw new Error(`the plan was refused: ${JSON.stringify(plan.value.refusals.slice(0, 3))}`);
  const applied = await timed(() => planAndApply(api, families, file));
  if (!applied.value.result || applied.value.result.stopped || applied.value.plan.refusals.length) throw new Error(`the apply was refused: ${JSON.stringify(applied.value.plan.refusals.slice(0, 3))}`);
  const again = await timed(() => checkedPlan(api, families, file));
  if (again.value.actions.length) throw new Error(`the plan after the apply still holds ${again.value.actions.length} changes`);
  const readBack = await timed(async () => (await call(`${base}/api/v1/config/export?format=json`, 'GET', target)).text);
  const bare = await bareInsert(scratch.url, exportedJson.value);
  // last: it holds the event loop for tens of seconds, which the service in this process would not survive mid-run
  const full = process.env.BENCH_HCL2_PARSER === '1' ? timedSync(() => tryParse(exported.value)) : undefined;

  const ms = (n: number) => `${n.toFixed(0)} ms`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
  const goal = (value: number, limit: number) => `${value < limit ? 'met' : 'missed'} (under ${ms(limit)})`;
  const creates = plan.value.actions.length;
  const kib = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`;
  const text = [
    `# Plan and apply benchmark — ${new Date().toISOString()}`,
    '',
    `Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (other work on this machine slows every figure).`,
    `PostgreSQL scratch database. A source organization grown to ${ROWS} rows with the export benchmark's mix (bench/scenarios/export.ts); its export`,
    `(${file.resources.length} resource blocks, ${kib(exported.value)} as HCL, ${kib(exportedJson.value)} as JSON) read, planned and applied into an empty organization through the public API, one run each.`,
    '',
    '| step | what it does | time | baseline | ratio | goal |',
    '|---|---|---:|---|---:|---|',
    `| read the file | readConfigFile of the ${kib(exported.value)} export (the plain-HCL reader) | ${ms(read.ms)} | JSON.parse of the same blocks: ${ms(bareParse.ms)} | ${ratio(read.ms, bareParse.ms)} | |`,
    ...(full ? [`| (before) hcl2-parser | the full parser alone on the same file, as every file was read before | ${ms(full.ms)} | JSON.parse: ${ms(bareParse.ms)} | ${ratio(full.ms, bareParse.ms)} | |`] : []),
    `| syntax error | readConfigFile of a ${kib(broken.text)} file with one error, on line ${broken.line}: named by line and column | ${ms(located.ms)} | JSON.parse: ${ms(bareParse.ms)} | ${ratio(located.ms, bareParse.ms)} | ${goal(located.ms, 1000)} |`,
    `| plan, ${creates} creates | read the empty target (format=json), compare, the service's dry run of every change (POST /batch, dry_run) | ${ms(plan.ms)} (CPU ${ms(plan.cpuMs)}) | bare insert of ${file.resources.length} rows in one statement: ${ms(bare)} | ${ratio(plan.ms, bare)} | ${goal(plan.ms, 3000)} |`,
    `| apply, ${creates} creates | as \`vigil apply\`: the plan, then the changes as one batch (one transaction, one change id), no dry run first | ${ms(applied.ms)} (CPU ${ms(applied.cpuMs)}) | bare insert: ${ms(bare)} | ${ratio(applied.ms, bare)} | ${goal(applied.ms, 10000)} |`,
    `| plan, ${ROWS} unchanged | the target now matches: 0 changes, so no dry run | ${ms(again.ms)} (CPU ${ms(again.cpuMs)}) | GET /export?format=json of the target: ${ms(readBack.ms)} | ${ratio(again.ms, readBack.ms)} | ${goal(again.ms, 2000)} |`,
    '',
    `Time is wall time; CPU is this process's (the client and the service run in it; PostgreSQL's own work is not counted). The export of the source: ${ms(exported.ms)} as HCL, ${ms(exportedJson.ms)} as JSON. \`vigil plan\` from a person's machine is "read the file" plus the plan; \`vigil apply\` is "read the file" plus the apply.`,
    '',
  ].join('\n');
  await writeFile(fileURLToPath(new URL('./results/plan-apply-latest.md', import.meta.url)), text);
  process.stdout.write(text);
} finally {
  await close?.();
  await scratch?.drop();
}
