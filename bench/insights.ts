/**
 * `npm run bench:insights`: the insights reads on a large history. Seeds (in SQL, `generate_series`) BENCH_INSIGHTS_ALERTS
 * alerts (default 1,000,000 on PostgreSQL, 100,000 on embedded PGlite) spread over 90 days and 20 organizations, with
 * five effects each (routed, page, chat_post, notified, escalation_stopped: 5,000,000 on PostgreSQL), then times for
 * one organization and the last 30 days each read of get_insights (domain/insights/history.ts: counts, per-day
 * volumes and percentiles computed in SQL) and the whole
 * `GET /api/v1/config/insights`, BENCH_INSIGHTS_RUNS (30) times after 3 warm-ups: goal p95 under 300 ms on
 * PostgreSQL, under 1 s on PGlite. Then the same without the index the reads use (alert_effects (organization_id,
 * kind, at)), and the write path's cost of that index: effects written as the escalation engine writes them
 * (recordEffects, 5 rows a statement) with and without it. Results in bench/results/insights-latest.md (and a dated .json).
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { sqlExecutor } from '../engine/persistence/sql.ts';
import { recordEffects } from '../domain/paging/effects.ts';
import { alertCycles, alertsOpeningIncidents, fireFigures, incidentCycles, pages, shifts } from '../domain/insights/history.ts';
import { CONFIG, startVigil } from '../test/helpers/harness.ts';

const postgres = Boolean(process.env.DATABASE_URL);
const ALERTS = Number(process.env.BENCH_INSIGHTS_ALERTS ?? (postgres ? 1_000_000 : 100_000));
const ORGS = 20;
const RUNS = Number(process.env.BENCH_INSIGHTS_RUNS ?? 30);
const WRITES = Number(process.env.BENCH_INSIGHTS_WRITES ?? 2000);
const GOAL_MS = postgres ? 300 : 1000;
const DAY = 86_400_000;
const END = Date.parse('2026-03-01T00:00:00Z');
const START = END - 90 * DAY;
const INDEX = 'alert_effects_organization_id_kind_at_index';
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * q) - 1)]!;

const vigil = await startVigil({ runWorkers: false });
vigil.clock.set(new Date(END));
const services = vigil.running.services;
const sql = sqlExecutor(services.db);

// ---- seed ----
const seedStarted = performance.now();
const orgs: string[] = [];
for (let i = 0; i < ORGS; i++) orgs.push((await vigil.organization()).id);
const perOrg = Math.floor(ALERTS / ORGS);
for (const org of orgs) {
  await sql(
    `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, labels, status, started_at, raised_at, acknowledged_at, resolved_at, last_received_at, created_at, updated_at)
     select gen_random_uuid(), ?, 'metric-dashboard:a' || g, 'metric-dashboard', 'Alert ' || (g % 500), 'svc' || (g % 20),
            case when g % 10 = 0 then 'critical' else 'warning' end, '{}'::jsonb, 'resolved', t, t,
            case when g % 3 = 0 then null else t + (g % 900) * interval '1 second' end, t + (g % 7200) * interval '1 second', t, t, t
       from (select g, ?::timestamptz + (g::float8 / ?) * interval '90 days' as t from generate_series(1, ?) g) s`,
    [org, new Date(START), perOrg, perOrg],
  );
  await sql(
    `insert into alert_effects (organization_id, alert_id, at, kind, detail)
     select a.organization_id, a.id, a.raised_at + k.off * interval '1 second', k.kind,
            case k.kind when 'notified' then jsonb_build_object('escalation_id', a.id, 'step', 0, 'loop', 0, 'email', 'p' || (a.seq % 12) || '@example.com', 'channel', 'sms')
                        when 'routed' then jsonb_build_object('team_id', null, 'pages', false) else '{}'::jsonb end
       from alerts a cross join (values ('routed', 0), ('page', 0), ('chat_post', 0), ('notified', 60), ('escalation_stopped', 900)) as k(kind, off)
      where a.organization_id = ?`,
    [org],
  );
}
await sql('analyze alerts', []);
await sql('analyze alert_effects', []);
const seedSeconds = (performance.now() - seedStarted) / 1000;
const [{ n: effectCount }] = (await sql('select count(*)::int as n from alert_effects', [])) as { n: number }[];

// ---- reads ----
const org = orgs[0]!;
const key = await (await (async () => ({ key: (await vigil.operator.post(`/api/admin/v1/organizations/${org}/api_keys`, { name: 'bench', scopes: ['api:config_read'] })).body.key as string }))()).key;
const from = END - 30 * DAY;
const before = from - 30 * DAY;
const READS: Record<string, () => Promise<unknown>> = {
  fires: () => fireFigures(services, org, from, END, {}, 20),
  'fires (service filter)': () => fireFigures(services, org, from, END, { service: 'svc3' }, 20),
  cycles: () => alertCycles(services, org, before, from, END, {}, 20),
  'alerts opening incidents': () => alertsOpeningIncidents(services, org, from, END, {}),
  incidents: () => incidentCycles(services, org, before, from, END, {}),
  pages: () => pages(services, org, from, END, {}),
  shifts: () => shifts(services, org, from, END, undefined),
  'GET /insights (whole)': async () => {
    const url = `${vigil.url}${CONFIG}/insights?from=${new Date(from).toISOString()}&to=${new Date(END).toISOString()}`;
    // a kept-alive connection the server closed while the other reads ran is reset on reuse: ask once more on a new one
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } }).catch(() => fetch(url, { headers: { authorization: `Bearer ${key}` } }));
    if (res.status !== 200) throw new Error(`insights answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  },
};

async function timeReads(): Promise<Record<string, { p50: number; p95: number }>> {
  const out: Record<string, { p50: number; p95: number }> = {};
  for (const [name, read] of Object.entries(READS)) {
    for (let i = 0; i < 3; i++) await read();
    const ms: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await read();
      ms.push(performance.now() - t0);
    }
    out[name] = { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
  }
  return out;
}

const withIndex = await timeReads();
await sql(`drop index ${INDEX}`, []);
const withoutIndex = await timeReads();

// ---- the write path: effects as the escalation engine writes them, without the index (now) and with it ----
async function timeWrites(): Promise<number> {
  const alertIds = ((await sql('select id from alerts where organization_id = ? limit 100', [orgs[1]])) as { id: string }[]).map((r) => r.id);
  const t0 = performance.now();
  for (let i = 0; i < WRITES; i++) {
    await recordEffects(sql, new Date(END + i * 1000), Array.from({ length: 5 }, (_, j) => ({
      organizationId: orgs[1]!, alertId: alertIds[(i + j) % alertIds.length]!, kind: 'notified' as const, detail: { escalation_id: randomUUID(), step: 0, loop: 0, email: 'w@example.com' },
    })));
  }
  return (performance.now() - t0) / WRITES;
}
const writeBare = await timeWrites();
await sql(`create index ${INDEX} on alert_effects (organization_id, kind, at)`, []);
const writeIndexed = await timeWrites();
const [{ size }] = (await sql(`select pg_size_pretty(pg_relation_size('${INDEX}')) as size`, [])) as { size: string }[];

await vigil.close();

// ---- report ----
const fmt = (n: number) => n.toFixed(1);
const rows = Object.keys(READS).map((name) => `| ${name} | ${fmt(withIndex[name]!.p50)} | ${fmt(withIndex[name]!.p95)} | ${fmt(withoutIndex[name]!.p50)} | ${fmt(withoutIndex[name]!.p95)} |`);
const worst = Math.max(...Object.values(withIndex).map((r) => r.p95));
const report = `# Insights on a large history (${postgres ? 'PostgreSQL' : 'embedded PGlite'})

${new Date().toISOString()} · ${os.cpus().length} cores · ${ALERTS.toLocaleString('en')} alerts and ${effectCount.toLocaleString('en')} effects over 90 days in ${ORGS} organizations (seeded in ${seedSeconds.toFixed(0)} s) · one organization, the last 30 days · ${RUNS} runs each after 3 warm-ups

| read | p50 ms | p95 ms | p50 ms without the index | p95 ms without the index |
|---|---|---|---|---|
${rows.join('\n')}

Goal: every read under ${GOAL_MS} ms at p95 — ${worst < GOAL_MS ? 'met' : 'NOT met'} (worst p95 ${fmt(worst)} ms).

The index \`alert_effects (organization_id, kind, at)\` (${size} here): writing 5 effects in one statement (as the escalation
engine's recordEffects does) took ${writeBare.toFixed(3)} ms without it and ${writeIndexed.toFixed(3)} ms with it
(${(((writeIndexed - writeBare) / writeBare) * 100).toFixed(0)} % more), ${WRITES} statements each.
`;
await writeFile(`${RESULTS}insights-latest${postgres ? '-postgres' : ''}.md`, report);
await writeFile(`${RESULTS}${new Date().toISOString().replaceAll(':', '-').slice(0, 19)}Z-insights.json`, JSON.stringify({ postgres, ALERTS, effectCount, seedSeconds, withIndex, withoutIndex, writeBare, writeIndexed, size }, null, 2));
console.log(report);
