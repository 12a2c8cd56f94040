/**
 * Housekeeping of outbound deliveries, run by the periodic pass (outbound/tick.ts) with the injected clock:
 *
 * - rescue (orphans.ts): a delivery whose job ended before it settled gets a new job; a `sending` one counts
 *   the interrupted attempt as failed, on the normal schedule: it may have reached the receiver (which
 *   de-duplicates by webhook-id), and a delivery that always kills its worker still ends `dead`.
 * - prune: settled deliveries (delivered, dead, cancelled) last changed more than `RETENTION_DAYS` ago are deleted
 *   with their attempts, at most `PRUNE_BATCH` per pass.
 */
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { claimDelivery, recordAttempt } from './deliver.ts';
import { INTERRUPTED, rescueOrphans, type OrphanKind } from './orphans.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './queue.ts';

export const RETENTION_DAYS = 30;
const PRUNE_BATCH = 5000;
const MINUTE = 60_000;

export interface SweepReport {
  rescued: string[];
  pruned: number;
}

export const DELIVERY_ORPHANS: OrphanKind = {
  table: 'outbound_deliveries',
  queue: OUTBOUND_QUEUE,
  unsettled: ['sending', 'pending', 'retrying'],
  job: (row) => ({ data: { delivery_id: String(row.id) }, group: destinationGroup(String(row.organization_id), String(row.config_id)) }),
  async interrupted(services, id, jobId, now) {
    const claimed = await claimDelivery(services, id, jobId, now);
    if (claimed) await recordAttempt(services, id, jobId, claimed, { outcome: 'failed', statusCode: null, latencyMs: null, error: INTERRUPTED, response: null, permanent: false }, now);
  },
};

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
  return { rescued: await rescueOrphans(services, DELIVERY_ORPHANS, now), pruned: await prune(services, now) };
}
