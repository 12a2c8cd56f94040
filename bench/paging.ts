/**
 * `npm run bench:paging` (also the last part of `npm run bench`): paging under load, two `vigil serve` instances on one
 * scratch PostgreSQL database, pages going to a receiver in this process (a webhook contact method per person, on
 * 127.0.0.1: VIGIL_OUTBOUND_ALLOW_LOOPBACK=on).
 *
 * Set-up: PEOPLE (60) members, each with a webhook method and a rule (delay 0, high urgency), a policy of two steps
 * (0 and STEP_MINUTES = 1 minute later, both the same person), a team and a route matching service `s<i>`.
 * Load: RATE (50) new alerts a second for `--seconds` (default 60; BENCH_SECONDS too), each an Alertmanager webhook to
 * one instance in turn, alert k to service s<k mod PEOPLE>; then the run waits for every second step. Before it, the
 * same load for BENCH_WARMUP_SECONDS (5), not measured: a running service's pools are open and its statements prepared.
 *
 * Measured (goals from the paging issue):
 * - first provider request: from sending the alert's webhook to the receiver getting the first page carrying it, for
 *   the pages that went out at once (the notification row not held by a bundle window: `send_after = created_at`);
 *   p99 < 1 s. Alerts that fell in a person's 5-second bundle window wait for it by design: reported apart.
 * - escalation step start lateness: when the second step ran (its notification rows' created_at) minus when it was due
 *   (the escalation's start plus 1 minute); p99 within 2 s.
 * - webhook throughput with paging on vs off, in the same run: autocannon, new alerts, THROUGHPUT_SECONDS (10) each,
 *   against an organization whose alerts page (routes, policies, people) and one with none (the baseline: the same
 *   webhook, no paging); ratio ≥ 0.40.
 * BENCH_PROFILE=1: each instance with --cpu-prof (bench/results/profiles; bench/profile-summary.ts reads them).
 * - CPU per alert (instances, PostgreSQL's backends, this process) while the load runs and its first pages go out:
 *   beside the machine's cores, it says whether the rate is within what the machine can do at all.
 * Writes bench/results/paging-<date>.json and paging-latest.md. Exits non-zero when the run is not valid (a webhook
 * not accepted, a page or a step missing); a missed goal is reported.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cpuSeconds, measure, runMain, spawnServing, withRun, writeResults } from './lib.ts';

const arg = process.argv.indexOf('--seconds');
const SECONDS = Number(arg > 0 ? process.argv[arg + 1] : process.env.BENCH_SECONDS ?? 60);
const RATE = 50;
const PEOPLE = 60;
const STEP_MINUTES = 1;
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const GOALS = { firstRequestP99Ms: 1000, lateness99Ms: 2000, throughputRatio: 0.4 };
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS = here('./results/');
const VIGIL = here('../bin/vigil.ts');
const OPERATOR = `bench-${randomBytes(20).toString('hex')}`;

const pct = (values: number[], p: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const stats = (values: number[]) => ({ n: values.length, p50: pct(values, 50), p99: pct(values, 99), max: values.length ? Math.max(...values) : NaN });

/** `vigil serve` in a process of its own; resolves with its URL once it serves. */
function serve(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${here('./results/profiles')}`] : [];
  return spawnServing([...profile, VIGIL, 'serve'], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env });
}

type StatementFigures = { connectionsOpened: number; calls: number; execMs: number; top: { query: string; calls: number; execMs: number }[] };

/** Counts PostgreSQL's statements in database `name` from now (null figures when pg_stat_statements is not loaded). */
async function statementCounter(db: pg.Client, name: string): Promise<{ read(alerts: number): Promise<StatementFigures | null> }> {
  const sessions = async () => Number((await db.query('select sessions from pg_stat_database where datname = $1', [name])).rows[0]?.sessions ?? 0);
  const loaded = await db.query('create extension if not exists pg_stat_statements').then(() => db.query('select pg_stat_statements_reset()')).then(() => true, () => false);
  const opened = await sessions();
  return {
    async read(alerts) {
      if (!loaded) return null;
      const { rows } = await db.query(
        `select query, calls::float8 as calls, total_exec_time as ms from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = $1 order by total_exec_time desc`, [name],
      );
      const per = (n: number) => Math.round((n / alerts) * 100) / 100;
      return {
        connectionsOpened: (await sessions()) - opened,
        calls: per(rows.reduce((sum, r) => sum + r.calls, 0)),
        execMs: per(rows.reduce((sum, r) => sum + r.ms, 0)),
        top: rows.slice(0, 12).map((r) => ({ query: String(r.query).replace(/\s+/g, ' ').slice(0, 140), calls: per(r.calls), execMs: per(r.ms) })),
      };
    },
  };
}

const statementText = (f: StatementFigures) =>
  `PostgreSQL per alert (pg_stat_statements, the same window): ${f.calls} statements, ${f.execMs} ms executing; ${f.connectionsOpened} connections opened in the window. ` +
  `The most time:\n\n| ms / alert | calls / alert | statement |\n|---|---|---|\n${f.top.map((t) => `| ${t.execMs} | ${t.calls} | \`${t.query.replace(/\|/g, '\\|')}\` |`).join('\n')}`;

async function call(url: string, method: string, token: string, body?: unknown, expect = [200, 201]): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${new URL(url).pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

function alertBody(name: string, service: string): string {
  return JSON.stringify({
    version: '4', groupKey: '{}:{alertname="x"}', truncatedAlerts: 0, status: 'firing', receiver: 'vigil', groupLabels: {}, commonLabels: {}, commonAnnotations: {},
    externalURL: 'http://alertmanager.example.com:9093',
    alerts: [{ status: 'firing', labels: { alertname: name, severity: 'critical', service }, annotations: { summary: name }, startsAt: new Date().toISOString(), endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://prometheus.example.com:9090/graph', fingerprint: name }],
  });
}
const HEADERS = { 'user-agent': 'Alertmanager/0.27.0', 'content-type': 'application/json' };

async function organization(base: string, name: string) {
  const org = await call(`${base}/api/admin/v1/organizations`, 'POST', OPERATOR, { name, plan: 'business' });
  const key = (await call(`${base}/api/admin/v1/organizations/${org.id}/api_keys`, 'POST', OPERATOR, { name: 'bench', scopes: ['api:admin'] })).key as string;
  await call(`${base}/api/v1/config/organization_settings`, 'PUT', key, { alert_storm_threshold: 1_000_000 });
  return { id: org.id as string, key, path: `/webhooks/metric-dashboard/${org.webhook_token}` };
}

runMain(() => withRun(async ({ scratch, closers }) => {
  // the receiver: when each alert's first page arrived
  const firstAt = new Map<string, number>();
  let pages = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      pages++;
      try {
        for (const a of JSON.parse(Buffer.concat(chunks).toString('utf8')).alerts ?? []) if (!firstAt.has(a.title)) firstAt.set(a.title, at);
      } catch {
        // not a page
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => receiver.close(() => resolve())));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

  const env = {
    DATABASE_URL: scratch.url, VIGIL_ADMIN_TOKEN: OPERATOR, VIGIL_SECRET_KEY: randomBytes(32).toString('base64'),
    VIGIL_OUTBOUND_ALLOW_LOOPBACK: 'on', VIGIL_API_RATE_LIMIT: '0', VIGIL_WEBHOOK_RATE_LIMIT: '1000000',
  };
  const a = await serve(env);
  const b = await serve(env);
  for (const { child } of [a, b]) closers.push(async () => void child.kill('SIGTERM'));
  process.stderr.write(`two instances: ${a.url} ${b.url}\n`);

  // set-up through the configuration API
  const paged = await organization(a.url, 'bench paging');
  const quiet = await organization(a.url, 'bench no paging');
  const config = (family: string, body: unknown) => call(`${a.url}/api/v1/config/${family}`, 'POST', paged.key, body);
  for (let i = 0; i < PEOPLE; i++) {
    const email = `p${i}@bench.example.com`;
    await call(`${a.url}/api/admin/v1/users`, 'POST', OPERATOR, { email });
    await config('team_members', { email, role: 'member' });
    const method = (await config('contact_methods', { email, type: 'webhook', name: 'pager', address: `${receiverUrl}/p${i}` })).data;
    await config('notification_rules', { email, contact_method_id: method.id, delay_minutes: 0, urgency: 'high' });
    const policy = (await config('escalation_policies', { name: `P${i}`, steps: [{ delay_minutes: 0, targets: [{ email }] }, { delay_minutes: STEP_MINUTES, targets: [{ email }] }] })).data;
    const team = (await config('teams', { name: `T${i}`, escalation_policy_id: policy.id })).data;
    await config('alert_routes', { name: `r${i}`, team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: `s${i}` }] });
  }
  process.stderr.write(`set-up done: ${PEOPLE} people; ${RATE} alerts/s for ${SECONDS} s\n`);

  // RATE new alerts a second for `count` alerts, to each instance in turn, named <prefix>-<k>; resolves when all answered
  const failures: string[] = [];
  const sentAt = new Map<string, number>();
  const load = async (prefix: string, count: number) => {
    const inflight: Promise<void>[] = [];
    const start = Date.now();
    for (let k = 0; k < count; k++) {
      const due = start + (k * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const name = `${prefix}-${k}`;
      const base = k % 2 ? b.url : a.url;
      sentAt.set(name, Date.now());
      inflight.push(fetch(`${base}${paged.path}`, { method: 'POST', headers: HEADERS, body: alertBody(name, `s${k % PEOPLE}`) }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) failures.push(`${name}: webhook answered ${res.status}`);
      }, (error) => void failures.push(`${name}: ${error}`)));
    }
    await Promise.all(inflight);
    return (Date.now() - start) / 1000;
  };
  const firstPaged = (prefix: string) => [...firstAt.keys()].filter((title) => title.startsWith(`${prefix}-`)).length;
  const until = async (done: () => boolean, ms: number) => {
    const by = Date.now() + ms;
    while (!done() && Date.now() < by) await new Promise((resolve) => setTimeout(resolve, 200));
  };

  // warm-up, not measured: the same load for WARMUP_SECONDS, so the pools' connections are open and their statements
  // prepared (a connection's first plans of the pipeline's queries cost PostgreSQL tens of milliseconds), as in a
  // service that has been running; its alerts' second steps fall in the measured run, as a running service's would
  const warm = Math.round(WARMUP_SECONDS * RATE);
  await load('warm', warm);
  await until(() => firstPaged('warm') >= warm, 30_000);
  for (const name of [...sentAt.keys()]) sentAt.delete(name);

  // CPU of the two instances and the database's backends while the alerts arrive and their first pages go out
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  closers.push(() => db.end());
  const backends = async () => (await db.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [scratch.name])).rows.map((r) => r.pid as number);
  const cpu = async () => {
    const at = await cpuSeconds([a.child.pid!, b.child.pid!, ...(await backends())]);
    return { at, self: process.cpuUsage() };
  };
  // where PostgreSQL's time goes, when the server loads pg_stat_statements (shared_preload_libraries): statements
  // per alert and their execution time, and the connections opened meanwhile (each new backend plans afresh)
  const statements = await statementCounter(db, scratch.name);
  const cpuBefore = await cpu();

  // the measured load
  const total = Math.round(SECONDS * RATE);
  const sendSeconds = await load('bench', total);
  process.stderr.write(`${total} alerts sent in ${sendSeconds.toFixed(1)} s; waiting for every second step\n`);

  // every first page (or 30 s more), then the CPU the load cost, per alert
  await until(() => firstPaged('bench') >= total, 30_000);
  const cpuAfter = await cpu();
  const statementsPerAlert = await statements.read(total);
  const perAlert = (pids: number[]) => (pids.reduce((sum, pid) => sum + (cpuAfter.at.get(pid) ?? 0) - (cpuBefore.at.get(pid) ?? 0), 0) * 1000) / total;
  const self = process.cpuUsage(cpuBefore.self);
  const cpuMsPerAlert = {
    instances: perAlert([a.child.pid!, b.child.pid!]),
    postgres: perAlert([...cpuAfter.at.keys()].filter((pid) => pid !== a.child.pid && pid !== b.child.pid)),
    benchProcess: (self.user + self.system) / 1000 / total,
  };
  const secondSteps = async () => Number((await db.query(`select count(distinct n.alert_id) as n from paging_notifications n join alerts a on a.organization_id = n.organization_id and a.id = n.alert_id
      where n.organization_id = $1 and n.step = 1 and a.title like 'bench-%'`, [paged.id])).rows[0].n);
  const deadline = Date.now() + (STEP_MINUTES * 60 + 60) * 1000;
  while ((await secondSteps()) < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1000));

  const rows = (await db.query(
    `select a.title, n.step, n.created_at, n.send_after, e.started_at from paging_notifications n join alerts a on a.organization_id = n.organization_id and a.id = n.alert_id
       join paging_escalations e on e.id = n.escalation_id where n.organization_id = $1`,
    [paged.id],
  )).rows as { title: string; step: number; created_at: Date; send_after: Date; started_at: Date }[];
  // a step is due at the escalation's start plus the delays before it (escalations.ts: each from the one before's deadline)
  const first = new Map<string, { created: number; held: boolean; started: number }>();
  const second = new Map<string, number>();
  for (const r of rows) {
    if (r.step === 0) first.set(r.title, { created: r.created_at.getTime(), held: r.send_after.getTime() > r.created_at.getTime(), started: r.started_at.getTime() });
    else second.set(r.title, r.created_at.getTime());
  }
  const atOnce: number[] = [];
  const bundled: number[] = [];
  const lateness: number[] = [];
  for (const [title, sent] of sentAt) {
    const f = first.get(title);
    const arrived = firstAt.get(title);
    if (!f) failures.push(`${title}: no first step`);
    else if (arrived === undefined) failures.push(`${title}: no page arrived`);
    else (f.held ? bundled : atOnce).push(arrived - sent);
    const s = second.get(title);
    if (f && s !== undefined) lateness.push(s - (f.started + STEP_MINUTES * 60_000));
    else if (f) failures.push(`${title}: its second step did not run`);
  }
  if (failures.length > 20) failures.splice(20, failures.length - 20, `… and more`);

  // webhook throughput, paging off (the baseline) and on, the same webhook and body shape
  let n = 0;
  const options = (path: string) => ({
    url: `${a.url}${path}`, method: 'POST' as const, headers: HEADERS, connections: 16,
    requests: [{ method: 'POST' as const, setupRequest: (req: object) => ({ ...req, body: alertBody(`tp-${n++}`, `s${n % PEOPLE}`) }) }],
  });
  // CPU counted for instance A (the one the requests reach) and every backend of the database
  const probe = { server: a.child.pid!, postgres: backends };
  const off = await measure('webhook, paging off', options(quiet.path), THROUGHPUT_SECONDS, 2, probe);
  const on = await measure('webhook, paging on', options(paged.path), THROUGHPUT_SECONDS, 2, probe);
  for (const m of [off, on]) if (m.non2xx || m.errors) failures.push(`${m.name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
  const ratio = on.rps / off.rps;

  const cpuText = (m: typeof off) => (m.cpuMsPerRequest ? `${m.cpuMsPerRequest.server.toFixed(1)} + ${m.cpuMsPerRequest.postgres.toFixed(1)} ms` : 'not measured');
  const first99 = stats(atOnce);
  const late = stats(lateness);
  const goals = [
    { name: 'first provider request p99 (pages sent at once)', target: `< ${GOALS.firstRequestP99Ms} ms`, measured: `${first99.p99} ms (p50 ${first99.p50}, max ${first99.max}, n ${first99.n})`, met: first99.p99 < GOALS.firstRequestP99Ms },
    { name: 'escalation step start lateness p99', target: `≤ ${GOALS.lateness99Ms} ms`, measured: `${late.p99} ms (p50 ${late.p50}, max ${late.max}, n ${late.n})`, met: late.p99 <= GOALS.lateness99Ms },
    { name: 'webhook throughput, paging on / off', target: `≥ ${GOALS.throughputRatio}`, measured: `${ratio.toFixed(2)} (${on.rps.toFixed(0)} / ${off.rps.toFixed(0)} req/s)`, met: ratio >= GOALS.throughputRatio },
  ];
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
  const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const json = {
    date: new Date().toISOString(), machine, instances: 2, people: PEOPLE, rate: RATE, seconds: SECONDS, alerts: total, sendSeconds, pages,
    firstRequestMs: { atOnce: first99, bundled: stats(bundled) }, stepLatenessMs: late, cpuMsPerAlert, statementsPerAlert,
    throughput: { off: { rps: off.rps, p99: off.p99, cpuMsPerRequest: off.cpuMsPerRequest }, on: { rps: on.rps, p99: on.p99, cpuMsPerRequest: on.cpuMsPerRequest }, ratio }, goals, failures,
  };
  const bundledStats = stats(bundled);
  const md = `# Paging benchmark (${json.date})\n\n${machine}. Two \`vigil serve\` instances on one PostgreSQL database; ${PEOPLE} people; ` +
    `${RATE} alerts/s for ${SECONDS} s (${total} alerts, sent in ${sendSeconds.toFixed(1)} s); ${pages} page requests at the receiver.\n\n` +
    `| goal | target | measured | met |\n|---|---|---|---|\n${goals.map((g) => `| ${g.name} | ${g.target} | ${g.measured} | ${g.met ? 'yes' : 'no'} |`).join('\n')}\n\n` +
    `Alerts that fell in their person's 5-second bundle window (sent with the next message, by design): first request p50 ${bundledStats.p50} ms, p99 ${bundledStats.p99} ms (n ${bundledStats.n}).\n\n` +
    `CPU per alert while the alerts arrived and their first pages went out (from /proc): the two instances ${cpuMsPerAlert.instances.toFixed(1)} ms, ` +
    `PostgreSQL's backends ${cpuMsPerAlert.postgres.toFixed(1)} ms, this process (load and receiver) ${cpuMsPerAlert.benchProcess.toFixed(1)} ms; the machine has ${os.cpus().length * 1000} ms a second, ` +
    `${(RATE * (cpuMsPerAlert.instances + cpuMsPerAlert.postgres + cpuMsPerAlert.benchProcess)).toFixed(0)} of them asked for at ${RATE} alerts a second.\n\n` +
    (statementsPerAlert ? `${statementText(statementsPerAlert)}\n\n` : '') +
    `Webhook throughput (new alerts, 16 connections, ${THROUGHPUT_SECONDS} s each, instance A): paging off ${off.rps.toFixed(0)} req/s (p99 ${off.p99} ms), paging on ${on.rps.toFixed(0)} req/s (p99 ${on.p99} ms); ` +
    `CPU per request (instance A + PostgreSQL): paging off ${cpuText(off)}, paging on ${cpuText(on)}.\n` +
    (failures.length ? `\nNot valid:\n${failures.map((f) => `- ${f}`).join('\n')}\n` : '');
  process.stdout.write(md);
  return writeResults(RESULTS, 'paging', stamp, json, md, failures);
}));
