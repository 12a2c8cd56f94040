/**
 * The check scheduler: a pass syncs the schedules, claims the due checks (schedule.ts), runs them a few at a
 * time, records each result on its row and feeds the alert pipeline (alerts.ts). Passes run as a job on the
 * durable queue that re-sends itself `tickSeconds` later under one singleton key, so however many instances
 * share the database, one tick is queued at a time; the claim, not the tick, is what keeps a check from
 * running twice (engine/jobs/periodic.ts).
 */
import { loadOrganization } from '../../engine/auth/authenticate.ts';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import type { JobHandler } from '../../engine/jobs/types.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { ingestAlerts } from '../alerts/pipeline.ts';
import { refreshAllSlos } from '../slo/evaluate.ts';
import { alertEvent, nextStreak, type AlertFacts } from './alerts.ts';
import { CHECK_DEFAULTS, resolveCheckOptions, type CheckOptions, type ResolvedCheckOptions } from './options.ts';
import { runCertificate, runSynthetic, type RunOutcome } from './runs.ts';
import { claimDue, retrySooner, saveStreak, syncSchedules, type CheckKind, type Claimed, type KindTable } from './schedule.ts';
import syntheticChecks from '../../resources/synthetic_checks.ts';
import certificateMonitors from '../../resources/certificate_monitors.ts';

export const CHECK_TICK_QUEUE = 'checks.tick';
/** checks claimed per kind and pass, and run at the same time */
const CLAIM_LIMIT = 100;
const PARALLEL = 8;

/** Each instance's options, set by its start-up hook (the job handler is shared by every instance of the process). */
const optionsOf = new WeakMap<Services, ResolvedCheckOptions>();

function kinds(services: Services): KindTable[] {
  return [
    {
      kind: 'synthetic', table: tableName(services.registry.family(syntheticChecks)),
      columns: ['name', 'url', 'method', 'expected_status', 'body_contains', 'timeout_ms', 'headers', 'service'],
      nextRun: '?::timestamptz + make_interval(secs => coalesce(c.interval_seconds, 60))',
    },
    { kind: 'certificate', table: tableName(services.registry.family(certificateMonitors)), columns: ['host', 'port', 'sni', 'warn_days'], nextRun: `?::timestamptz + interval '1 day'` },
  ];
}

export interface PassReport {
  ran: { kind: CheckKind; id: string; failing: boolean; sent: 'firing' | 'resolved' | null }[];
}

/** One scheduling pass with the injected clock's "now". Tests call it directly to run due checks at once. */
export async function runSchedulingPass(services: Services, options?: CheckOptions): Promise<PassReport> {
  const resolved = options ? resolveCheckOptions(options) : (optionsOf.get(services) ?? resolveCheckOptions());
  const sql = readStore(services).execute;
  const report: PassReport = { ran: [] };
  for (const k of kinds(services)) {
    const now = services.clock.now();
    for (const gone of await syncSchedules(sql, k, now)) {
      // a deleted or disabled check no longer runs, so nothing else would resolve its alert
      const facts: AlertFacts = { kind: k.kind, checkId: gone.check_id, title: 'check removed or disabled', severity: 'info', summary: null, service: null, labels: {} };
      await feed(services, gone.organization_id, facts, 'resolved', now);
      await saveStreak(sql, k.kind, gone.organization_id, gone.check_id, 0, false);
    }
    const claimed = await claimDue(sql, k, now, CLAIM_LIMIT);
    await inBatches(claimed, PARALLEL, async (c) => {
      try {
        const outcome: RunOutcome = k.kind === 'synthetic' ? await runSynthetic(services, sql, k.table, c, resolved, now) : await runCertificate(services, sql, k.table, c, resolved, now);
        if (outcome.retryAt) await retrySooner(sql, k.kind, c.organization_id, c.check_id, outcome.retryAt);
        report.ran.push({ kind: k.kind, id: c.check_id, failing: outcome.verdict.failing, sent: await settle(services, c, outcome, resolved, now) });
      } catch (error) {
        // one broken check must not stop the others; the message holds no secret (driver errors are reduced to their class)
        if (!services.outage.noted(error)) services.log.warn({ kind: k.kind, check: c.check_id, error: error instanceof Error ? error.constructor.name : 'error' }, 'check run failed');
      }
    });
  }
  // windows slide past old runs even when none arrives: SLO status follows every pass
  await refreshAllSlos(services).catch((error: unknown) => services.outage.noted(error) || services.log.warn({ error: error instanceof Error ? error.constructor.name : 'error' }, 'SLO status not refreshed'));
  return report;
}

/** The streak after this run, and the alert event it calls for; the streak is saved once the pipeline took the event. */
async function settle(services: Services, c: Claimed, outcome: RunOutcome, options: ResolvedCheckOptions, now: Date): Promise<'firing' | 'resolved' | null> {
  const next = nextStreak({ failures: c.consecutive_failures, alerting: c.alerting }, outcome.verdict, options.failuresToAlert);
  if (next.send) await feed(services, c.organization_id, outcome.facts, next.send, now);
  await saveStreak(readStore(services).execute, outcome.facts.kind, c.organization_id, c.check_id, next.failures, next.alerting);
  return next.send;
}

/** Hands one internal alert event to the pipeline (the heartbeat sweep and pings use it too). */
export async function feed(services: Services, organizationId: string, facts: AlertFacts, status: 'firing' | 'resolved', now: Date): Promise<void> {
  const organization = await loadOrganization(services.db, organizationId);
  if (!organization) return;
  await ingestAlerts(services, organization, [alertEvent(facts, status, now)], now);
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

const scheduler = periodicPass(CHECK_TICK_QUEUE, CHECK_DEFAULTS.tickSeconds, (services) => runSchedulingPass(services));

/** The tick's job handler (its module.ts hands it to serve). */
export const checkTickJob: JobHandler = scheduler.job;

/** The checks module's start-up hook (`onStart`): records this instance's options (`config.checks`) and seeds the tick chain. */
export async function checkScheduler(services: Services): Promise<void> {
  const resolved = resolveCheckOptions(services.config.checks);
  optionsOf.set(services, resolved);
  await scheduler.seed(services, resolved.tickSeconds);
}
