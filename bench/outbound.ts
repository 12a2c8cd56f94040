/**
 * `npm run bench:outbound`: outbound deliveries per second from the job queue on PostgreSQL to a receiver on
 * 127.0.0.1 (this process, answering 204), Vigil against a bare baseline, side by side on one scratch database.
 *
 * - Vigil: a producer (outbound-producer.ts, workers off) queues BENCH_DELIVERIES deliveries (default 3000) of
 *   alert.fired to BENCH_DESTINATIONS configs the way the alert pipeline does (a row and a pg-boss job each);
 *   then a worker instance (outbound-worker.ts) sends them: claim, config read, Standard Webhooks signature, the
 *   SSRF-checked request, the attempt and the delivery's state in one transaction, pg-boss completion.
 * - bare: the same number of rows in a plain table, 16 loops taking one with `for update skip locked`, POSTing
 *   it and marking it delivered (bare-outbound.ts).
 *
 * The rate is measured at the receiver: deliveries between the first and the last one received. Scenarios: one
 * destination (Vigil sends at most DESTINATION_CONCURRENCY = 8 at once to one config) and 8 destinations (up to
 * CONCURRENCY = 32 at once, the instance's limit); the bare loops send 16 at once in both. Goal: Vigil ≥ 500 deliveries/s. Exits non-zero
 * when a run did not complete (a delivery missing, or sent to the receiver twice); a missed goal is reported.
 * Then a restart: the same queue to one destination, the worker killed with SIGKILL once half the deliveries were
 * received and a new one started at once; every delivery must still arrive (the killed worker's jobs come back once
 * they expire, 60 s) and end `delivered`. Deliveries in flight at the kill may arrive twice (at-least-once: the
 * receiver de-duplicates by webhook-id); the report counts them. BENCH_RESTART=off skips it.
 * BENCH_DELIVERIES (3000), BENCH_SCENARIOS (1,8: destination counts), BENCH_PROFILE=1 (the worker with --cpu-prof, into
 * bench/results/profiles), DATABASE_URL an administrative connection
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CONCURRENCY, DESTINATION_CONCURRENCY } from '../outbound/deliveries/deliver.ts';
import { runMain, startChild, withRun, writeResults, type Scratch } from './lib.ts';

const GOAL = 500;
const deliveries = Number(process.env.BENCH_DELIVERIES ?? 3000);
const scenarios = (process.env.BENCH_SCENARIOS ?? '1,8').split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');
const DEADLINE_MS = 180_000;

interface Tally {
  first: number;
  last: number;
  ids: Set<string>;
  duplicates: number;
}

/** The receiver: counts distinct deliveries per label (the first path segment), by webhook-id (bare: by body id). */
async function receiver() {
  const tallies = new Map<string, Tally>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const label = (req.url ?? '/').split('/')[1] ?? '';
      const id = String(req.headers['webhook-id'] ?? JSON.parse(Buffer.concat(chunks).toString() || '{}').id ?? '');
      const now = performance.now();
      let tally = tallies.get(label);
      if (!tally) tallies.set(label, (tally = { first: now, last: now, ids: new Set(), duplicates: 0 }));
      if (tally.ids.has(id)) tally.duplicates++;
      else tally.ids.add(id);
      tally.last = now;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, tallies, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function waitForCount(tallies: Map<string, Tally>, label: string, count: number): Promise<Tally> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const tally = tallies.get(label);
    if (tally && tally.ids.size >= count) return tally;
    if (Date.now() > deadline) throw new Error(`${label}: ${tally?.ids.size ?? 0} of ${count} deliveries received within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function fillBare(scratch: Scratch, receiverUrl: string, label: string, destinations: number): Promise<void> {
  const c = new pg.Client({ connectionString: scratch.url });
  await c.connect();
  try {
    await c.query('create table if not exists bench_outbound (id bigserial primary key, url text not null, payload text not null, status text not null)');
    await c.query(
      `insert into bench_outbound (url, payload, status)
       select $1 || '/' || (n % $2), json_build_object('type', 'alert.fired', 'id', $3 || '-' || n, 'data', json_build_object('n', n))::text, 'pending'
         from generate_series(0, $4 - 1) n`,
      [`${receiverUrl}/${label}`, destinations, label, deliveries],
    );
  } finally {
    await c.end();
  }
}

async function delivered(scratch: Scratch, organizationId: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: scratch.url });
  await c.connect();
  try {
    const { rows } = await c.query('select status, count(*)::int as n from outbound_deliveries where organization_id = $1 group by status', [organizationId]);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await c.end();
  }
}

const rate = (t: Tally) => (t.ids.size - 1) / ((t.last - t.first) / 1000);
const restartRun = process.env.BENCH_RESTART !== 'off';
const RESTART_DEADLINE_MS = 300_000;

/** Polls the delivery states until every delivery is `delivered` (or the deadline passes). */
async function settle(scratch: Scratch, organization: string, deadlineMs: number): Promise<Record<string, number>> {
  const deadline = Date.now() + deadlineMs;
  let states: Record<string, number> = {};
  while ((states = await delivered(scratch, organization)).delivered !== deliveries && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return states;
}

async function main(): Promise<number> {
  const date = new Date().toISOString();
  const stamp = date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const loadAtStart = os.loadavg();
  return withRun(async ({ scratch, children, closers }) => {
    const r = await receiver();
    closers.push(r.close);
    const env = {
      BENCH_DATABASE_URL: scratch.url, BENCH_OPERATOR_TOKEN: `bench-${randomBytes(12).toString('hex')}`, BENCH_SECRET_KEY: randomBytes(32).toString('base64'),
      BENCH_RECEIVER_URL: r.url, BENCH_DELIVERIES: String(deliveries),
    };
    const results = [];
    const failures: string[] = [];
    for (const destinations of scenarios) {
      const bareLabel = `bare${destinations}`;
      await fillBare(scratch, r.url, bareLabel, destinations);
      process.stderr.write(`bare, ${destinations} destination(s): ${deliveries} deliveries\n`);
      const bare = await startChild('bare', here('./servers/bare-outbound.ts'), env);
      children.push(bare);
      const bareTally = await waitForCount(r.tallies, bareLabel, deliveries);
      await bare.stop();

      const label = `vigil${destinations}`;
      process.stderr.write(`Vigil, ${destinations} destination(s): queueing ${deliveries} deliveries\n`);
      const producer = await startChild('producer', here('./servers/outbound-producer.ts'), { ...env, BENCH_DESTINATIONS: String(destinations), BENCH_LABEL: label }, [], 300_000);
      const organization = String(producer.info.organization);
      await new Promise<void>((resolve) => (producer.process.exitCode !== null ? resolve() : producer.process.once('exit', () => resolve())));
      const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${here('./results/profiles')}`] : [];
      const worker = await startChild('worker', here('./servers/outbound-worker.ts'), env, profile);
      children.push(worker);
      const vigilTally = await waitForCount(r.tallies, label, deliveries);
      // let the last attempts record their outcome before counting
      let states: Record<string, number> = {};
      for (let i = 0; i < 100 && (states = await delivered(scratch, organization)).delivered !== deliveries; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      await worker.stop();
      if (states.delivered !== deliveries) failures.push(`Vigil, ${destinations} destination(s): ${JSON.stringify(states)} of ${deliveries}`);
      for (const [name, t] of [['bare', bareTally], ['Vigil', vigilTally]] as const) if (t.duplicates) failures.push(`${name}, ${destinations} destination(s): ${t.duplicates} sent twice`);
      results.push({ destinations, bare: { perSecond: rate(bareTally), seconds: (bareTally.last - bareTally.first) / 1000 }, vigil: { perSecond: rate(vigilTally), seconds: (vigilTally.last - vigilTally.first) / 1000, states } });
    }

    let restart: { killedAt: number; received: number; duplicates: number; seconds: number; states: Record<string, number> } | null = null;
    if (restartRun) {
      const label = 'restart';
      process.stderr.write(`Vigil, restart: queueing ${deliveries} deliveries\n`);
      const producer = await startChild('producer', here('./servers/outbound-producer.ts'), { ...env, BENCH_DESTINATIONS: '1', BENCH_LABEL: label }, [], 300_000);
      const organization = String(producer.info.organization);
      await new Promise<void>((resolve) => (producer.process.exitCode !== null ? resolve() : producer.process.once('exit', () => resolve())));
      const first = await startChild('worker', here('./servers/outbound-worker.ts'), env);
      children.push(first);
      const half = await waitForCount(r.tallies, label, Math.floor(deliveries / 2));
      const killedAt = half.ids.size;
      first.process.kill('SIGKILL');
      await new Promise<void>((resolve) => (first.process.exitCode !== null || first.process.signalCode !== null ? resolve() : first.process.once('exit', () => resolve())));
      process.stderr.write(`Vigil, restart: worker killed after ${killedAt} deliveries; a new one starts\n`);
      const started = performance.now();
      const second = await startChild('worker', here('./servers/outbound-worker.ts'), env);
      children.push(second);
      const deadline = Date.now() + RESTART_DEADLINE_MS;
      while ((r.tallies.get(label)?.ids.size ?? 0) < deliveries && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const states = await settle(scratch, organization, 30_000);
      await second.stop();
      const tally = r.tallies.get(label)!;
      restart = { killedAt, received: tally.ids.size, duplicates: tally.duplicates, seconds: (performance.now() - started) / 1000, states };
      if (tally.ids.size !== deliveries) failures.push(`restart: ${tally.ids.size} of ${deliveries} deliveries received (lost across the restart)`);
      if (states.delivered !== deliveries) failures.push(`restart: ${JSON.stringify(states)} of ${deliveries} delivered`);
    }

    const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' / ');
    const md = [
      `# Vigil outbound delivery benchmark — ${date}`,
      '',
      `Node ${process.version}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end.`,
      `${deliveries} deliveries per run, queued first, then sent to a receiver on 127.0.0.1 (204); the rate is measured at the receiver, first to last delivery. PostgreSQL, one worker instance.`,
      '',
      '| destinations | Vigil deliveries/s | bare deliveries/s | ratio | Vigil in flight at most | goal (≥ 500/s) |',
      '|---:|---:|---:|---:|---:|---|',
      ...results.map((x) => `| ${x.destinations} | ${x.vigil.perSecond.toFixed(0)} | ${x.bare.perSecond.toFixed(0)} | ${((x.vigil.perSecond / x.bare.perSecond) * 100).toFixed(1)}% | ${Math.min(CONCURRENCY, DESTINATION_CONCURRENCY * x.destinations)} | ${x.vigil.perSecond >= GOAL ? 'met' : '**missed**'} |`),
      '',
      'Vigil per delivery: its share of a pg-boss fetch of up to 8 jobs (with the per-destination group limit) and of their completion, the claim (with the config ' +
        'read in the same statement), a Standard Webhooks signature, the SSRF-checked POST, one statement for the attempt and the state. Bare: a skip-locked claim, ' +
        'the POST, one update, 16 loops whatever the destinations.',
      '',
      ...(restart
        ? [
          `Restart: the worker was killed (SIGKILL) after ${restart.killedAt} of ${deliveries} deliveries and a new one started; ${restart.received} of ${deliveries} distinct deliveries ` +
            `arrived (${restart.received === deliveries ? 'none lost' : '**some lost**'}), all ${restart.states.delivered === deliveries ? '' : 'NOT '}recorded delivered, ` +
            `${restart.duplicates} sent a second time (in flight at the kill; the receiver de-duplicates by webhook-id), the rest within ${restart.seconds.toFixed(0)} s of the restart ` +
            '(jobs the killed worker held, if any, come back once they expire, after 60 s).',
          '',
        ]
        : []),
    ].join('\n');
    process.stdout.write(`\n${md}\n`);
    const json = { date, node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, loadavg: { start: loadAtStart, end: os.loadavg() }, deliveries, goal: GOAL, results, restart, failures };
    return writeResults(RESULTS, 'outbound', stamp, json, md, failures);
  });
}

runMain(main);
