/**
 * `npm run bench:parse`: how long one alert source parser takes on a mutated fixture (random subtrees replaced by
 * junk: 70,000-character strings, deep nesting, wrong types), the timing the parser tests leave out so they cannot
 * fail on a busy machine. BENCH_ROUNDS (2000) rounds per source; reports the median, the 99th percentile and the
 * slowest round. Goal: every round under 500 ms (a parser that backtracks or loops on hostile input shows here);
 * a missed goal is reported, not an error.
 */
import { performance } from 'node:perf_hooks';
import type { AlertSource } from '../domain/alerts/event.ts';
import type { Parser } from '../webhooks/sources/index.ts';
import { parse as cloudAlarms } from '../webhooks/sources/cloud-alarms.ts';
import { parse as cloudAudit } from '../webhooks/sources/cloud-audit.ts';
import { parse as events } from '../webhooks/sources/events.ts';
import { parse as incidentPager } from '../webhooks/sources/incident-pager.ts';
import { parse as metricDashboard } from '../webhooks/sources/metric-dashboard.ts';
import { parse as monitoringA } from '../webhooks/sources/monitoring-a.ts';
import { parse as monitoringB } from '../webhooks/sources/monitoring-b.ts';
import { fixture, mutate, prng } from '../test/webhooks/sources/helpers.ts';

const GOAL_MS = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);
const SOURCES: [AlertSource, Parser, string[]][] = [
  ['cloud-alarms', cloudAlarms, ['alarm', 'ok', 'insufficient-data', 'subscription-confirmation', 'unsubscribe-confirmation']],
  ['cloud-audit', cloudAudit, ['create-access-key', 'root-stop-logging', 'console-login-failure', 'access-denied', 'subscription-confirmation']],
  ['incident-pager', incidentPager, ['triggered', 'acknowledged', 'resolved', 'priority-updated', 'annotated']],
  ['metric-dashboard', metricDashboard, ['grafana-firing', 'grafana-resolved', 'alertmanager-firing', 'alertmanager-resolved']],
  ['monitoring-a', monitoringA, ['triggered', 'recovered', 'warn', 'default-payload']],
  ['monitoring-b', monitoringB, ['activated', 'acknowledged', 'closed', 'accumulations']],
  ['events', events, ['pagerduty-trigger', 'pagerduty-acknowledge', 'alertmanager-trigger', 'alertmanager-resolve', 'grafana-trigger']],
];

let missed = 0;
for (const [source, parse, names] of SOURCES) {
  const fixtures = names.map((n) => fixture(source, n));
  const rand = prng(0x5eed);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const body = mutate(fixtures[round % fixtures.length], rand);
    const started = performance.now();
    try {
      parse(body);
    } catch {
      // the parser tests fail on a throw; here only the time counts
    }
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  const slowest = times.at(-1)!;
  if (slowest >= GOAL_MS) missed++;
  process.stdout.write(`${source.padEnd(17)} median ${at(0.5)} ms, p99 ${at(0.99)} ms, slowest ${slowest.toFixed(2)} ms${slowest >= GOAL_MS ? `: MISSED the ${GOAL_MS} ms goal` : ''}\n`);
}
process.stdout.write(missed ? `${missed} source(s) over ${GOAL_MS} ms in a round\n` : `every round under ${GOAL_MS} ms\n`);
