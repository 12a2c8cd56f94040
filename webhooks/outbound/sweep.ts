/**
 * Housekeeping of outbound deliveries, run by the periodic pass (webhooks/notify/tick.ts) with the injected clock:
 *
 * - rescue: a delivery that is not settled (pending, sending, retrying), whose row has not changed for
 *   `STALE_MINUTES` and whose job has ended gets a new job. That happens when a job's own retries ran out before it
 *   could record its attempt (the database failed each time, or its instance died on every try). A `sending`
 *   delivery counts the interrupted attempt as failed, on the normal schedule: it may have reached the receiver
 *   (which de-duplicates by webhook-id), and a delivery that always kills its worker still ends `dead`.
 * - prune: settled deliveries (delivered, dead, cancelled) last changed more than `RETENTION_DAYS` ago are deleted
 *   with their attempts, at most `PRUNE_BATCH` per pass.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/operations/types.ts';
import { claimDelivery, recordAttempt } from './deliver.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './publish.ts';

export const STALE_MINUTES = 15;
export const RETENTION_DAYS = 30;
const RESCUE_BATCH = 100;
const PRUNE_BATCH = 5000;
const MINUTE = 60_000;

export interface SweepReport {
  rescued: string[];
  pruned: number;
}

async function rescue(services: Services, now: Date): Promise<string[]> {
  if (!services.jobs?.queues.includes(OUTBOUND_QUEUE)) return [];
  const stale = await readStore(services).execute(
    `select id, job_id, status, organization_id, config_id from outbound_deliveries
      where status in ('pending', 'sending', 'retrying') and updated_at < ? and coalesce(next_attempt_at, updated_at) < ?
      order by updated_at limit ${RESCUE_BATCH}`,
    [new Date(now.getTime() - STALE_MINUTES * MINUTE), new Date(now.getTime() - STALE_MINUTES * MINUTE)],
  );
  if (stale.length === 0) return [];
  const ended = await services.jobs.ended(OUTBOUND_QUEUE, stale.filter((r) => r.job_id).map((r) => String(r.job_id)));
  const rescued: string[] = [];
  for (const row of stale) {
    const id = String(row.id);
    const oldJob = row.job_id ? String(row.job_id) : null;
    if (oldJob && !ended.has(oldJob)) continue;
    if (row.status === 'sending' && oldJob) {
      // the interrupted attempt, recorded as the job would have (which also queues the next try, or ends it dead)
      const claimed = await claimDelivery(services, id, oldJob, now);
      if (!claimed) continue;
      await recordAttempt(services, id, oldJob, claimed, { outcome: 'failed', statusCode: null, latencyMs: null, error: 'the attempt was interrupted (its worker stopped before recording an answer)', response: null, permanent: false }, now);
    } else {
      const jobId = randomUUID();
      const moved = await inTransaction(services, async (store) => {
        const [updated] = await store.execute(
          `update outbound_deliveries set job_id = ?, updated_at = ? where id = ? and job_id is not distinct from ? and status in ('pending', 'retrying') returning id`,
          [jobId, now, id, oldJob],
        );
        if (!updated) return false;
        await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: id }, { store, id: jobId, group: destinationGroup(String(row.organization_id), String(row.config_id)) });
        return true;
      });
      if (!moved) continue;
    }
    services.log.warn({ delivery_id: id, status: row.status }, 'outbound delivery rescued: its job had ended');
    rescued.push(id);
  }
  return rescued;
}

async function prune(services: Services, now: Date): Promise<number> {
  const [row] = await readStore(services).execute(
    `with gone as (
       delete from outbound_deliveries where id in (
         select id from outbound_deliveries where status in ('delivered', 'dead', 'cancelled') and updated_at < ? order by updated_at limit ${PRUNE_BATCH})
       returning id),
     attempts as (delete from outbound_delivery_attempts where delivery_id in (select id from gone) returning 1)
     select (select count(*) from gone) as deliveries`,
    [new Date(now.getTime() - RETENTION_DAYS * 24 * 60 * MINUTE)],
  );
  return Number(row?.deliveries ?? 0);
}

export async function sweepDeliveries(services: Services, now: Date): Promise<SweepReport> {
  return { rescued: await rescue(services, now), pruned: await prune(services, now) };
}
