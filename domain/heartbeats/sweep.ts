/**
 * The deadline sweep: a pass resolves the alerts of deleted heartbeats (removals.ts), brings deadlines in step
 * with changed intervals, claims the heartbeats past theirs
 * (deadlines.ts: one instance claims each, once) and fires one alert for each through the pipeline. It runs as a
 * periodic job on the durable queue (engine/jobs/periodic.ts), like the check scheduler, at the checks' cadence.
 * An alert is fired after its claim commits: an instance that dies in between loses that one alert (the heartbeat
 * stays `down`; its next ping marks it up and sends a resolve with nothing to resolve), the price of never firing twice.
 */
import { periodicPass } from '../../engine/jobs/periodic.ts';
import type { JobHandler } from '../../engine/jobs/types.ts';
import { readStore } from '../../engine/operations/context.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import heartbeats from '../../resources/heartbeats.ts';
import type { AlertFacts } from '../checks/alerts.ts';
import { feed } from '../checks/scheduler.ts';
import { heartbeatFacts } from './alerts.ts';
import { claimMissed, syncDeadlines } from './deadlines.ts';
import { takeRemovals } from './removals.ts';

export const HEARTBEAT_SWEEP_QUEUE = 'heartbeats.sweep';
/** heartbeats claimed per statement; a pass claims until none is left */
const CLAIM_LIMIT = 100;
/** seconds between passes when the deployment does not say (the checks' default cadence) */
export const SWEEP_SECONDS = 5;

/** The family's table. */
export function heartbeatTable(services: Services): string {
  return tableName(services.registry.family(heartbeats));
}

/** One sweep with the injected clock's "now": the ids of the heartbeats it fired. Tests call it directly. */
export async function sweepHeartbeats(services: Services): Promise<string[]> {
  const table = heartbeatTable(services);
  const sql = readStore(services).execute;
  const now = services.clock.now();
  await syncDeadlines(sql, table);
  await resolveRemoved(services, sql, now);
  const fired: string[] = [];
  for (;;) {
    const missed = await claimMissed(sql, table, now, CLAIM_LIMIT);
    for (const row of missed) {
      try {
        await feed(services, row.organization_id, heartbeatFacts(row), 'firing', now);
        fired.push(row.id);
      } catch (error) {
        // one heartbeat's failure must not stop the others; the class only (a driver message can quote values)
        if (!services.outage.noted(error)) services.log.warn({ heartbeat: row.id, error: error instanceof Error ? error.constructor.name : 'error' }, 'heartbeat alert not raised');
      }
    }
    if (missed.length < CLAIM_LIMIT) return fired;
  }
}

/** Resolves the alerts of heartbeats deleted since the last sweep (removals.ts). */
async function resolveRemoved(services: Services, sql: Sql, now: Date): Promise<void> {
  for (;;) {
    const removed = await takeRemovals(sql, CLAIM_LIMIT);
    for (const r of removed) {
      const facts: AlertFacts = { kind: 'heartbeat', checkId: r.heartbeat_id, title: 'heartbeat removed', severity: 'info', summary: null, service: null, labels: {} };
      try {
        await feed(services, r.organization_id, facts, 'resolved', now);
      } catch (error) {
        if (!services.outage.noted(error)) services.log.warn({ heartbeat: r.heartbeat_id, error: error instanceof Error ? error.constructor.name : 'error' }, 'alert of a removed heartbeat not resolved');
      }
    }
    if (removed.length < CLAIM_LIMIT) return;
  }
}

const sweep = periodicPass(HEARTBEAT_SWEEP_QUEUE, SWEEP_SECONDS, (services) => sweepHeartbeats(services));

export const heartbeatSweepJob: JobHandler = sweep.job;

/**
 * The module's start-up hook: seeds the sweep's chain at the checks' cadence (`VIGIL_CHECK_TICK_SECONDS`; 0: no
 * passes, tests sweep by hand).
 */
export function heartbeatSweeper(services: Services): Promise<void> {
  return sweep.seed(services, services.config.checks?.tickSeconds ?? SWEEP_SECONDS);
}
