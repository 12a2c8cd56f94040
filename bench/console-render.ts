/**
 * `npm run bench:console`: how long the console takes to answer its two busiest pages, signed in, over HTTP —
 * `/board` for an organization with 500 cards (six columns, the newest 50 of each status: 300 cards on the page)
 * and `/alerts` (the first page, 50 of 200 alerts) — beside a bare baseline in the same process and the same run:
 * a plain node:http server that reads the same rows with one SELECT on the same database connection and renders
 * them with a bare template (escaped text in a string, no session, no operation, no time zone). Requests one at a
 * time (a person's page load, not a load test), BENCH_RENDER_RUNS (200) measured after 20 warm-up requests each.
 * Goal: Vigil's p50 under 50 ms for each page; the ratio says what the session, the operations (role, plan,
 * validation, cursor) and the templates cost over the bare read. Results in bench/results/console-render-latest.md
 * (and a dated .json). Runs on embedded PGlite, or on PostgreSQL with DATABASE_URL (a scratch database).
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sqlExecutor } from '../engine/persistence/sql.ts';
import { htmlText } from '../engine/html.ts';
import { startVigil } from '../test/helpers/harness.ts';
import { board, closeBoards } from '../test/helpers/board.ts';
import { browserless, person, PASSWORD } from '../test/helpers/console.ts';
import { alertmanager } from '../test/helpers/outbound.ts';

const CARDS = 500;
const ALERTS = 200;
const RUNS = Number(process.env.BENCH_RENDER_RUNS ?? 200);
const WARM_UP = 20;
const GOAL_MS = 50;
const STATUSES = ['triage', 'backlog', 'todo', 'in_progress', 'blocked', 'done'];
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function timed(get: () => Promise<{ status: number; text: string }>, mustHold: (text: string) => boolean) {
  for (let i = 0; i < WARM_UP; i++) await get();
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const answer = await get();
    ms.push(performance.now() - started);
    if (answer.status !== 200 || !mustHold(answer.text)) throw new Error(`an answer was not the page: ${answer.status}`);
    bytes = answer.text.length;
  }
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: Math.max(...ms), bytes };
}

const vigil = await startVigil();
let bare: Server | undefined;
try {
  const ops = await board(vigil, { name: 'Bench Console' });
  for (let i = 0; i < CARDS; i++) {
    const made = await ops.open({ title: `Card ${i} <checkout> latency`, description: 'p99 over 800 ms', labels: ['perf', `l${i % 7}`], service: `svc-${i % 9}` });
    if (made.status !== 201) throw new Error(`card ${i}: ${made.status}`);
  }
  const sql = sqlExecutor(vigil.running.services.db);
  // seeding only: spread the cards over the six columns (the console itself never writes SQL)
  await sql(`update cards set status = (array['${STATUSES.join("','")}'])[1 + number % 6] where organization_id = ?`, [ops.id]);
  for (let batch = 0; batch < ALERTS / 50; batch++) {
    const alerts = Array.from({ length: 50 }, (_, i) => ({ name: `Alert${batch * 50 + i}`, service: `svc-${i % 9}`, severity: 'warning' as const }));
    const res = await fetch(`${vigil.url}/webhooks/metric-dashboard/${ops.token}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'bench-console' }, body: JSON.stringify(alertmanager(alerts)),
    });
    if (res.status !== 200) throw new Error(`alerts: ${res.status} ${await res.text()}`);
  }
  const viewer = await person(vigil, { [ops.id]: 'viewer' });
  const web = browserless(vigil.url);
  if ((await web.signIn(viewer.email, PASSWORD)).status !== 303) throw new Error('sign-in failed');

  // the bare baseline: one SELECT each, a bare template, on the same database connection
  bare = createServer(async (req, res) => {
    try {
      let body = '';
      if (req.url === '/board') {
        const rows = await sql(
          `select key, title, status, priority, service, labels from (
             select key, title, status, priority, service, labels, seq, row_number() over (partition by status order by seq desc) as n from cards where organization_id = ?
           ) c where n <= 50 order by status, seq desc`, [ops.id]);
        body = rows.map((c) => `<li><a href="/board/${htmlText(String(c.key))}">${htmlText(String(c.key))}</a> ${htmlText(String(c.title))} ${htmlText(String(c.service ?? ''))} ${htmlText(JSON.stringify(c.labels))}</li>`).join('');
      } else {
        const rows = await sql('select id, title, status, severity, service, source, started_at, updated_at from alerts where organization_id = ? order by seq desc limit 50', [ops.id]);
        body = rows.map((a) => `<tr><td><a href="/alerts/${a.id}">${htmlText(String(a.title))}</a></td><td>${a.status}</td><td>${a.severity}</td><td>${htmlText(String(a.service ?? ''))}</td><td>${a.source}</td><td>${new Date(a.started_at as string).toISOString()}</td></tr>`).join('');
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body><ol>${body}</ol></body></html>`);
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => bare!.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  const bareGet = async (path: string) => {
    const res = await fetch(`${bareUrl}${path}`);
    return { status: res.status, text: await res.text() };
  };

  const pages = [
    { page: '/board', what: `${CARDS} cards, 50 newest per column shown`, holds: (t: string) => (t.match(/<a class="key" href="\/board\//g) ?? []).length === 300, bareHolds: (t: string) => (t.match(/<li>/g) ?? []).length === 300 },
    { page: '/alerts', what: `first page: 50 of ${ALERTS} alerts`, holds: (t: string) => (t.match(/<tr><td><a href="\/alerts\//g) ?? []).length === 50 && t.includes('Next page'), bareHolds: (t: string) => (t.match(/<tr>/g) ?? []).length === 50 },
  ];
  const rows: { page: string; what: string; vigil: Awaited<ReturnType<typeof timed>>; bare: Awaited<ReturnType<typeof timed>> }[] = [];
  for (const p of pages) {
    const measured = await timed(() => web.get(p.page), p.holds);
    const baseline = await timed(() => bareGet(p.page), p.bareHolds);
    rows.push({ page: p.page, what: p.what, vigil: measured, bare: baseline });
  }

  const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)';
  const at = new Date().toISOString();
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ');
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  const table = rows.map((r) => `| \`${r.page}\` (${r.what}) | ${f(r.vigil.p50)} / ${f(r.vigil.p95)} | ${f(r.bare.p50)} / ${f(r.bare.p95)} | ${(r.vigil.p50 / r.bare.p50).toFixed(1)}× | ${Math.round(r.vigil.bytes / 1024)} KiB / ${Math.round(r.bare.bytes / 1024)} KiB | ${r.vigil.p50 < GOAL_MS ? 'met' : '**missed**'} |`);
  const report = `# Console render benchmark — ${at}

Node ${process.version}, ${os.cpus().length} cores, ${database}, load average ${load} at the end. One request at a time, signed in as a
viewer, ${WARM_UP} warm-up then ${RUNS} measured requests per page; the bare baseline (one SELECT of the same rows on the same database
connection, a bare template, no session) measured right after, in the same process.

| page | Vigil p50 / p95 | bare p50 / p95 | ratio (p50) | page size Vigil / bare | goal (p50 < ${GOAL_MS} ms) |
|---|---:|---:|---:|---:|---|
${table.join('\n')}
`;
  const name = `console-render-${process.env.DATABASE_URL ? 'postgres' : 'pglite'}`;
  await writeFile(`${RESULTS}${name}-${at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`, JSON.stringify({ at, database, runs: RUNS, rows }, null, 2));
  await writeFile(`${RESULTS}${name}-latest.md`, report);
  process.stdout.write(report);
} finally {
  await closeBoards();
  if (bare) await new Promise((resolve) => bare!.close(resolve));
  await vigil.close();
}
