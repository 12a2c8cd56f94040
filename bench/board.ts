/**
 * `npm run bench:board`: ops-board card creation through Vigil's whole webhook pipeline (`POST
 * /webhooks/tickets/<token>`: token, rate limit, the plan's `ops_board`, parse, the idempotency key, the card
 * transaction with its counter row and its two effects, the delivery log) against a bare Koa + pg server inserting
 * one row per request (bench/servers/bare-cards.ts), side by side in the same run, on a scratch PostgreSQL
 * database, 32 connections. Goals (issue 7's): Vigil ≥ 40% of the bare req/s for creation, ≥ 60% for repeats,
 * p99 < 50 ms. Scenarios, each on an organization of its own (plan `business`, which has `ops_board`):
 *
 * - `create`: every delivery carries a new `Idempotency-Key`, so every one opens a card (201); all of them take
 *   the organization's counter row (`board_counters`), whose lock is held until the card commits;
 * - `repeats`: every delivery carries the same key, delivered once before the measurement (201): each one is a
 *   duplicate (200 with the first answer's body and `duplicate: true`) and must change nothing.
 *
 * After each scenario the tables are counted (cards, their numbers, card_effects by kind, webhook_deliveries by
 * status and outcome) and checked: one card per 201, gapless numbers, a notification and a chat post per card,
 * one card for the repeated key. Exits non-zero only when something failed to run (a non-2xx answer or a failed
 * check included); a missed goal is reported.
 * BENCH_SECONDS (10), BENCH_WARMUP (3), BENCH_SCENARIOS (comma-separated: create,repeats; default both),
 * BENCH_PROFILE=1 (the Vigil child with --cpu-prof, into bench/results/profiles), BENCH_SQL=1 (count and time
 * every SQL statement of the Vigil child per scenario: a diagnostic that slows it a little),
 * VIGIL_WEBHOOK_RATE_LIMIT_STORE=postgres (the shared rate-limit store instead of memory),
 * DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { measure, runMain, startChild, transportFailures, withRun, writeResults, type Child, type CpuProbe, type Measured, type Scratch } from './lib.ts';

const CONNECTIONS = 32;
const GOAL = { createRatio: 0.4, repeatsRatio: 0.6, p99Ms: 50 };
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const chosen = (process.env.BENCH_SCENARIOS ?? 'create,repeats').split(',').map((s) => s.trim());
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');
const PROFILES = here('./results/profiles');
const BARE_APPLICATION = 'vigil-bench-bare';
const USER_AGENT = 'VigilBench/1.0 (ops-board)';
const BODY = JSON.stringify({
  title: 'Checkout p99 latency above SLO',
  description: 'The checkout service answers in over 800 ms at p99 since the 14:05 deploy; error rate normal.',
  priority: 'high',
  labels: ['perf'],
  service: 'checkout',
});

async function call(url: string, method: string, token: string | undefined, body: unknown, status: number, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${new URL(url).pathname.replace(/vigil_wh_\w+/, '<token>')}: expected ${status}, got ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** An organization through the operator API, on the default plan `business` (which includes `ops_board`). */
async function organization(vigil: string, operatorToken: string, name: string) {
  const org = await call(`${vigil}/api/admin/v1/organizations`, 'POST', operatorToken, { name, plan: 'business' }, 201);
  return { id: org.id as string, path: `/webhooks/tickets/${org.webhook_token as string}` };
}

/** A connection to the scratch database: the servers' backends (for CPU) and what the tables recorded. */
async function observer(scratch: Scratch) {
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
    /** delivery-log outcomes, cards (count, numbers, keys) and card effects of one organization */
    recorded: async (organizationId: string) => {
      const q = async (sql: string) => Object.fromEntries((await c.query(sql, [organizationId])).rows.map((r) => [r.k, Number(r.n)]));
      return {
        deliveries: await q(`select status || ' ' || outcome as k, count(*) as n from webhook_deliveries where organization_id = $1 group by 1 order by 2 desc`),
        cards: await q(`select 'cards' as k, count(*) as n from cards where organization_id = $1 union all
                        select 'distinct keys', count(distinct dedup_key) from cards where organization_id = $1 union all
                        select 'distinct numbers', count(distinct number) from cards where organization_id = $1 union all
                        select 'highest number', coalesce(max(number), 0) from cards where organization_id = $1 union all
                        select 'counter', coalesce(max(last_number), 0) from board_counters where organization_id = $1`),
        effects: await q('select kind as k, count(*) as n from card_effects where organization_id = $1 group by 1 order by 1'),
      };
    },
    close: () => c.end(),
  };
}

type Recorded = Awaited<ReturnType<Awaited<ReturnType<typeof observer>>['recorded']>>;

/** What must hold after a scenario; each failed check is a sentence. */
function checks(key: string, r: Recorded): string[] {
  const failed: string[] = [];
  const n = (o: Record<string, number>, k: string) => o[k] ?? 0;
  const cards = n(r.cards, 'cards');
  const created = n(r.deliveries, '201 created');
  const expect = (what: string, got: number, want: number) => void (got !== want && failed.push(`${what}: ${got}, expected ${want}`));
  expect('cards vs 201 created deliveries', cards, created);
  expect('distinct card numbers', n(r.cards, 'distinct numbers'), cards);
  expect('highest card number (gapless from 1)', n(r.cards, 'highest number'), cards);
  expect('board counter', n(r.cards, 'counter'), cards);
  expect('distinct idempotency keys', n(r.cards, 'distinct keys'), cards);
  expect('notification effects', n(r.effects, 'notification'), cards);
  expect('chat_post effects', n(r.effects, 'chat_post'), cards);
  const other = Object.keys(r.deliveries).filter((k) => k !== '201 created' && k !== '200 duplicate');
  if (other.length) failed.push(`unexpected delivery outcomes: ${other.join(', ')}`);
  if (key === 'repeats') {
    expect('cards for the repeated key', cards, 1);
  } else if (n(r.deliveries, '200 duplicate') > 0) failed.push(`${n(r.deliveries, '200 duplicate')} duplicates among distinct keys`);
  return failed;
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

interface Scenario {
  key: string;
  name: string;
  org: { id: string; path: string };
  /** the ratio of the bare req/s to reach */
  ratio: number;
  /** the Idempotency-Key of the n-th delivery */
  idempotencyKey: (n: number) => string;
}

const hex = (n: number) => n.toString(16).padStart(12, '0');

function deliveries(url: string, path: string, idempotencyKey: (n: number) => string) {
  let n = 0;
  return {
    url,
    requests: [{
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, 'idempotency-key': idempotencyKey(n++) }, body: BODY }),
    }],
  };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const cpu = (m: Measured) => (m.cpuMsPerRequest ? `${m.cpuMsPerRequest.server.toFixed(2)} + ${m.cpuMsPerRequest.postgres.toFixed(2)}` : 'n/a');

async function main(): Promise<number> {
  const started = new Date();
  const date = started.toISOString();
  const stamp = date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const loadAtStart = os.loadavg();
  const operatorToken = `bench-operator-${randomBytes(12).toString('hex')}`;
  const run = randomBytes(4).toString('hex');
  return withRun(async ({ scratch, children, closers }) => {
    await mkdir(PROFILES, { recursive: true });
    const sqlPrefix = process.env.BENCH_SQL ? `${PROFILES}/sql-board-${stamp}` : undefined;
    const env = { BENCH_DATABASE_URL: scratch.url, BENCH_OPERATOR_TOKEN: operatorToken, ...(sqlPrefix ? { BENCH_SQL_STATS: sqlPrefix } : {}) };
    const profileArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : [];
    const bare = await startChild('bare', here('./servers/bare-cards.ts'), env);
    children.push(bare);
    const vigil = await startChild('vigil', here('./servers/vigil-webhooks.ts'), env, profileArgs);
    children.push(vigil);
    const watch = await observer(scratch);
    closers.push(watch.close);
    const sqlCounts = sqlPrefix ? sqlCounter(vigil, sqlPrefix) : undefined;
    const v = vigil.info.url;

    const repeatedKey = `bench-${run}-repeat`;
    const all: Scenario[] = [
      { key: 'create', name: 'create (distinct keys)', org: await organization(v, operatorToken, 'Bench Create Cards'), ratio: GOAL.createRatio, idempotencyKey: (n) => `bench-${run}-c${hex(n)}` },
      { key: 'repeats', name: 'repeats (one key)', org: await organization(v, operatorToken, 'Bench Repeat Cards'), ratio: GOAL.repeatsRatio, idempotencyKey: () => repeatedKey },
    ];
    const scenarios = all.filter((s) => chosen.includes(s.key));
    const results = [];
    for (const scenario of scenarios) {
      if (scenario.key === 'repeats') {
        const first = await call(`${v}${scenario.org.path}`, 'POST', undefined, BODY, 201, { 'idempotency-key': repeatedKey });
        if (first.duplicate !== false || first.dedup_key !== repeatedKey) throw new Error(`seeding ${scenario.name}: answered ${JSON.stringify(first)}`);
        const again = await call(`${v}${scenario.org.path}`, 'POST', undefined, BODY, 200, { 'idempotency-key': repeatedKey });
        if (again.duplicate !== true || again.id !== first.id) throw new Error(`seeding ${scenario.name}: the repeat answered ${JSON.stringify(again)}`);
      }
      // the bare server's keys only need to differ from Vigil's in name; it checks none
      const bareRun = await measure(`bare POST /cards — ${scenario.name}`, deliveries(bare.info.url, '/cards', scenario.idempotencyKey), seconds, warmup, watch.probe(bare, true));
      await sqlCounts?.();
      const vigilRun = await measure(`Vigil tickets — ${scenario.name}`, deliveries(v, scenario.org.path, scenario.idempotencyKey), seconds, warmup, watch.probe(vigil, false));
      // autocannon stops without waiting for the requests in flight; let the server finish them first
      await sleep(2000);
      const sql = await sqlCounts?.();
      const answered = vigilRun.ok + vigilRun.warmupOk;
      const ratio = vigilRun.rps / bareRun.rps;
      const recorded = await watch.recorded(scenario.org.id);
      results.push({
        scenario: scenario.name, bare: bareRun, vigil: vigilRun, ratio, ratioGoal: scenario.ratio,
        goalMet: ratio >= scenario.ratio && vigilRun.p99 < GOAL.p99Ms,
        recorded, failedChecks: checks(scenario.key, recorded),
        ...(sql ? { sqlPerDelivery: sql.slice(0, 15).map((s) => ({ ...s, perDelivery: s.calls / answered, msPerDelivery: s.ms / answered })) } : {}),
        ...(sql ? { statementsPerDelivery: sql.reduce((n, s) => n + s.calls, 0) / answered } : {}),
      });
    }

    const diagnostics = ['BENCH_PROFILE', 'BENCH_SQL', 'VIGIL_WEBHOOK_RATE_LIMIT_STORE'].filter((name) => process.env[name]);
    const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' / ');
    const lines = [
      `# Vigil ops-board benchmark — ${date}`,
      '',
      `Node ${process.version}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end.`,
      `${CONNECTIONS} connections, one card per delivery (\`POST /webhooks/tickets/<token>\` with an \`Idempotency-Key\`), ${warmup} s warm-up then ${seconds} s measured per target; bare and Vigil measured one after the other for each scenario.`,
      ...(diagnostics.length ? [`Diagnostics on (these figures are not the benchmark's): ${diagnostics.join(', ')}.`] : []),
      '',
      '| scenario | Vigil req/s | bare req/s | ratio | Vigil p50 / p99 | bare p50 / p99 | CPU ms/req Vigil (node + pg) | bare | goal (p99 < 50 ms) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map((r) =>
        `| ${r.scenario} | ${r.vigil.rps.toFixed(0)} | ${r.bare.rps.toFixed(0)} | ${pct(r.ratio)} | ${ms(r.vigil.p50)} / ${ms(r.vigil.p99)} | ${ms(r.bare.p50)} / ${ms(r.bare.p99)} | ${cpu(r.vigil)} | ${cpu(r.bare)} | ≥ ${pct(r.ratioGoal)}: ${r.goalMet ? 'met' : '**missed**'} |`),
      '',
      'What the delivery log and the tables hold per scenario (seeding and warm-up included; the delivery log also holds requests still in flight when autocannon stopped):',
      ...results.map((r) => `- ${r.scenario}: deliveries ${JSON.stringify(r.recorded.deliveries)}; ${JSON.stringify(r.recorded.cards)}; effects ${JSON.stringify(r.recorded.effects)}; checks ${r.failedChecks.length ? `**failed**: ${r.failedChecks.join('; ')}` : 'passed'}`),
      ...results.filter((r) => r.sqlPerDelivery).flatMap((r) => [
        '',
        `SQL of the Vigil child, ${r.scenario}: ${r.statementsPerDelivery!.toFixed(1)} statements per delivery (warm-up included; BENCH_SQL slows it a little)`,
        '',
        '| statement | per delivery | ms per delivery (until answered) |',
        '|---|---:|---:|',
        ...r.sqlPerDelivery!.map((s) => `| \`${s.sql.replace(/\|/g, '\\|')}\` | ${s.perDelivery.toFixed(2)} | ${s.msPerDelivery.toFixed(2)} |`),
      ]),
      '',
    ];
    const md = lines.join('\n');
    process.stdout.write(`\n${md}\n`);

    const failures = [
      ...transportFailures(results.flatMap((r) => [r.bare, r.vigil])),
      ...results.filter((r) => r.failedChecks.length).map((r) => `${r.scenario}: ${r.failedChecks.join('; ')}`),
    ];
    const json = {
      date, node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, loadavg: { start: loadAtStart, end: os.loadavg() },
      connections: CONNECTIONS, warmupSeconds: warmup, seconds, goal: GOAL, diagnostics, results, failures,
    };
    return writeResults(RESULTS, 'board', stamp, json, md, failures);
  });
}

runMain(main);
