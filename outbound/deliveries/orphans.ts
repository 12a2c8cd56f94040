/**
 * Rows worked by a job of their own (an outbound delivery, a chat message) name the job that makes their next
 * attempt (`job_id`). When that job ends without settling its row — its own retries ran out before it could record
 * an answer (the database failed each time, its instance died on every try) — the row would wait for ever. The
 * periodic pass (outbound/tick.ts) finds such orphans: not settled, unchanged for `STALE_MINUTES`, their
 * job ended (jobs.ended). One that was `sending` counts the interrupted attempt as a failed one through its kind's
 * own recorder (which queues the next try or gives up, so a row that always kills its worker still ends); any other
 * gets a new job by compare-and-set on its old one.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';

export const STALE_MINUTES = 15;
const BATCH = 100;
const MINUTE = 60_000;
export const INTERRUPTED = 'the attempt was interrupted (its worker stopped before recording an answer)';

export interface OrphanKind {
  table: string;
  queue: string;
  /** statuses waiting for a job (the first is `sending`: an attempt was under way) */
  unsettled: readonly ['sending', ...string[]];
  /** the job's data and group for a row */
  job(row: Record<string, unknown>): { data: object; group: string };
  /** records the interrupted attempt of a `sending` row as failed, as its job would have */
  interrupted(services: Services, id: string, jobId: string, now: Date): Promise<void>;
}

export async function rescueOrphans(services: Services, kind: OrphanKind, now: Date): Promise<string[]> {
  if (!services.jobs?.queues.includes(kind.queue)) return [];
  const stale = new Date(now.getTime() - STALE_MINUTES * MINUTE);
  const statuses = kind.unsettled.map(() => '?').join(', ');
  const rows = await readStore(services).execute(
    `select * from ${kind.table} where status in (${statuses}) and job_id is not null and updated_at < ? and coalesce(next_attempt_at, updated_at) < ?
      order by updated_at limit ${BATCH}`,
    [...kind.unsettled, stale, stale],
  );
  if (rows.length === 0) return [];
  const ended = await services.jobs.ended(kind.queue, rows.map((r) => String(r.job_id)));
  const rescued: string[] = [];
  for (const row of rows) {
    const id = String(row.id);
    const oldJob = String(row.job_id);
    if (!ended.has(oldJob)) continue;
    if (row.status === 'sending') {
      await kind.interrupted(services, id, oldJob, now);
    } else {
      const jobId = randomUUID();
      const { data, group } = kind.job(row);
      const moved = await inTransaction(services, async (store) => {
        const [updated] = await store.execute(`update ${kind.table} set job_id = ?, updated_at = ? where id = ? and job_id = ? and status = ? returning id`, [jobId, now, id, oldJob, row.status]);
        if (updated) await services.jobs.send(kind.queue, data, { store, id: jobId, group });
        return Boolean(updated);
      });
      if (!moved) continue;
    }
    services.log.warn({ table: kind.table, id, status: row.status }, 'rescued a row whose job had ended');
    rescued.push(id);
  }
  return rescued;
}
