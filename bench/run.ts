/**
 * `npm run bench`: every scenario of Vigil against PostgreSQL, each beside its bare baseline (Koa 3 + pg doing
 * the minimal work) in the same run, then a soak of mixed load with the Vigil child's RSS sampled; writes
 * bench/results/<date>.md (and latest.md, a copy) and <date>.json. Scenarios, in this order (bench/scenarios/):
 * read, update, create, delete, create-key, list (config.ts), mcp (mcp.ts), alerts-repeats, alerts-new (alerts.ts),
 * board-create, board-repeats (board.ts), export (export.ts), then oncall: the on-call computations in process
 * (bench/oncall.ts in a child of its own, each beside its bare baseline; issue 36); the full run ends with bench/idle.ts
 * (an idle `vigil serve`'s CPU a second, its own idle-latest.md) and bench/paging.ts (two `vigil serve` instances paging, its own paging-<date>.json and paging-latest.md; BENCH_PAGING=off skips it). update, create and delete also take turns with one
 * bare insert, the floor of any write (issue 23). One Vigil child (bench/servers/vigil-webhooks.ts) serves them all; each bare
 * server runs only during its scenarios. Exits non-zero only when something failed to run (a non-2xx answer,
 * a refused body, a failed table check, a crash); a missed goal is reported, not an error.
 *
 * `node bench/run.ts <scenario|group>…` runs only those (groups: alerts, board; `alerts-quiet` is a diagnostic run
 * only when named) and writes <names>-<date>.json and <names>-latest.md instead (`npm run bench:alerts` → alerts-latest.md).
 * BENCH_SECONDS (10) measured seconds per target, shared by BENCH_ROUNDS (3) rounds in which bare and Vigil take
 * turns; BENCH_WARMUP (3) warm-up seconds before the first round (at most 1 s before each later one),
 * BENCH_SOAK_SECONDS (300 for the full report, 0 for a selection; 0 skips the soak),
 * BENCH_PROFILE=1 the Vigil child with --cpu-prof (profiles in bench/results/profiles), BENCH_SQL=1 the Vigil
 * child's SQL counted per scenario (a diagnostic that slows it a little), VIGIL_WEBHOOK_RATE_LIMIT_STORE passes
 * through, DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { combine, measure, observer, roundsRatio, rssBytes, runMain, startChild, transportFailures, withRun, type Child, type Measured } from './lib.ts';
import { mb, ms, pct, report, rps, type Computation, type Goal, type Machine, type ReportInput } from './report.ts';
import * as alerts from './scenarios/alerts.ts';
import * as board from './scenarios/board.ts';
import * as config from './scenarios/config.ts';
import type { BenchContext, Pair, PairSpec } from './scenarios/context.ts';
import * as exportScenario from './scenarios/export.ts';
import * as mcp from './scenarios/mcp.ts';
import { GOAL_GROWTH, soak, type SoakResult } from './soak.ts';

const MODULES: { KEYS: string[]; OPTIONAL?: string[]; run: (ctx: BenchContext, chosen: Set<string>) => Promise<Pair[]> }[] = [config, mcp, alerts, board, exportScenario];
/** Computations measured in process rather than over HTTP: bench/oncall.ts, its figures as JSON. */
const IN_PROCESS = ['oncall'];
const ALL = [...MODULES.flatMap((m) => m.KEYS), ...IN_PROCESS];
const DEFAULT = [...MODULES.flatMap((m) => m.KEYS.filter((k) => !m.OPTIONAL?.includes(k))), ...IN_PROCESS];
const GROUPS: Record<string, string[]> = { alerts: ['alerts-repeats', 'alerts-new'], board: ['board-create', 'board-repeats'] };

/** Each goal compares Vigil's req/s with its baseline's in the same run. */
const RATIO_GOALS: { key: string; ratio: number; name: string; source: string }[] = [
  { key: 'read', ratio: 0.5, name: 'authenticated read', source: 'benchmark issue' },
  { key: 'update', ratio: 0.3, name: 'update with audit', source: 'benchmark issue' },
  { key: 'alerts-repeats', ratio: 0.4, name: 'alert webhook, repeats (the common case)', source: 'benchmark issue' },
  { key: 'alerts-new', ratio: 0.4, name: 'alert webhook, new alerts', source: 'benchmark issue' },
  { key: 'mcp', ratio: 0.3, name: 'MCP tool call', source: 'benchmark issue' },
  { key: 'board-create', ratio: 0.4, name: 'card create', source: 'ops board' },
  { key: 'board-repeats', ratio: 0.6, name: 'card repeat', source: 'ops board' },
  // against the same create without a key: the check may cost at most 15 %
  { key: 'create-key', ratio: 0.85, name: 'create with Idempotency-Key', source: 'issue 21' },
  { key: 'list', ratio: 0.6, name: 'list page of 100 rows', source: 'issue 21' },
];

/**
 * Issue 23, the write path at the limit: each audited write at least this share of one bare insert (the floor of
 * any write, measured in the same rounds: `PairSpec.floor`), and its p99 under this many milliseconds at 32 connections.
 */
const WRITE_GOALS: { key: string; floor: number; p99: number; name: string; source: string }[] = [
  { key: 'update', floor: 0.35, p99: 40, name: 'update with audit', source: 'issue 23' },
  { key: 'create', floor: 0.35, p99: 40, name: 'create with audit', source: 'issue 23' },
  { key: 'delete', floor: 0.35, p99: 40, name: 'delete with audit', source: 'issue 23' },
];

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
/** bare and Vigil alternate this many times per scenario, sharing BENCH_SECONDS */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 3)));
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');
const PROFILES = here('./results/profiles');

/** The scenarios named on the command line (all by default), in the order they run. */
function selection(args: string[]): string[] {
  if (!args.length || (args.length === 1 && args[0] === 'all')) return DEFAULT;
  const wanted = new Set<string>();
  for (const arg of args) {
    const keys = GROUPS[arg] ?? (ALL.includes(arg) ? [arg] : undefined);
    if (!keys) throw new Error(`unknown scenario ${JSON.stringify(arg)}: choose among ${[...ALL, ...Object.keys(GROUPS)].join(', ')}`);
    keys.forEach((k) => wanted.add(k));
  }
  return ALL.filter((k) => wanted.has(k));
}

/** BENCH_SQL: each call makes the Vigil child write its SQL counts since the previous call, and reads them. */
function sqlCounter(child: Child, prefix: string) {
  let dumps = 0;
  return async (): Promise<{ sql: string; calls: number; ms: number }[]> => {
    const file = `${prefix}-${++dumps}.json`;
    child.process.kill('SIGUSR2');
    for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(50);
    return JSON.parse(await readFile(file, 'utf8'));
  };
}

async function machine(postgres: string, loadStart: number[]): Promise<Machine> {
  return {
    node: process.version,
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()}`,
    postgres,
    loadStart,
    loadEnd: os.loadavg(),
  };
}

/** `node bench/oncall.ts --json` in a child of its own (a fresh heap, none of the load generator's garbage). */
async function onCallComputations(): Promise<NonNullable<ReportInput['computations']>> {
  const { stdout } = await promisify(execFile)(process.execPath, [here('./oncall.ts'), '--json'], { maxBuffer: 16 * 2 ** 20 });
  const got = JSON.parse(stdout) as { machine: string; runs: number; warmUp: number; computations: Computation[] };
  return { machine: got.machine, runs: got.runs, warmUp: got.warmUp, rows: got.computations };
}

function goals(pairs: Pair[], soaked: SoakResult | undefined, computations: Computation[] = []): Goal[] {
  const out: Goal[] = [];
  for (const c of computations.filter((x) => x.key !== 'now-1000-warm')) {
    out.push({
      name: `${c.name}: p95 < ${c.goalMs} ms`, source: 'issue 36', target: `< ${c.goalMs} ms`,
      measured: `${ms(c.vigil.p95)} (p50 ${ms(c.vigil.p50)}; CPU p95 ${ms(c.vigil.cpuP95)}; ${c.ratio.toFixed(0)}× its bare baseline)`, met: c.met,
    });
  }
  for (const g of RATIO_GOALS) {
    const p = pairs.find((x) => x.key === g.key);
    if (p) out.push({ name: `${g.name}: Vigil req/s ≥ ${pct(g.ratio)} of bare`, source: g.source, target: `≥ ${pct(g.ratio)}`, measured: pct(p.ratio), met: p.ratio >= g.ratio });
  }
  for (const g of WRITE_GOALS) {
    const p = pairs.find((x) => x.key === g.key);
    if (!p) continue;
    if (p.floor) {
      out.push({
        name: `${g.name}: Vigil req/s ≥ ${pct(g.floor)} of one bare insert`, source: g.source, target: `≥ ${pct(g.floor)}`,
        measured: `${pct(p.floor.ratio)} (${rps(p.vigil.rps)} of ${rps(p.floor.measured.rps)} req/s); ${pct(p.ratio)} of its bare transaction`, met: p.floor.ratio >= g.floor,
      });
    }
    out.push({ name: `${g.name}: Vigil p99 < ${g.p99} ms at ${p.vigil.connections} connections`, source: g.source, target: `< ${g.p99} ms`, measured: ms(p.vigil.p99), met: p.vigil.p99 < g.p99 });
  }
  if (soaked) {
    const growth = soaked.growth;
    out.push({
      name: `soak: Vigil RSS growth over ${soaked.seconds} s of mixed load`, source: 'benchmark issue', target: `≤ ${pct(GOAL_GROWTH)}`,
      measured: growth === undefined ? 'n/a' : `${growth >= 0 ? '+' : ''}${pct(growth)} (${mb(soaked.first)} → ${mb(soaked.last)}, highest ${mb(soaked.max)})`,
      met: growth !== undefined && growth <= GOAL_GROWTH,
    });
  }
  return out;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const chosenKeys = selection(args);
  const full = chosenKeys.join() === DEFAULT.join();
  // `oncall` alone would write over bench:oncall's own oncall-latest.md: this run's report is oncall-run-latest.md
  const label = full ? '' : `${args.join('+')}${args.every((a) => IN_PROCESS.includes(a)) ? '-run' : ''}`;
  const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? (full ? 300 : 0));
  const started = new Date();
  const date = started.toISOString();
  const stamp = date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const loadStart = os.loadavg();
  const operatorToken = `bench-operator-${randomBytes(12).toString('hex')}`;
  const chosen = new Set(chosenKeys);
  return withRun(async ({ scratch, children, closers }) => {
    await mkdir(PROFILES, { recursive: true });
    const sqlPrefix = process.env.BENCH_SQL ? `${PROFILES}/sql-${stamp}` : undefined;
    const env = { BENCH_DATABASE_URL: scratch.url, BENCH_OPERATOR_TOKEN: operatorToken, ...(sqlPrefix ? { BENCH_SQL_STATS: sqlPrefix } : {}) };
    const profileArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : [];
    // --expose-gc lets the soak read the heap after a full collection (bench/servers/vigil-webhooks.ts memoryUrl)
    const vigil = await startChild('vigil', here('./servers/vigil-webhooks.ts'), env, ['--expose-gc', ...profileArgs]);
    children.push(vigil);
    const vigilRssAtStart = await rssBytes(vigil.process.pid!);
    const watch = await observer(scratch);
    closers.push(watch.close);
    const postgres = (await watch.query<{ v: string }>('select current_setting(\'server_version\') as v'))[0]!.v;
    const sqlCounts = sqlPrefix ? sqlCounter(vigil, sqlPrefix) : undefined;

    const ctx: BenchContext = {
      vigil,
      operatorToken,
      watch,
      bare: async (file) => {
        const child = await startChild('bare', file, env);
        children.push(child);
        return child;
      },
      secondsPerTarget: warmup + seconds + (ROUNDS - 1) * Math.min(warmup, 1),
      pair: async (spec: PairSpec): Promise<Pair> => {
        // bare (its floor, given one) and Vigil take turns, round after round, so a burst of other load on the machine hits all
        const bareRounds: Measured[] = [];
        const floorRounds: Measured[] = [];
        const vigilRounds: Measured[] = [];
        await sqlCounts?.();
        for (let round = 1; round <= ROUNDS; round++) {
          const label = ROUNDS > 1 ? ` (round ${round} of ${ROUNDS})` : '';
          const warm = round === 1 ? warmup : Math.min(warmup, 1);
          bareRounds.push(await measure(`bare — ${spec.name}${label}`, spec.bare.options, seconds / ROUNDS, warm, watch.probe(spec.bare.child, spec.bare.child !== vigil)));
          if (spec.floor) floorRounds.push(await measure(`bare floor — ${spec.name}${label}`, spec.floor.options, seconds / ROUNDS, warm, watch.probe(spec.floor.child, spec.floor.child !== vigil)));
          vigilRounds.push(await measure(`Vigil — ${spec.name}${label}`, spec.vigil, seconds / ROUNDS, warm, watch.probe(vigil, false)));
        }
        // autocannon stops without waiting for the requests in flight; let the server finish them before anything is counted
        await sleep(2000);
        const sql = await sqlCounts?.();
        const [bare, measured] = [combine(bareRounds), combine(vigilRounds)];
        const answered = Math.max(1, measured.ok + measured.warmupOk);
        return {
          key: spec.key, name: spec.name, describe: spec.describe, bare, vigil: measured, ratio: roundsRatio(vigilRounds, bareRounds),
          rounds: vigilRounds.map((v, i) => v.rps / bareRounds[i]!.rps), notes: [], failures: [],
          ...(spec.floor
            ? { floor: { describe: spec.floor.describe, measured: combine(floorRounds), ratio: roundsRatio(vigilRounds, floorRounds), rounds: vigilRounds.map((v, i) => v.rps / floorRounds[i]!.rps) } }
            : {}),
          ...(sql ? { sql: sql.slice(0, 15).map((s) => ({ sql: s.sql, perRequest: s.calls / answered, msPerRequest: s.ms / answered })) } : {}),
        };
      },
    };

    const pairs: Pair[] = [];
    const failures: string[] = [];
    for (const module of MODULES) {
      const keys = module.KEYS.filter((k) => chosen.has(k));
      if (!keys.length) continue;
      try {
        pairs.push(...(await module.run(ctx, chosen)));
      } catch (error) {
        failures.push(`${keys.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const crash = vigil.crashed();
      if (crash) {
        failures.push(crash);
        break;
      }
    }
    let computations: ReportInput['computations'];
    if (chosen.has('oncall')) {
      try {
        computations = await onCallComputations();
      } catch (error) {
        failures.push(`oncall: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    let soaked: SoakResult | undefined;
    if (soakSeconds > 0 && !vigil.crashed()) {
      try {
        soaked = await soak(ctx, soakSeconds, warmup);
        failures.push(...soaked.failures);
      } catch (error) {
        failures.push(`soak: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const crash = vigil.crashed();
    if (crash && !failures.includes(crash)) failures.push(crash);
    failures.unshift(...transportFailures(pairs.flatMap((p) => [p.bare, ...(p.floor ? [p.floor.measured] : []), p.vigil])), ...pairs.flatMap((p) => p.failures));

    const diagnostics = ['BENCH_PROFILE', 'BENCH_SQL', 'VIGIL_WEBHOOK_RATE_LIMIT_STORE'].filter((name) => process.env[name]);
    const scored = goals(pairs, soaked, computations?.rows);
    const input = {
      date, machine: await machine(postgres, loadStart), seconds, warmup, rounds: ROUNDS,
      selection: full ? `all (${chosenKeys.join(', ')})` : chosenKeys.join(', '),
      diagnostics, vigilRssAtStart, pairs, soak: soaked, computations, goals: scored, failures,
    };
    const md = report(input);
    process.stdout.write(`\n${md}\n`);

    await mkdir(RESULTS, { recursive: true });
    const name = full ? stamp : `${label}-${stamp}`;
    await writeFile(`${RESULTS}${name}.json`, `${JSON.stringify({ ...input, connections: 32, soakSeconds }, null, 2)}\n`);
    const latest = full ? 'latest.md' : `${label}-latest.md`;
    if (full) {
      await writeFile(`${RESULTS}${name}.md`, md);
      await copyFile(`${RESULTS}${name}.md`, `${RESULTS}${latest}`);
    } else {
      await writeFile(`${RESULTS}${latest}`, md);
    }
    process.stdout.write(`Wrote ${RESULTS}${name}.json and ${full ? `${name}.md, ` : ''}${latest}\n`);
    const missed = scored.filter((g) => !g.met);
    if (missed.length) process.stdout.write(`Goals missed: ${missed.map((g) => `${g.name} (${g.measured})`).join('; ')}\n`);
    // the full run ends with the idle service's CPU (bench/idle.ts) and the paging benchmark (bench/paging.ts: two
    // instances of its own), each with its own report; BENCH_PAGING=off skips the paging one
    const child = async (name: string) => {
      const code = await new Promise<number | null>((resolve) => spawn(process.execPath, [here(`./${name}.ts`)], { stdio: 'inherit' }).once('exit', resolve));
      if (code !== 0) failures.push(`${name}: bench/${name}.ts exited ${code} (bench/results/${name}-latest.md)`);
    };
    if (full) await child('idle');
    if (full && process.env.BENCH_PAGING !== 'off') await child('paging');
    if (!failures.length) return 0;
    process.stderr.write(`The run is not valid:\n  ${failures.join('\n  ')}\n`);
    return 1;
  });
}

// a stall (nothing left to wait for) is a failure, not a silent exit 0
let settled = false;
process.once('beforeExit', () => {
  if (settled) return;
  process.stderr.write('benchmark failed: it stalled (nothing left to wait for before it finished)\n');
  process.exit(1);
});
runMain(() => main().finally(() => (settled = true)));
