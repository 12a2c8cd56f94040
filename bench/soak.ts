/**
 * The soak: mixed load on the Vigil child for BENCH_SOAK_SECONDS, its RSS sampled every SAMPLE_SECONDS, to see
 * whether memory keeps growing. The mix is what an instance serves all day, 32 connections in all: configuration
 * reads and updates, agent tool calls, alert repeats and a few new alerts, card repeats and creations. (The
 * 5,000-row export is an occasional request with a large transient heap; it has its own scenario and RSS figures.)
 * The load runs BENCH_WARMUP seconds before the first sample, so the first sample is taken warm.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type Options } from 'autocannon';
import { rssBytes } from './lib.ts';
import { deliveries, grafanaBody, seedAlerts } from './scenarios/alerts.ts';
import { cardDeliveries, seedRepeatedCard } from './scenarios/board.ts';
import { call, hex, organization, type BenchContext } from './scenarios/context.ts';

export const SAMPLE_SECONDS = 5;
export const GOAL_GROWTH = 0.1;
const ROWS = 16;
const REPEATED_ALERTS = 200;

export interface SoakResult {
  seconds: number;
  warmupSeconds: number;
  /** seconds since the first sample, RSS bytes */
  samples: { at: number; rss: number; heapUsed?: number }[];
  first?: number;
  last?: number;
  max?: number;
  /** (last - first) / first */
  growth?: number;
  /** the JS heap in use after a full garbage collection, at the first and the last sample (a diagnostic: RSS is the goal) */
  heapAfterGc?: { first?: number; last?: number };
  mix: { name: string; connections: number; requests: number; rps: number; ok: number; non2xx: number; errors: number; mismatches: number }[];
  failures: string[];
}

/** The load's targets, on organizations of their own. */
async function targets(ctx: BenchContext): Promise<{ name: string; connections: number; options: Omit<Options, 'duration'> }[]> {
  const v = ctx.vigil.info.url;
  const org = await organization(ctx, 'bench soak', 'business', ['api:admin']);
  const ids: string[] = [];
  for (let i = 1; i <= ROWS; i++) ids.push((await call(`${v}/api/v1/config/ai_providers`, 'POST', org.key, { name: `soak ${i}`, provider: 'vendor_a', priority: i }, 201)).data.id);
  for (let i = 1; i <= 5; i++) await call(`${v}/api/v1/config/teams`, 'POST', org.key, { name: `soak team ${i}` }, 201);
  const agent = await call(`${v}/api/admin/v1/organizations/${org.id}/api_keys`, 'POST', ctx.operatorToken, { name: 'soak agent', scopes: ['mcp:read'] }, 201);
  const alertsPath = `/webhooks/metric-dashboard/${org.webhookToken}`;
  const cardsPath = `/webhooks/tickets/${org.webhookToken}`;
  const body = await grafanaBody();
  const repeat = (n: number) => `s${hex(n % REPEATED_ALERTS)}`;
  await seedAlerts(v, alertsPath, repeat, body, REPEATED_ALERTS);
  await seedRepeatedCard(v, cardsPath, 'soak-repeat');
  const auth = { authorization: `Bearer ${org.key}` };
  let read = 0;
  let update = 0;
  let priority = 1000;
  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_teams', arguments: {} } });
  return [
    { name: 'read', connections: 8, options: { url: v, requests: [{ method: 'GET', headers: auth, setupRequest: (r) => ({ ...r, path: `/api/v1/config/ai_providers/${ids[read++ % ids.length]}` }) }] } },
    { name: 'update', connections: 4, options: { url: v, requests: [{ method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, path: `/api/v1/config/ai_providers/${ids[update++ % ids.length]}`, body: JSON.stringify({ priority: priority++ }) }) }] } },
    {
      name: 'MCP list_teams', connections: 6,
      options: {
        url: `${v}/api/mcp`, method: 'POST', body: mcpBody,
        headers: { authorization: `Bearer ${agent.key as string}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        verifyBody: (b) => b.includes('"structuredContent"') && !b.includes('"isError":true'),
      },
    },
    { name: 'alert repeats', connections: 8, options: deliveries(v, alertsPath, repeat, body) },
    { name: 'new alerts', connections: 2, options: deliveries(v, alertsPath, (n) => `t${hex(n)}`, body) },
    { name: 'card repeats', connections: 2, options: cardDeliveries(v, cardsPath, () => 'soak-repeat') },
    { name: 'card creations', connections: 2, options: cardDeliveries(v, cardsPath, (n) => `soak-c${hex(n)}`) },
  ];
}

export async function soak(ctx: BenchContext, seconds: number, warmupSeconds: number): Promise<SoakResult> {
  const pid = ctx.vigil.process.pid!;
  const load = await targets(ctx);
  process.stderr.write(`soak: ${load.reduce((n, l) => n + l.connections, 0)} connections of mixed load, ${warmupSeconds}s warm-up, then ${seconds}s with RSS sampled every ${SAMPLE_SECONDS}s\n`);
  const total = warmupSeconds + seconds;
  const runs = load.map((l) => autocannon({ connections: l.connections, pipelining: 1, timeout: 10, ...l.options, duration: total }));
  const samples: { at: number; rss: number; heapUsed?: number }[] = [];
  const memoryUrl = ctx.vigil.info.memoryUrl as string | undefined;
  const memory = async (gc: boolean): Promise<{ heapUsed: number } | undefined> => {
    if (!memoryUrl) return undefined;
    try {
      return (await (await fetch(`${memoryUrl}${gc ? '?gc=1' : ''}`)).json()) as { heapUsed: number };
    } catch {
      return undefined;
    }
  };
  const heapAfterGc: { first?: number; last?: number } = {};
  const failures: string[] = [];
  await sleep(warmupSeconds * 1000);
  const start = performance.now();
  // every SAMPLE_SECONDS, and the last one half a second before the load stops
  const times = [...Array.from({ length: Math.ceil((seconds - 1) / SAMPLE_SECONDS) }, (_, i) => i * SAMPLE_SECONDS), Math.max(0, seconds - 0.5)];
  for (const at of times) {
    const wait = start + at * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    const rss = await rssBytes(pid);
    if (rss === undefined) {
      failures.push(`soak: the Vigil child's RSS could not be read at ${at} s (${ctx.vigil.crashed() ?? 'not Linux?'})`);
      break;
    }
    samples.push({ at, rss, heapUsed: (await memory(false))?.heapUsed });
    // RSS first, then the collection, so the RSS samples are not shaped by forced collections
    if (at === times[0]) heapAfterGc.first = (await memory(true))?.heapUsed;
    if (at === times.at(-1)) heapAfterGc.last = (await memory(true))?.heapUsed;
  }
  const results = await Promise.all(runs);
  const mix = results.map((r, i) => ({
    name: load[i]!.name, connections: load[i]!.connections, requests: r.requests.total, rps: r.requests.total / r.duration,
    ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, mismatches: r.mismatches ?? 0,
  }));
  for (const m of mix) {
    if (m.non2xx || m.errors || m.mismatches || !m.ok) failures.push(`soak ${m.name}: ${m.ok} 2xx, ${m.non2xx} non-2xx, ${m.errors} errors, ${m.mismatches} refused bodies`);
  }
  const first = samples[0]?.rss;
  const last = samples.at(-1)?.rss;
  const max = samples.length ? Math.max(...samples.map((s) => s.rss)) : undefined;
  return { seconds, warmupSeconds, samples, first, last, max, growth: first && last ? (last - first) / first : undefined, heapAfterGc, mix, failures };
}
