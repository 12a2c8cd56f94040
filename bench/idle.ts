/**
 * `npm run bench:idle`: what an idle `vigil serve` costs — CPU a second with no request, on the embedded database and
 * on PostgreSQL (its backends counted too), after a warm-up of WARMUP_SECONDS (5), over `--seconds` (BENCH_SECONDS, 20).
 * Every instance runs its passes (escalations each second, heartbeats, checks) and looks for due jobs; this is what
 * those cost while nothing is due, as a deployment waiting for its first alert pays it all day.
 *
 * Beside it, the bare baseline in the same run: a Node HTTP server that asks its database `select 1` once a second
 * (the least a service that notices its database going away pays). Reported as CPU milliseconds a second and as the
 * ratio to the baseline. Writes bench/results/idle-<date>.json and idle-latest.md.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, observer, runMain, scratchDatabase, spawnServing, writeResults, BARE_APPLICATION } from './lib.ts';

const arg = process.argv.indexOf('--seconds');
const SECONDS = Number(arg > 0 ? process.argv[arg + 1] : process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const VIGIL = here('../bin/vigil.ts');

/** The bare baseline: an HTTP server and one database connection asked `select 1` every second. */
const BARE = `
import http from 'node:http';
const url = process.env.BARE_DATABASE_URL;
let ask;
if (url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, application_name: '${BARE_APPLICATION}' });
  await client.connect();
  ask = () => client.query('select 1');
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create('memory://');
  ask = () => db.query('select 1');
}
setInterval(() => void ask(), 1000);
const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => process.stderr.write('serving at http://127.0.0.1:' + server.address().port + '\\n'));
`;

/** Starts a process and resolves once it says where it serves. */
const started = async (args: string[], env: Record<string, string>): Promise<ChildProcess> => (await spawnServing(args, env)).child;

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** CPU ms a second of the process and (on PostgreSQL) the backends `backends` names, over SECONDS after the warm-up. */
async function idleCpu(child: ChildProcess, backends: () => Promise<number[]>): Promise<{ process: number; postgres: number }> {
  await sleep(WARMUP_SECONDS * 1000);
  const pids = async () => [child.pid!, ...(await backends())];
  const before = await cpuSeconds(await pids());
  await sleep(SECONDS * 1000);
  const after = await cpuSeconds(await pids());
  let processCpu = 0;
  let postgres = 0;
  for (const [pid, t] of after) {
    const d = t - (before.get(pid) ?? 0);
    if (pid === child.pid) processCpu += d;
    else postgres += d;
  }
  const perSecond = (s: number) => Math.round((s * 1000) / SECONDS);
  return { process: perSecond(processCpu), postgres: perSecond(postgres) };
}

async function main(): Promise<number> {
  const rows: { database: string; vigil: { process: number; postgres: number }; bare: { process: number; postgres: number } }[] = [];
  const env = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', VIGIL_ADMIN_TOKEN: `bench-${randomBytes(20).toString('hex')}`, VIGIL_SECRET_KEY: randomBytes(32).toString('base64') };
  // the embedded database: nothing to count beside the process
  {
    const vigil = await started([VIGIL, 'serve'], { ...env, DATABASE_URL: '', DATA_DIR: 'memory://' });
    const v = await idleCpu(vigil, async () => []).finally(() => stop(vigil));
    const bare = await started(['--input-type=module', '-e', BARE], { BARE_DATABASE_URL: '' });
    const b = await idleCpu(bare, async () => []).finally(() => stop(bare));
    rows.push({ database: 'PGlite', vigil: v, bare: b });
  }
  if (process.env.BENCH_SKIP_POSTGRES !== '1') {
    const scratch = await scratchDatabase();
    const watch = await observer(scratch);
    try {
      const ours = async () => (await watch.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and application_name <> $2', [scratch.name, BARE_APPLICATION])).map((r) => r.pid);
      const theirs = async () => (await watch.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and application_name = $2', [scratch.name, BARE_APPLICATION])).map((r) => r.pid);
      const vigil = await started([VIGIL, 'serve'], { ...env, DATABASE_URL: scratch.url });
      const v = await idleCpu(vigil, ours).finally(() => stop(vigil));
      const bare = await started(['--input-type=module', '-e', BARE], { BARE_DATABASE_URL: scratch.url });
      const b = await idleCpu(bare, theirs).finally(() => stop(bare));
      rows.push({ database: 'PostgreSQL', vigil: v, bare: b });
    } finally {
      await watch.close();
      await scratch.drop();
    }
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z');
  const total = (c: { process: number; postgres: number }) => c.process + c.postgres;
  const md = [
    `# Idle \`vigil serve\` (${stamp})`,
    '',
    `CPU milliseconds a second over ${SECONDS} s after a ${WARMUP_SECONDS}-s warm-up, no request; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores.`,
    'Bare baseline: an HTTP server asking its database `select 1` once a second.',
    '',
    '| database | vigil (process + PostgreSQL) | bare (process + PostgreSQL) | ratio |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.database} | ${total(r.vigil)} (${r.vigil.process} + ${r.vigil.postgres}) | ${total(r.bare)} (${r.bare.process} + ${r.bare.postgres}) | ${(total(r.vigil) / Math.max(1, total(r.bare))).toFixed(1)} |`),
    '',
  ].join('\n');
  process.stdout.write(md);
  return writeResults(here('./results/'), 'idle', stamp, { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, load: os.loadavg(), rows }, md, []);
}

runMain(main);
