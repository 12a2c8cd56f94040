/**
 * `npm run bench`: Vigil's authenticated read by id and update (with its audit entry) against a bare
 * Koa + pg server doing one primary-key read, in the same run, on a scratch PostgreSQL database.
 * Each server runs in a child process; autocannon drives them from here. Exits non-zero only when
 * something failed to run (including non-2xx answers); a missed goal is reported, not an error.
 *
 * BENCH_SECONDS (10) measured seconds per target, BENCH_WARMUP (3) warm-up seconds,
 * BENCH_PROFILE=1 runs the Vigil child with --cpu-prof (profiles in bench/results/profiles),
 * DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { measure, startChild, withRun, type Child, type CpuProbe, type Measured } from './lib.ts';

const CONNECTIONS = 32;
const GOALS = { readRatio: 0.5, updateRatio: 0.3, readP99Ms: 25 };
/** Vigil's update against the same transaction written in bare pg (not a goal of the issue; the fair comparison). */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');

async function call(url: string, method: string, token: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function expect(what: string, answer: Promise<{ status: number; body: any }>, status: number) {
  const got = await answer;
  if (got.status !== status) throw new Error(`${what}: expected ${status}, got ${got.status} ${JSON.stringify(got.body)}`);
  return got.body;
}

/** An organization, an api:admin key and a few ai_providers rows, through the operator and configuration APIs. */
async function seedVigil(url: string, operatorToken: string) {
  const org = await expect('organization', call(`${url}/api/admin/v1/organizations`, 'POST', operatorToken, { name: 'bench org', plan: 'business' }), 201);
  const key = await expect('api key', call(`${url}/api/admin/v1/organizations/${org.id}/api_keys`, 'POST', operatorToken, { name: 'bench key', scopes: ['api:admin'] }), 201);
  const ids: string[] = [];
  for (let i = 1; i <= CONNECTIONS_ROWS; i++) {
    const made = await expect('ai_providers row', call(`${url}/api/v1/config/ai_providers`, 'POST', key.key, { name: `provider ${i}`, provider: 'vendor_a', priority: i }), 201);
    ids.push(made.data.id);
  }
  await expect('read back', call(`${url}/api/v1/config/ai_providers/${ids[0]}`, 'GET', key.key), 200);
  return { token: key.key as string, ids };
}

const BARE_APPLICATION = 'vigil-bench-bare';
/** One row per connection, so the update run measures the update path, not 32 waiters on one row lock. */
const CONNECTIONS_ROWS = 32;

/** A connection to the scratch database: audit counts, and the pids of each server's PostgreSQL backends. */
async function observer(databaseUrl: string, database: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const backends = async (bare: boolean): Promise<number[]> => {
    const { rows } = await c.query(
      `select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and (application_name = $2) = $3`,
      [database, BARE_APPLICATION, bare],
    );
    return rows.map((r) => r.pid as number);
  };
  return {
    probe: (server: Child, bare: boolean): CpuProbe => ({ server: server.process.pid!, postgres: () => backends(bare) }),
    auditUpdates: async (): Promise<number> => {
      const { rows } = await c.query(`select count(*)::int as n from audit_log where family = 'ai_providers' and action = 'update'`);
      return rows[0].n;
    },
    close: () => c.end(),
  };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;

function report(date: string, runs: Measured[], ratios: { read: number; update: number; updateVsBareUpdate: number; bareUpdate: number }, goals: { name: string; target: string; measured: string; met: boolean }[], audit: string, loadAtStart: number[]) {
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' / ');
  const cpuOf = (m: Measured) => (m.cpuMsPerRequest ? m.cpuMsPerRequest.server + m.cpuMsPerRequest.postgres : undefined);
  const [bare, read, update] = runs.map(cpuOf);
  const cpuLine = bare && read && update
    ? `CPU per request (server + PostgreSQL) relative to bare: read ×${(read / bare).toFixed(1)}, update ×${(update / bare).toFixed(1)}.`
    : 'CPU per request: not available on this platform.';
  const lines = [
    `# Vigil benchmark — ${date}`,
    '',
    `Node ${process.version}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average (1/5/15 min) ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end.`,
    `${CONNECTIONS} connections, pipelining 1, ${warmup} s warm-up then ${seconds} s measured per target, targets measured one after the other in the same run on PostgreSQL.`,
    '',
    '| target | requests | req/s | p50 | p90 | p99 | max | non-2xx | errors | CPU/req server | CPU/req postgres | CPU/req autocannon |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((r) => {
      const cpu = r.cpuMsPerRequest;
      const c = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(3)} ms`);
      return `| ${r.name} | ${r.requests} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.non2xx} | ${r.errors} | ${c(cpu?.server)} | ${c(cpu?.postgres)} | ${c(cpu?.loadGenerator)} |`;
    }),
    '',
    'CPU/req: user + system CPU of the server process, of its PostgreSQL backends and of the load generator during the measured run, per answered request (from /proc; less sensitive to a noisy machine than req/s).',
    '',
    `Ratios: Vigil read / bare = ${pct(ratios.read)}, Vigil update / bare = ${pct(ratios.update)}.`,
    `The update transaction itself (begin, select for update, update, audit insert, commit) written in bare pg reaches ${pct(ratios.bareUpdate)} of bare reads; Vigil's update reaches ${pct(ratios.updateVsBareUpdate)} of it.`,
    cpuLine,
    audit,
    '',
    '| goal | target | measured | |',
    '|---|---|---|---|',
    ...goals.map((g) => `| ${g.name} | ${g.target} | ${g.measured} | ${g.met ? 'met' : '**MISSED**'} |`),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const started = new Date();
  const loadAtStart = os.loadavg();
  const operatorToken = `bench-operator-${randomBytes(12).toString('hex')}`;
  return withRun(async ({ scratch, children, closers }) => {
    const env = { BENCH_DATABASE_URL: scratch.url, BENCH_OPERATOR_TOKEN: operatorToken };
    const profileArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${here('./results/profiles')}`] : [];
    const bare = await startChild('bare', here('./servers/bare.ts'), env);
    children.push(bare);
    const vigil = await startChild('vigil', here('./servers/vigil.ts'), env, profileArgs);
    children.push(vigil);
    const seeded = await seedVigil(vigil.info.url, operatorToken);
    const watch = await observer(scratch.url, scratch.name);
    closers.push(watch.close);
    const bareIds = bare.info.ids as string[];
    const auth = { authorization: `Bearer ${seeded.token}` };

    const runs: Measured[] = [];
    runs.push(await measure('bare GET /rows/:id', { url: `${bare.info.url}/rows/${bareIds[0]}` }, seconds, warmup, watch.probe(bare, true)));
    runs.push(await measure('Vigil GET ai_providers/:id', { url: `${vigil.info.url}/api/v1/config/ai_providers/${seeded.ids[0]}`, headers: auth }, seconds, warmup, watch.probe(vigil, false)));
    // Every PUT sends a priority no earlier PUT sent, so each one changes its row and writes an audit entry,
    // and the PUTs go round the seeded rows, so concurrent updates rarely wait on the same row lock.
    let priority = 100;
    let next = 0;
    const auditBefore = await watch.auditUpdates();
    const update = await measure(
      'Vigil PUT ai_providers/:id',
      {
        url: vigil.info.url,
        requests: [{
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/json' },
          setupRequest: (req) => ({
            ...req,
            path: `/api/v1/config/ai_providers/${seeded.ids[next++ % seeded.ids.length]}`,
            body: JSON.stringify({ priority: priority++ }),
          }),
        }],
      },
      seconds,
      warmup,
      watch.probe(vigil, false),
    );
    runs.push(update);
    let barePriority = 100;
    runs.push(await measure(
      'bare PUT /rows/:id (same transaction)',
      {
        url: bare.info.url,
        requests: [{
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, path: `/rows/${bareIds[barePriority % CONNECTIONS_ROWS]}`, body: JSON.stringify({ priority: barePriority++ }) }),
        }],
      },
      seconds,
      warmup,
      watch.probe(bare, true),
    ));
    // autocannon stops without waiting for the requests in flight; let the server finish them first.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const auditWritten = (await watch.auditUpdates()) - auditBefore;
    const putsOk = update.ok + update.warmupOk;

    const [b, r, u, bu] = runs as [Measured, Measured, Measured, Measured];
    const ratios = { read: r.rps / b.rps, update: u.rps / b.rps, updateVsBareUpdate: u.rps / bu.rps, bareUpdate: bu.rps / b.rps };
    const goals = [
      { name: 'Vigil read ≥ 50% of bare req/s', target: pct(GOALS.readRatio), measured: pct(ratios.read), met: ratios.read >= GOALS.readRatio },
      { name: 'Vigil update ≥ 30% of bare req/s', target: pct(GOALS.updateRatio), measured: pct(ratios.update), met: ratios.update >= GOALS.updateRatio },
      { name: 'Vigil read p99 < 25 ms', target: ms(GOALS.readP99Ms), measured: ms(r.p99), met: r.p99 < GOALS.readP99Ms },
    ];
    // Each counted PUT wrote one entry; up to one request per connection and run was cut off in flight, uncounted.
    const auditOk = auditWritten >= putsOk && auditWritten <= putsOk + CONNECTIONS * (warmup > 0 ? 2 : 1);
    const auditLine = `Audit entries written by the update runs (warm-up included): ${auditWritten} for ${putsOk} answered PUTs (the rest were in flight when autocannon stopped)${auditOk ? '' : ' — MISMATCH'}.`;
    const date = started.toISOString();
    const md = report(date, runs, ratios, goals, auditLine, loadAtStart);
    process.stdout.write(`\n${md}\n`);

    const failures = [
      ...runs
        .filter((m) => m.non2xx > 0 || m.errors > 0 || m.warmupNon2xx > 0 || m.warmupErrors > 0 || m.ok === 0)
        .map((m) => `${m.name}: ${m.ok} 2xx, ${m.non2xx} non-2xx (${JSON.stringify(m.statusCodes)}), ${m.errors} errors; warm-up ${m.warmupNon2xx} non-2xx, ${m.warmupErrors} errors`),
      ...(auditOk ? [] : [`audit entries ${auditWritten} do not match the ${putsOk} answered PUTs`]),
    ];
    await mkdir(RESULTS, { recursive: true });
    const file = `${RESULTS}${date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`;
    const json = {
      date, node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, loadavg: { start: loadAtStart, end: os.loadavg() },
      connections: CONNECTIONS, pipelining: 1, warmupSeconds: warmup, seconds,
      runs, ratios, goals, audit: { written: auditWritten, successfulPuts: putsOk }, failures,
    };
    await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
    await writeFile(`${RESULTS}latest.md`, md);
    process.stdout.write(`Wrote ${file} and ${RESULTS}latest.md\n`);
    const missed = goals.filter((g) => !g.met);
    if (missed.length) process.stdout.write(`Goals missed: ${missed.map((g) => `${g.name} (${g.measured})`).join('; ')}\n`);
    if (failures.length) {
      process.stderr.write(`The run is not valid:\n  ${failures.join('\n  ')}\n`);
      return 1;
    }
    return 0;
  });
}

let settled = false;
process.once('beforeExit', () => {
  if (settled) return;
  process.stderr.write('benchmark failed: it stalled (nothing left to wait for before it finished)\n');
  process.exit(1);
});
main().then(
  (code) => ((settled = true), process.exit(code)),
  (error) => {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    process.exit(1);
  },
);
