/** Helpers of the benchmark: the scratch database, the server children, one measured autocannon run. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options, type Result } from 'autocannon';
import pg from 'pg';

export interface Scratch {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(): Promise<Scratch> {
  const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `vigil_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  // BENCH_KEEP_DATABASE=1 keeps it for a look afterwards (EXPLAIN ANALYZE on what the run left)
  const drop = process.env.BENCH_KEEP_DATABASE ? async () => void process.stderr.write(`kept the scratch database ${name}\n`) : () => admin(`drop database if exists ${name} with (force)`);
  return { url: url.toString(), name, drop };
}

export interface Child {
  name: string;
  info: { url: string; [key: string]: unknown };
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
  /** why the child ended before it was stopped (a crash), or undefined while it runs or after a requested stop */
  crashed(): string | undefined;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs `file` in its own Node process and waits (at most `timeoutMs`) for its first stdout line, a JSON object with `url`. */
export function startChild(name: string, file: string, env: Record<string, string>, nodeArgs: string[] = [], timeoutMs = 60_000): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (children.delete(child), resolve())));
  let stopping = false;
  const crashed = () => (!stopping && (child.exitCode !== null || child.signalCode !== null) ? `${name} server exited (${child.exitCode ?? child.signalCode})` : undefined);
  const stop = async (graceMs = 10_000) => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let ready = false;
    const fail = (why: string) => {
      void stop(0);
      reject(new Error(`${name} server: ${why}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${timeoutMs} ms`), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) fail(`exited (${code ?? signal}) before printing its URL`);
      else if (code !== 0) process.stderr.write(`${name} server exited (${code ?? signal})\n`);
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (ready) return void process.stderr.write(`[${name}] ${line}\n`);
      ready = true;
      clearTimeout(timer);
      try {
        resolve({ name, info: JSON.parse(line), process: child, stop, crashed });
      } catch {
        fail(`printed ${JSON.stringify(line)} instead of a JSON line`);
      }
    });
  });
}

export interface Measured {
  name: string;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  connections: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx answers whose body the scenario's check refused (an MCP tool error answers 200) */
  mismatches: number;
  statusCodes: Record<string, number>;
  /** 2xx, non-2xx and errors of the discarded warm-up */
  warmupOk: number;
  warmupNon2xx: number;
  warmupErrors: number;
  warmupMismatches: number;
  /** CPU milliseconds per answered request of the server process, its PostgreSQL backends and autocannon (Linux only) */
  cpuMsPerRequest?: { server: number; postgres: number; loadGenerator: number };
  /** resident set size of the server process in bytes, after the warm-up and after the measured run (Linux only) */
  rss?: { afterWarmup?: number; after?: number };
  /** autocannon runs behind these figures (warm-ups included): each may leave up to `connections` requests in flight */
  runs: number;
}

const sum = (runs: Measured[], pick: (m: Measured) => number) => runs.reduce((total, m) => total + pick(m), 0);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Rounds of one target as one: counts and seconds added, req/s over the whole, latency percentiles the median of
 * the rounds' (autocannon keeps no histogram to merge), CPU per request weighted by each round's answers.
 */
export function combine(rounds: Measured[]): Measured {
  const first = rounds[0]!;
  if (rounds.length === 1) return first;
  const seconds = sum(rounds, (m) => m.seconds);
  const requests = sum(rounds, (m) => m.requests);
  const ok = sum(rounds, (m) => m.ok);
  const statusCodes: Record<string, number> = {};
  for (const m of rounds) for (const [code, n] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const cpuOf = (part: 'server' | 'postgres' | 'loadGenerator') => sum(rounds, (m) => (m.cpuMsPerRequest?.[part] ?? 0) * m.ok) / Math.max(1, ok);
  return {
    name: first.name, connections: first.connections, seconds, requests, rps: requests / seconds,
    p50: median(rounds.map((m) => m.p50)), p90: median(rounds.map((m) => m.p90)), p99: median(rounds.map((m) => m.p99)), max: Math.max(...rounds.map((m) => m.max)),
    ok, non2xx: sum(rounds, (m) => m.non2xx), errors: sum(rounds, (m) => m.errors), timeouts: sum(rounds, (m) => m.timeouts), mismatches: sum(rounds, (m) => m.mismatches),
    statusCodes,
    warmupOk: sum(rounds, (m) => m.warmupOk), warmupNon2xx: sum(rounds, (m) => m.warmupNon2xx), warmupErrors: sum(rounds, (m) => m.warmupErrors), warmupMismatches: sum(rounds, (m) => m.warmupMismatches),
    ...(rounds.every((m) => m.cpuMsPerRequest) ? { cpuMsPerRequest: { server: cpuOf('server'), postgres: cpuOf('postgres'), loadGenerator: cpuOf('loadGenerator') } } : {}),
    ...(first.rss ? { rss: { afterWarmup: first.rss.afterWarmup, after: rounds.at(-1)!.rss?.after } } : {}),
    runs: sum(rounds, (m) => m.runs),
  };
}

/** The ratio of Vigil to bare: the median of the rounds' ratios, so one round disturbed by other load moves it least. */
export function roundsRatio(vigil: Measured[], bare: Measured[]): number {
  return median(vigil.map((v, i) => v.rps / bare[i]!.rps));
}

/** VmRSS of a process in bytes, from /proc (undefined when unreadable: gone, or not Linux). */
export async function rssBytes(pid: number): Promise<number | undefined> {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** user + system CPU seconds of each process, from /proc (absent when unreadable). */
export async function cpuSeconds(pids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).slice(0, 4096).split(') ')[1]!.split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      /* gone, or not Linux */
    }
  }
  return out;
}

/** Where CPU is counted during a measured run: the server's pid and a query for its PostgreSQL backends' pids. */
export interface CpuProbe {
  server: number;
  postgres: () => Promise<number[]>;
}

async function cpuSnapshot(probe: CpuProbe) {
  const pids = [probe.server, ...(await probe.postgres())];
  return { at: await cpuSeconds(pids), self: process.cpuUsage() };
}

function cpuDelta(before: Awaited<ReturnType<typeof cpuSnapshot>>, after: Awaited<ReturnType<typeof cpuSnapshot>>, probe: CpuProbe) {
  let server = 0;
  let postgres = 0;
  for (const [pid, t] of after.at) {
    const d = t - (before.at.get(pid) ?? 0);
    if (pid === probe.server) server += d;
    else postgres += d;
  }
  const self = process.cpuUsage(before.self);
  return { server, postgres, loadGenerator: (self.user + self.system) / 1e6 };
}

function summarize(name: string, connections: number, r: Result, w: Result | undefined, cpu?: { server: number; postgres: number; loadGenerator: number }): Measured {
  return {
    name,
    connections,
    seconds: r.duration,
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    mismatches: r.mismatches ?? 0,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)])),
    warmupOk: w?.['2xx'] ?? 0,
    warmupNon2xx: w?.non2xx ?? 0,
    warmupErrors: w?.errors ?? 0,
    warmupMismatches: w?.mismatches ?? 0,
    runs: w ? 2 : 1,
    ...(cpu && r['2xx'] > 0
      ? { cpuMsPerRequest: { server: (cpu.server * 1e3) / r['2xx'], postgres: (cpu.postgres * 1e3) / r['2xx'], loadGenerator: (cpu.loadGenerator * 1e3) / r['2xx'] } }
      : {}),
  };
}

/** A discarded warm-up of `warmupSeconds`, then the measured run of `seconds` (with the CPU it cost, given a probe). */
export async function measure(name: string, options: Omit<Options, 'duration'>, seconds: number, warmupSeconds: number, probe?: CpuProbe): Promise<Measured> {
  const base: Options = { connections: 32, pipelining: 1, timeout: 10, ...options };
  process.stderr.write(`${name}: warm-up ${warmupSeconds}s, then ${Number(seconds.toFixed(1))}s measured\n`);
  const warm = warmupSeconds > 0 ? await autocannon({ ...base, duration: warmupSeconds }) : undefined;
  const afterWarmup = probe && (await rssBytes(probe.server));
  const before = probe && (await cpuSnapshot(probe));
  const result = await autocannon({ ...base, duration: seconds, title: name });
  const cpu = probe && before && cpuDelta(before, await cpuSnapshot(probe), probe);
  const measured = summarize(name, base.connections ?? 32, result, warm, cpu);
  return probe ? { ...measured, rss: { afterWarmup, after: await rssBytes(probe.server) } } : measured;
}

/** What one benchmark run owns: its scratch database, its child servers and other things to close. */
export interface Run {
  scratch: Scratch;
  children: Child[];
  closers: (() => Promise<void>)[];
}

/** Runs `work` with a scratch database; stops the children and drops the database at the end or on SIGINT/SIGTERM. */
export async function withRun(work: (run: Run) => Promise<number>): Promise<number> {
  let scratch: Scratch | undefined;
  const children: Child[] = [];
  const closers: (() => Promise<void>)[] = [];
  const stopAll = () => Promise.all([...closers.map((close) => close().catch(() => undefined)), ...children.map((c) => c.stop())]);
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: stopping servers and dropping the scratch database\n`);
    void stopAll().finally(() => (scratch ? scratch.drop() : undefined)).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    scratch = await scratchDatabase();
    return await work({ scratch, children, closers });
  } finally {
    await stopAll();
    await scratch?.drop().catch((error) => process.stderr.write(`could not drop ${scratch!.name}: ${error}\n`));
  }
}

/** Why a run is not valid: any non-2xx answer, error or refused body, in warm-up or measured time, or nothing answered at all. */
export function transportFailures(measured: Measured[]): string[] {
  return measured
    .filter((m) => m.non2xx > 0 || m.errors > 0 || m.mismatches > 0 || m.warmupNon2xx > 0 || m.warmupErrors > 0 || m.warmupMismatches > 0 || m.ok === 0)
    .map((m) => `${m.name}: ${m.ok} 2xx, ${m.non2xx} non-2xx (${JSON.stringify(m.statusCodes)}), ${m.errors} errors, ${m.mismatches} refused bodies; warm-up ${m.warmupNon2xx} non-2xx, ${m.warmupErrors} errors, ${m.warmupMismatches} refused bodies`);
}

/**
 * Node running `args` in a process of its own, resolved once its stderr says `serving at <url>` (as `vigil serve` does);
 * rejected with what it said when it exits first. Unlike startChild, for processes that print no JSON line.
 */
export async function spawnServing(args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  // from the checkout's root, where an inline script (`-e`) finds the project's packages
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], cwd: fileURLToPath(new URL('..', import.meta.url)) });
  const lines = createInterface({ input: child.stderr! });
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      said += `${line}\n`;
      const match = /serving at (\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    lines.on('close', () => reject(new Error(`${args.join(' ')} exited before serving:\n${said}`)));
  });
  return { url, child };
}

/** The application_name of the bare servers' pools: how their PostgreSQL backends are told from Vigil's. */
export const BARE_APPLICATION = 'vigil-bench-bare';

/** A connection to the scratch database: the servers' backends (for CPU) and queries on what they recorded. */
export async function observer(scratch: Scratch) {
  const c = new pg.Client({ connectionString: scratch.url });
  await c.connect();
  const backends = async (bare: boolean): Promise<number[]> => {
    const { rows } = await c.query(
      'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and (application_name = $2) = $3',
      [scratch.name, BARE_APPLICATION, bare],
    );
    return rows.map((r) => r.pid as number);
  };
  return {
    probe: (server: Child, bare: boolean): CpuProbe => ({ server: server.process.pid!, postgres: () => backends(bare) }),
    query: async <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => (await c.query(sql, params)).rows as T[],
    close: () => c.end(),
  };
}
export type Observer = Awaited<ReturnType<typeof observer>>;

/** Writes `<name>-<stamp>.json` and `<name>-latest.md` into `dir`; answers the exit code (1 when the run is not valid). */
export async function writeResults(dir: string, name: string, stamp: string, json: Record<string, unknown>, md: string, failures: string[]): Promise<number> {
  await mkdir(dir, { recursive: true });
  const file = `${dir}${name}-${stamp}.json`;
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(`${dir}${name}-latest.md`, md);
  process.stdout.write(`Wrote ${file} and ${dir}${name}-latest.md\n`);
  if (!failures.length) return 0;
  process.stderr.write(`The run is not valid:\n  ${failures.join('\n  ')}\n`);
  return 1;
}

/** Runs a benchmark's main and exits with its code; a thrown error is reported and exits 1. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
      process.exit(1);
    },
  );
}
