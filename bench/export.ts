/**
 * `node bench/export.ts`: how long GET /api/v1/config/export?format=hcl takes as an organization grows to
 * 1,000, 2,500 and 5,000 rows across families, on PostgreSQL (a scratch database, dropped afterwards), one export
 * at a time (`npm run bench` measures the 5,000-row export under concurrent load beside a bare baseline).
 * Goal: under 1 s at 5,000 rows, growing linearly. Results in bench/results/export-growth-latest.md.
 *
 * DATABASE_URL an administrative connection (default postgres://postgres@127.0.0.1:5432/postgres);
 * BENCH_EXPORT_RUNS (9) timed exports per size, after two warm-up exports.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadOrganization } from '../engine/auth/authenticate.ts';
import type { Caller } from '../engine/auth/caller.ts';
import { exportHcl } from '../export/export.ts';
import { scratchDatabase, type Scratch } from './lib.ts';
import { exportService } from './export-service.ts';
import { grow } from './scenarios/export.ts';

const SIZES = [1000, 2500, 5000];
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 9);
const GOAL_MS = 1000;
const OPERATOR = `bench-operator-${randomBytes(8).toString('hex')}`;

async function call(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* the export is text */
  }
  return { status: res.status, body: parsed, text };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Measured {
  rows: number;
  blocks: number;
  bytes: number;
  httpMedian: number;
  httpMin: number;
  httpMax: number;
  inProcessMedian: number;
}

async function measure(base: string, key: string, caller: () => Promise<Caller>, services: Parameters<typeof exportHcl>[0], rows: number): Promise<Measured> {
  const once = async () => {
    const started = performance.now();
    const answer = await call(`${base}/api/v1/config/export?format=hcl`, 'GET', key);
    if (answer.status !== 200) throw new Error(`export: ${answer.status} ${answer.text}`);
    return { ms: performance.now() - started, text: answer.text };
  };
  await once();
  await once();
  const http: number[] = [];
  let text = '';
  for (let r = 0; r < RUNS; r++) {
    const got = await once();
    http.push(got.ms);
    text = got.text;
  }
  const inProcess: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const who = await caller();
    const started = performance.now();
    await exportHcl(services, who);
    inProcess.push(performance.now() - started);
  }
  return {
    rows,
    blocks: (text.match(/^import \{$/gm) ?? []).length,
    bytes: Buffer.byteLength(text),
    httpMedian: median(http),
    httpMin: Math.min(...http),
    httpMax: Math.max(...http),
    inProcessMedian: median(inProcess),
  };
}

function report(results: Measured[], seedSeconds: number): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const [first] = results;
  const last = results[results.length - 1]!;
  const lines = [
    `# Export benchmark — ${new Date().toISOString()}`,
    '',
    `Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}.`,
    `PostgreSQL scratch database; one enterprise organization grown through the API (${seedSeconds.toFixed(1)} s of seeding) with a mix of ai_providers (with stored keys),`,
    'slis, slos (references), deploy_policies, alert_mutes, status_page_components (references, colliding display names), service_bindings and',
    `compliance_periods, plus the singletons. GET /api/v1/config/export?format=hcl timed over HTTP (${RUNS} runs after 2 warm-ups, the whole body read),`,
    'and the same export called in process (no HTTP, no authentication).',
    '',
    '| rows | import blocks | file size | HTTP median | HTTP min | HTTP max | in-process median | HTTP median per 1,000 rows |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.rows} | ${r.blocks} | ${(r.bytes / 1024).toFixed(0)} KiB | ${ms(r.httpMedian)} | ${ms(r.httpMin)} | ${ms(r.httpMax)} | ${ms(r.inProcessMedian)} | ${ms((r.httpMedian / r.rows) * 1000)} |`),
    '',
    `Growth from ${first!.rows} to ${last.rows} rows (×${(last.rows / first!.rows).toFixed(1)}): HTTP median ×${(last.httpMedian / first!.httpMedian).toFixed(2)}, in process ×${(last.inProcessMedian / first!.inProcessMedian).toFixed(2)}.`,
    '',
    '| goal | measured | |',
    '|---|---|---|',
    `| under ${GOAL_MS} ms at ${last.rows} rows (HTTP median) | ${ms(last.httpMedian)} | ${last.httpMedian < GOAL_MS ? 'met' : '**MISSED**'} |`,
    `| linear growth (time per row at ${last.rows} within 1.5× of ${first!.rows}) | ×${((last.httpMedian / last.rows) / (first!.httpMedian / first!.rows)).toFixed(2)} per row | ${(last.httpMedian / last.rows) / (first!.httpMedian / first!.rows) <= 1.5 ? 'met' : '**MISSED**'} |`,
    '',
  ];
  return lines.join('\n');
}

let scratch: Scratch | undefined;
let close: (() => Promise<void>) | undefined;
try {
  scratch = await scratchDatabase();
  const running = await exportService(scratch, OPERATOR);
  close = running.close;
  const base = running.url;
  const org = await call(`${base}/api/admin/v1/organizations`, 'POST', OPERATOR, { name: 'export bench', plan: 'enterprise' });
  const key = (await call(`${base}/api/admin/v1/organizations/${org.body.id}/api_keys`, 'POST', OPERATOR, { name: 'bench', scopes: ['api:admin'] })).body.key as string;
  await call(`${base}/api/v1/config/organization_settings`, 'PUT', key, { timezone: 'Europe/Berlin' });
  const caller = async (): Promise<Caller> => ({
    organization: (await loadOrganization(running.services.db, org.body.id))!,
    credential: { kind: 'api_key', id: 'bench', scopes: ['api:admin'] },
    role: 'org_admin',
    transport: 'rest',
    endpointFeature: 'config_api',
    requestId: 'bench',
  });
  const ids = { slis: [] as string[], slos: [] as string[] };
  const results: Measured[] = [];
  let made = 0;
  let seeding = 0;
  for (const size of SIZES) {
    const started = performance.now();
    await grow(base, key, made, size, ids);
    seeding += (performance.now() - started) / 1000;
    made = size;
    const result = await measure(base, key, caller, running.services, size);
    results.push(result);
    process.stdout.write(`${size} rows: HTTP median ${result.httpMedian.toFixed(1)} ms (in process ${result.inProcessMedian.toFixed(1)} ms), ${result.blocks} import blocks, ${(result.bytes / 1024).toFixed(0)} KiB\n`);
  }
  const text = report(results, seeding);
  await writeFile(fileURLToPath(new URL('./results/export-growth-latest.md', import.meta.url)), text);
  process.stdout.write(`\n${text}`);
} finally {
  await close?.();
  await scratch?.drop();
}
