/**
 * `npm run bench:oncall`: the on-call computation (domain/oncall), in process, beside a bare baseline in the same run.
 * - final-90d: the final schedule over 90 days of one schedule with 5 layers × 10 participants (daily, weekly and
 *   hourly rotations, office-hours restrictions on two layers) and 500 overrides, in Europe/Berlin, across the
 *   spring change; goal under 20 ms. Baseline: the same shifts cut by plain UTC arithmetic (no zone, no layers
 *   stacked, no overrides), the floor of producing 90 days of shifts at all.
 * - now-1000: who is on call now, with until when and next, for 1,000 schedules (3 layers each, 20 overrides each,
 *   zones in turn from five); goal under 100 ms. Baseline: 1,000 modulo look-ups of a UTC rotation.
 * Each is timed BENCH_ONCALL_RUNS (30) times after 5 warm-up runs; now-1000 cold clears the cache of computed
 * schedules before each run, warm asks again with the rows unchanged. The process-wide zone data (offsets per zone
 * per year, from Temporal) is warm after the first run. Each run's wall-clock time and its process CPU time are
 * kept: on a loaded machine the wall clock includes the time other processes had the core, the CPU time does not.
 * The goals are on the wall clock's p95.
 * Results in bench/results/oncall-latest.md and a dated .json. `npm run bench` runs it too (bench/run.ts, scenario
 * `oncall`): `node bench/oncall.ts --json` prints the figures as JSON on stdout and writes nothing.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Row } from '../engine/descriptor.ts';
import { computationTable, type Computation, type Timing } from './report.ts';
import { clearOnCallCache, onCallAt } from '../domain/oncall/on-call.ts';
import { finalSchedule, type Layer, type OverrideInput } from '../domain/oncall/shifts.ts';

const RUNS = Number(process.env.BENCH_ONCALL_RUNS ?? 30);
const WARM_UP = 5;
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham'];

const people = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);
const office = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }];
const layers = (tag: string, count: number): Layer[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `L${i}`, participants: people(10, `${tag}l${i}p`), rotation: [{ unit: 'weekly', length: 1 }, { unit: 'daily', length: 1 }, { unit: 'hourly', length: 12 }][i % 3] as Layer['rotation'],
    handoff: `2030-01-0${1 + i}T09:00`, restrictions: i % 2 ? office : [],
  }));
const overrides = (count: number, from: number, span: number, who: string[]): OverrideInput[] =>
  Array.from({ length: count }, (_, i) => {
    const start = from + Math.floor(((i * 7919) % 1000) / 1000 * span);
    return { id: `o${i}`, start: new Date(start).toISOString(), end: new Date(start + (1 + (i % 12)) * HOUR).toISOString(), email: who[i % who.length]!, replaces: i % 3 ? null : who[(i + 1) % who.length]!, created_at: new Date(Date.UTC(2029, 0, 1) + i * 1000).toISOString() };
  });

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
function timed(work: (run: number) => unknown): Timing {
  for (let i = 0; i < WARM_UP; i++) work(-1 - i);
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    work(i);
    ms.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
  }
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: Math.max(...ms), cpuP50: quantile(cpu, 0.5), cpuP95: quantile(cpu, 0.95) };
}

// final schedule, 90 days
const from = Date.UTC(2030, 2, 1);
const to = from + 90 * DAY;
const big = { time_zone: 'Europe/Berlin', layers: layers('big', 5) };
const bigOverrides = overrides(500, from, 90 * DAY, people(10, 'bigl0p'));
let shifts = 0;
const final90 = timed((run) => {
  const shift = Math.max(run, 0) * HOUR; // another window each run
  shifts = finalSchedule(big, bigOverrides, from + shift, to + shift).shifts.length;
});
const bare90 = timed((run) => {
  const out: { start: number; end: number; email: string }[] = [];
  for (const layer of big.layers) {
    const period = layer.rotation!.length * { hourly: HOUR, daily: DAY, weekly: 7 * DAY }[layer.rotation!.unit];
    const handoff = Date.parse(`${layer.handoff}:00Z`) + Math.max(run, 0) * HOUR;
    for (let k = Math.max(0, Math.floor((from - handoff) / period)); handoff + k * period < to; k++) out.push({ start: handoff + k * period, end: handoff + (k + 1) * period, email: layer.participants![k % 10]! });
  }
  out.sort((a, b) => a.start - b.start);
});

// who is on call now, 1,000 schedules
const now = Date.UTC(2030, 2, 30, 23, 0);
const fleet: { schedule: Row; overrides: Row[] }[] = Array.from({ length: 1000 }, (_, i) => {
  const rows = layers(`s${i}`, 3);
  return {
    schedule: { id: `s${i}`, name: `S${i}`, time_zone: ZONES[i % ZONES.length], layers: rows, updated_at: '2030-01-01T00:00:00.000Z' },
    // as the store answers them: times are Dates
    overrides: overrides(20, now - 10 * DAY, 20 * DAY, rows[0]!.participants as string[]).map((o) => ({ ...o, start: new Date(o.start), end: new Date(o.end), created_at: new Date(o.created_at), updated_at: new Date(o.created_at), schedule_id: `s${i}` })),
  };
});
let answered = 0;
const now1000 = timed((run) => {
  clearOnCallCache(); // cold: nothing computed before is reused
  answered = 0;
  const at = now + (run + WARM_UP + 1) * 61_000;
  for (const { schedule, overrides: o } of fleet) if (onCallAt(schedule, o, at).current) answered++;
});
// warm: paging asks again a minute later, the rows unchanged (the cache per row version answers)
const warm1000 = timed((run) => {
  const at = now + (run + WARM_UP + 1) * 61_000;
  for (const { schedule, overrides: o } of fleet) onCallAt(schedule, o, at);
});
const bare1000 = timed((run) => {
  let hits = 0;
  const at = now + run * 61_000;
  for (const { schedule } of fleet) {
    const layer = (schedule.layers as Layer[])[0]!;
    const k = Math.floor((at - Date.parse(`${layer.handoff}:00Z`)) / (7 * DAY));
    if (layer.participants![k % 10]) hits++;
  }
  return hits;
});

const machine = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, Node ${process.version}`;
const row = (key: string, name: string, vigil: Timing, bare: Timing, goalMs: number, notes: string): Computation =>
  ({ key, name, vigil, bare, ratio: vigil.p50 / Math.max(bare.p50, 0.001), goalMs, met: vigil.p95 < goalMs, notes });
const computations = [
  row('final-90d', 'final schedule, 90 days, 5 layers × 10, 500 overrides', final90, bare90, 20, `${shifts} final shifts; bare: the same layers' shifts cut by UTC arithmetic, unstacked`),
  row('now-1000-cold', 'who is on call now, 1,000 schedules (cold)', now1000, bare1000, 100, `${answered} with someone on call; nothing cached; bare: 1,000 modulo look-ups of a UTC rotation`),
  row('now-1000-warm', 'who is on call now, 1,000 schedules (warm)', warm1000, bare1000, 100, 'the rows unchanged since the last question: cached per row version'),
];
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ machine, runs: RUNS, warmUp: WARM_UP, computations })}\n`);
} else {
  const md = [
    `# On-call computation benchmark (${new Date().toISOString()})`,
    '',
    `Machine: ${machine}. ${RUNS} timed runs after ${WARM_UP} warm-up runs, in process (bench/oncall.ts). CPU: the process's user + system time of each run.`,
    '',
    ...computationTable(computations),
    '',
  ].join('\n');
  const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  await writeFile(`${RESULTS}oncall-latest.md`, md);
  await writeFile(`${RESULTS}oncall-${stamp}.json`, JSON.stringify({ machine, runs: RUNS, final90, bare90, now1000, warm1000, bare1000, shifts, answered, computations }, null, 2));
  process.stdout.write(md);
}
