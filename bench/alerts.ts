/**
 * `npm run bench:alerts`: single-alert Grafana deliveries through Vigil's whole webhook pipeline
 * (`POST /webhooks/metric-dashboard/<token>`: token, rate limit, signature check, parse, the alert transaction,
 * the delivery log) against a bare Koa + pg server inserting one row per request, side by side in the same run,
 * on a scratch PostgreSQL database, 32 connections. Goal (the issue's): Vigil ≥ 40% of the bare req/s with
 * p99 < 50 ms. Scenarios, each on an organization of its own:
 *
 * - `new alerts`: every delivery a new fingerprint; past 10 alerts in 300 s (the default storm threshold) each one
 *   joins the organization's storm, under the per-organization storm lock;
 * - `repeats`: deliveries cycling over 500 alerts already firing (seeded first): the common case, a product
 *   re-sending what still fires (`duplicate`);
 * - `new alerts, storm threshold 1e6` (diagnostic, not the goal): new alerts that never make a storm, so each one
 *   pages and requests an investigation; the storm lock is still taken for every raise.
 *
 * Exits non-zero only when something failed to run (a non-2xx answer included); a missed goal is reported.
 * BENCH_SECONDS (10), BENCH_WARMUP (3), BENCH_SCENARIOS (comma-separated: new,repeats,quiet; default all),
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
const GOAL = { ratio: 0.4, p99Ms: 50 };
const REPEATED_ALERTS = 500;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const chosen = (process.env.BENCH_SCENARIOS ?? 'new,repeats,quiet').split(',').map((s) => s.trim());
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');
const PROFILES = here('./results/profiles');
const FIXTURE = here('../test/fixtures/webhooks/metric-dashboard/grafana-firing.json');
const BARE_APPLICATION = 'vigil-bench-bare';
const USER_AGENT = 'Grafana/11.2.0';

async function call(url: string, method: string, token: string | undefined, body: unknown, status: number): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${new URL(url).pathname.replace(/vigil_wh_\w+/, '<token>')}: expected ${status}, got ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The Grafana fixture with one alert; `body(fp)` gives its text with fingerprint and alert name set to fp. */
async function payload(): Promise<(fingerprint: string) => string> {
  const grafana = JSON.parse(await readFile(FIXTURE, 'utf8'));
  const alert = grafana.alerts[0];
  alert.fingerprint = '@FP@';
  alert.labels.alertname = 'High memory usage @FP@';
  const parts = JSON.stringify({ ...grafana, alerts: [alert], title: '[FIRING:1]  (blue)', truncatedAlerts: 0 }).split('@FP@');
  return (fingerprint) => parts.join(fingerprint);
}

/** An organization through the operator API; `threshold` sets its storm threshold through the configuration API. */
async function organization(vigil: string, operatorToken: string, name: string, threshold?: number) {
  const org = await call(`${vigil}/api/admin/v1/organizations`, 'POST', operatorToken, { name, plan: 'business' }, 201);
  if (threshold !== undefined) {
    const key = await call(`${vigil}/api/admin/v1/organizations/${org.id}/api_keys`, 'POST', operatorToken, { name: 'bench', scopes: ['api:admin'] }, 201);
    const settings = await call(`${vigil}/api/v1/config/organization_settings`, 'PUT', key.key, { alert_storm_threshold: threshold }, 200);
    if (settings.data.alert_storm_threshold !== threshold) throw new Error(`organization_settings answered ${JSON.stringify(settings)}`);
  }
  return { id: org.id as string, path: `/webhooks/metric-dashboard/${org.webhook_token as string}` };
}

/** A connection to the scratch database: the servers' backends (for CPU) and what the delivery log recorded. */
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
    /** delivery-log outcomes, alert states and storms of one organization */
    recorded: async (organizationId: string) => {
      const q = async (sql: string) => Object.fromEntries((await c.query(sql, [organizationId])).rows.map((r) => [r.k, Number(r.n)]));
      return {
        deliveries: await q(`select status || ' ' || outcome as k, count(*) as n from webhook_deliveries where organization_id = $1 group by 1 order by 2 desc`),
        alerts: await q('select status as k, count(*) as n from alerts where organization_id = $1 group by 1'),
        storms: await q(`select 'storms' as k, count(*) as n from alert_storms where organization_id = $1 union all
                         select 'alerts in storms', count(*) from alerts where organization_id = $1 and storm_id is not null`),
      };
    },
    close: () => c.end(),
  };
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
  /** the fingerprint of the n-th delivery */
  fingerprint: (n: number) => string;
}

const hex = (n: number) => n.toString(16).padStart(12, '0');

/** Concurrent deliveries through the pipeline, before the measurement (the repeats' alerts). */
async function seed(vigil: string, scenario: Scenario, body: (fp: string) => string, count: number) {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < count; n = next++) {
      const res = await fetch(`${vigil}${scenario.org.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT }, body: body(scenario.fingerprint(n)) });
      if (res.status !== 200) throw new Error(`seeding ${scenario.name}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

function deliveries(url: string, path: string, fingerprint: (n: number) => string, body: (fp: string) => string) {
  let n = 0;
  return {
    url,
    requests: [{
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      setupRequest: (req: object) => ({ ...req, body: body(fingerprint(n++)) }),
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
  return withRun(async ({ scratch, children, closers }) => {
    await mkdir(PROFILES, { recursive: true });
    const sqlPrefix = process.env.BENCH_SQL ? `${PROFILES}/sql-${stamp}` : undefined;
    const env = { BENCH_DATABASE_URL: scratch.url, BENCH_OPERATOR_TOKEN: operatorToken, ...(sqlPrefix ? { BENCH_SQL_STATS: sqlPrefix } : {}) };
    const profileArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : [];
    const bare = await startChild('bare', here('./servers/bare-ingest.ts'), env);
    children.push(bare);
    const vigil = await startChild('vigil', here('./servers/vigil-webhooks.ts'), env, profileArgs);
    children.push(vigil);
    const watch = await observer(scratch);
    closers.push(watch.close);
    const sqlCounts = sqlPrefix ? sqlCounter(vigil, sqlPrefix) : undefined;
    const body = await payload();
    const v = vigil.info.url;

    const all: Scenario[] = [
      { key: 'new', name: 'new alerts', org: await organization(v, operatorToken, 'bench new alerts'), fingerprint: (n) => `a${hex(n)}` },
      { key: 'repeats', name: `repeats (${REPEATED_ALERTS} firing)`, org: await organization(v, operatorToken, 'bench repeats'), fingerprint: (n) => `b${hex(n % REPEATED_ALERTS)}` },
      { key: 'quiet', name: 'new alerts, storm threshold 1e6 (diagnostic)', org: await organization(v, operatorToken, 'bench quiet', 1_000_000), fingerprint: (n) => `c${hex(n)}` },
    ];
    const scenarios = all.filter((s) => chosen.includes(s.key));
    const results = [];
    for (const scenario of scenarios) {
      if (scenario.key === 'repeats') await seed(v, scenario, body, REPEATED_ALERTS);
      const bareRun = await measure(`bare POST /ingest — ${scenario.name}`, deliveries(bare.info.url, '/ingest', scenario.fingerprint, body), seconds, warmup, watch.probe(bare, true));
      await sqlCounts?.();
      const vigilRun = await measure(`Vigil metric-dashboard — ${scenario.name}`, deliveries(v, scenario.org.path, scenario.fingerprint, body), seconds, warmup, watch.probe(vigil, false));
      // autocannon stops without waiting for the requests in flight; let the server finish them first
      await sleep(2000);
      const sql = await sqlCounts?.();
      const answered = vigilRun.ok + vigilRun.warmupOk;
      const ratio = vigilRun.rps / bareRun.rps;
      results.push({
        scenario: scenario.name, bare: bareRun, vigil: vigilRun, ratio,
        goalMet: ratio >= GOAL.ratio && vigilRun.p99 < GOAL.p99Ms,
        recorded: await watch.recorded(scenario.org.id),
        ...(sql ? { sqlPerDelivery: sql.slice(0, 15).map((s) => ({ ...s, perDelivery: s.calls / answered, msPerDelivery: s.ms / answered })) } : {}),
        ...(sql ? { statementsPerDelivery: sql.reduce((n, s) => n + s.calls, 0) / answered } : {}),
      });
    }

    const diagnostics = ['BENCH_PROFILE', 'BENCH_SQL', 'VIGIL_WEBHOOK_RATE_LIMIT_STORE'].filter((name) => process.env[name]);
    const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' / ');
    const lines = [
      `# Vigil alert webhooks benchmark — ${date}`,
      '',
      `Node ${process.version}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end.`,
      `${CONNECTIONS} connections, one Grafana alert per delivery, ${warmup} s warm-up then ${seconds} s measured per target; bare and Vigil measured one after the other for each scenario.`,
      ...(diagnostics.length ? [`Diagnostics on (these figures are not the benchmark's): ${diagnostics.join(', ')}.`] : []),
      '',
      '| scenario | Vigil req/s | bare req/s | ratio | Vigil p50 / p99 | bare p50 / p99 | CPU ms/req Vigil (node + pg) | bare | goal (≥ 40%, p99 < 50 ms) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map((r) =>
        `| ${r.scenario} | ${r.vigil.rps.toFixed(0)} | ${r.bare.rps.toFixed(0)} | ${pct(r.ratio)} | ${ms(r.vigil.p50)} / ${ms(r.vigil.p99)} | ${ms(r.bare.p50)} / ${ms(r.bare.p99)} | ${cpu(r.vigil)} | ${cpu(r.bare)} | ${r.goalMet ? 'met' : '**missed**'} |`),
      '',
      'What the delivery log and the tables hold per scenario (seeding and warm-up included):',
      ...results.map((r) => `- ${r.scenario}: deliveries ${JSON.stringify(r.recorded.deliveries)}; alerts ${JSON.stringify(r.recorded.alerts)}; ${JSON.stringify(r.recorded.storms)}`),
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

    const failures = transportFailures(results.flatMap((r) => [r.bare, r.vigil]));
    const json = {
      date, node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, loadavg: { start: loadAtStart, end: os.loadavg() },
      connections: CONNECTIONS, warmupSeconds: warmup, seconds, goal: GOAL, diagnostics, results, failures,
    };
    return writeResults(RESULTS, 'alerts', stamp, json, md, failures);
  });
}

runMain(main);
