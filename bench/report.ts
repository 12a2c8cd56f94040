/** The markdown report of `npm run bench`: one table of every scenario beside its baseline, the goals, the soak. */
import type { Measured } from './lib.ts';
import type { Pair } from './scenarios/context.ts';
import type { SoakResult } from './soak.ts';

export interface Goal {
  name: string;
  source: string;
  target: string;
  measured: string;
  met: boolean;
}

export interface Machine {
  node: string;
  cores: number;
  cpu: string;
  memory: string;
  os: string;
  postgres: string;
  loadStart: number[];
  loadEnd: number[];
}

/** An in-process computation's figures over its timed runs (bench/oncall.ts): wall clock and the process's CPU time, ms. */
export interface Timing { p50: number; p95: number; max: number; cpuP50: number; cpuP95: number }
/** One computation beside its bare baseline timed in the same process, and its goal on Vigil's wall-clock p95. */
export interface Computation { key: string; name: string; vigil: Timing; bare: Timing; ratio: number; goalMs: number; met: boolean; notes: string }

const f2 = (x: number) => x.toFixed(2);
/** The table of in-process computations, for bench/oncall.ts's own report and this one. */
export function computationTable(rows: readonly Computation[]): string[] {
  return [
    '| computation | Vigil p50 / p95 / max ms (wall) | Vigil CPU p50 / p95 ms | bare p50 ms | ratio (Vigil/bare, p50) | goal (issue 36) | met | notes |',
    '|---|---:|---:|---:|---:|---|---|---|',
    ...rows.map((c) => `| ${c.name} | ${f2(c.vigil.p50)} / ${f2(c.vigil.p95)} / ${f2(c.vigil.max)} | ${f2(c.vigil.cpuP50)} / ${f2(c.vigil.cpuP95)} | ${f2(c.bare.p50)} | ${f2(c.ratio)} | < ${c.goalMs} ms (p95, wall) | ${c.met ? 'yes' : 'NO'} | ${c.notes} |`),
  ];
}

export interface ReportInput {
  date: string;
  machine: Machine;
  seconds: number;
  warmup: number;
  /** bare and Vigil alternate this many times per scenario */
  rounds: number;
  selection: string;
  diagnostics: string[];
  vigilRssAtStart?: number;
  pairs: Pair[];
  soak?: SoakResult;
  /** in-process computations (the `oncall` scenario), each beside its bare baseline timed in the same child */
  computations?: { machine: string; runs: number; warmUp: number; rows: Computation[] };
  goals: Goal[];
  failures: string[];
}

export const ms = (n: number) => `${n < 10 ? n.toFixed(1) : n.toFixed(0)} ms`;
export const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
export const mb = (n: number | undefined) => (n === undefined ? 'n/a' : `${(n / 2 ** 20).toFixed(0)} MB`);
const cpu = (m: Measured) => (m.cpuMsPerRequest ? `${m.cpuMsPerRequest.server.toFixed(2)} + ${m.cpuMsPerRequest.postgres.toFixed(2)}` : 'n/a');
export const rps = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const rounds = (each: number[]) => (each.length > 1 ? ` (${each.map((x) => (x * 100).toFixed(0)).join(' / ')})` : '');
const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' / ');

export function report(r: ReportInput): string {
  const m = r.machine;
  const lines = [
    `# Vigil benchmark — ${r.date}`,
    '',
    `Node ${m.node}, ${m.cores} cores (${m.cpu}), ${m.memory} memory, ${m.os}, PostgreSQL ${m.postgres}. Load average (1/5/15 min) ${load(m.loadStart)} at the start, ${load(m.loadEnd)} at the end.`,
    `Scenarios: ${r.selection}. Each target: ${r.seconds} s measured in ${r.rounds} round${r.rounds > 1 ? 's' : ''}, the bare baseline and Vigil taking turns (${r.warmup} s warm-up before the first round, ${Math.min(r.warmup, 1)} s before each later one), on one scratch PostgreSQL database; 32 connections unless a note says otherwise. One Vigil child (the service as deployed, \`serviceOptions\`) serves every scenario${r.vigilRssAtStart ? `; its RSS after start-up was ${mb(r.vigilRssAtStart)}` : ''}.`,
    ...(r.diagnostics.length ? ['', `Diagnostics on (these figures are not the benchmark's): ${r.diagnostics.join(', ')}.`] : []),
    '',
    '| scenario | Vigil req/s | bare req/s | ratio | to one bare insert | Vigil p50 / p99 | bare p99 | CPU ms/req Vigil (node + pg) | CPU ms/req bare (node + pg) | Vigil RSS after warm-up → after run |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.pairs.map((p) =>
      `| ${p.name} | ${rps(p.vigil.rps)} | ${rps(p.bare.rps)} | ${pct(p.ratio)}${rounds(p.rounds)} | ${p.floor ? `${pct(p.floor.ratio)}${rounds(p.floor.rounds)} of ${rps(p.floor.measured.rps)}` : '–'} | ${ms(p.vigil.p50)} / ${ms(p.vigil.p99)} | ${ms(p.bare.p99)} | ${cpu(p.vigil)} | ${cpu(p.bare)} | ${mb(p.vigil.rss?.afterWarmup)} → ${mb(p.vigil.rss?.after)} |`),
    '',
    'Ratio: Vigil req/s over bare req/s, the median of the rounds\' ratios (each round\'s in brackets), so a burst of other load during one round moves it least; req/s over all rounds, p50/p99 the median of the rounds\'. To one bare insert (the audited writes, issue 23): Vigil req/s over the req/s of one autocommit insert of a small row in bare pg, the floor of any write, measured in the same rounds (bare transaction, bare insert, Vigil in turn), the median of the rounds\' ratios, then the insert\'s req/s. CPU ms/req: user + system CPU of the server process and of its PostgreSQL backends during the measured run, per answered request (from /proc): on a shared machine it moves less than req/s does. RSS: VmRSS of the Vigil process.',
    '',
    '| goal | source | target | measured | |',
    '|---|---|---|---|---|',
    ...r.goals.map((g) => `| ${g.name} | ${g.source} | ${g.target} | ${g.measured} | ${g.met ? 'met' : '**MISSED**'} |`),
    ...(r.goals.length ? [] : ['| (none for these scenarios) | | | | |']),
  ];
  if (r.computations?.rows.length) {
    const c = r.computations;
    lines.push(
      '',
      '## In-process computations (on call)',
      '',
      `\`node bench/oncall.ts --json\` in a child of its own: ${c.runs} timed runs after ${c.warmUp} warm-up runs of each, Vigil's computation and its bare baseline in the same process (${c.machine}). Wall clock and the process's CPU time per run; on a loaded machine the CPU time is what the computation cost, the wall clock adds the time others had the core.`,
      '',
      ...computationTable(c.rows),
    );
  }
  if (r.soak) {
    const s = r.soak;
    const total = s.mix.reduce((n, x) => n + x.rps, 0);
    lines.push(
      '',
      `## Soak: ${s.seconds} s of mixed load (after ${s.warmupSeconds} s of it as warm-up)`,
      '',
      `Vigil RSS: first sample ${mb(s.first)}, last ${mb(s.last)} (${s.growth === undefined ? 'n/a' : `${s.growth >= 0 ? '+' : ''}${pct(s.growth)}`}), highest ${mb(s.max)}; ${s.samples.length} samples.`,
      `RSS samples (MB, every ${s.samples.length > 1 ? s.samples[1]!.at - s.samples[0]!.at : 0} s): ${s.samples.map((x) => (x.rss / 2 ** 20).toFixed(0)).join(' ')}`,
      `JS heap in use at the same moments (MB): ${s.samples.map((x) => (x.heapUsed === undefined ? '?' : (x.heapUsed / 2 ** 20).toFixed(0))).join(' ')}`,
      `JS heap in use after a full garbage collection (a diagnostic, the goal is on RSS): first ${mb(s.heapAfterGc?.first)}, last ${mb(s.heapAfterGc?.last)}${s.heapAfterGc?.first && s.heapAfterGc.last ? ` (${s.heapAfterGc.last >= s.heapAfterGc.first ? '+' : ''}${pct((s.heapAfterGc.last - s.heapAfterGc.first) / s.heapAfterGc.first)})` : ''}.`,
      '',
      '| load | connections | req/s | answered | non-2xx | errors |',
      '|---|---:|---:|---:|---:|---:|',
      ...s.mix.map((x) => `| ${x.name} | ${x.connections} | ${x.rps.toFixed(0)} | ${x.ok} | ${x.non2xx} | ${x.errors + x.mismatches} |`),
      `| all | ${s.mix.reduce((n, x) => n + x.connections, 0)} | ${total.toFixed(0)} | ${s.mix.reduce((n, x) => n + x.ok, 0)} | | |`,
    );
  }
  lines.push(
    '',
    '## What each scenario sends',
    '',
    '| scenario | Vigil | bare | notes |',
    '|---|---|---|---|',
    ...r.pairs.map((p) => `| ${p.name} | ${p.describe.vigil} | ${p.describe.bare}${p.floor ? `; the floor: ${p.floor.describe} (${rps(p.floor.measured.rps)} req/s, p99 ${ms(p.floor.measured.p99)})` : ''} | ${p.notes.join('; ').replace(/\|/g, '\\|')} |`),
  );
  for (const p of r.pairs.filter((x) => x.sql)) {
    lines.push('', `SQL of the Vigil child, ${p.name} (per answered request, warm-up included):`, '', '| statement | per request | ms per request (until answered) |', '|---|---:|---:|',
      ...p.sql!.map((s) => `| \`${s.sql.replace(/\|/g, '\\|')}\` | ${s.perRequest.toFixed(2)} | ${s.msPerRequest.toFixed(2)} |`));
  }
  if (r.failures.length) lines.push('', '## The run is not valid', '', ...r.failures.map((f) => `- ${f}`));
  lines.push('');
  return lines.join('\n');
}
