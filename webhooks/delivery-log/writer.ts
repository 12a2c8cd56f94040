/**
 * Writes the delivery log, batched, and keeps it bounded: the payload for 7 days, the row for 30 days (old rows
 * are pruned while writing, at most once every 10 minutes per process).
 */
import { randomUUID } from 'node:crypto';
import { loggedError } from '../../engine/logger.ts';
import type { Services } from '../../engine/services.ts';
import { prepared, sqlExecutor } from '../../engine/persistence/sql.ts';

export const PAYLOAD_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const ROW_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

export interface Delivery {
  organizationId: string;
  source: string;
  receivedAt: Date;
  status: number;
  outcome: string;
  detail?: string;
  size: number;
  headers: Record<string, string>;
  payload: unknown;
}

const COLUMNS = '(id, organization_id, source, received_at, status, outcome, detail, size, headers, payload)';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::json)';

const rowParams = (d: Delivery) => [
  randomUUID(), d.organizationId, d.source, d.receivedAt, d.status, d.outcome, d.detail ?? null, d.size,
  JSON.stringify(d.headers), d.payload === null || d.payload === undefined ? null : JSON.stringify(d.payload),
];

export interface DeliveryLog {
  /** resolves once the row is committed */
  record(delivery: Delivery): Promise<void>;
}

/**
 * The delivery log's writer, one per router. Rows that arrive while a write is in flight are written together
 * by the next one (one multi-row insert, one commit): no delay when traffic is light, far fewer commits under
 * load. A batch that fails is retried row by row, so one bad row costs only its own entry.
 */
export function deliveryLog(services: Services): DeliveryLog {
  const sql = sqlExecutor(services.db);
  let queue: { delivery: Delivery; done: (error?: unknown) => void }[] = [];
  let writing = false;
  let lastPrune = 0;

  /** Writes a batch; answers each row's failure (undefined when written). */
  const write = async (batch: typeof queue): Promise<unknown[]> => {
    try {
      await sql(prepared(`insert into webhook_deliveries ${COLUMNS} values ${batch.map(() => ROW).join(', ')}`), batch.flatMap((b) => rowParams(b.delivery)));
      return batch.map(() => undefined);
    } catch (error) {
      if (batch.length === 1) return [error];
      const failures: unknown[] = [];
      for (const b of batch) failures.push(...(await write([b])));
      return failures;
    }
  };

  const drain = async () => {
    writing = true;
    while (queue.length) {
      const batch = queue;
      queue = [];
      const failures = await write(batch);
      // pruned before the writers hear back, so what a writer reads next is already pruned
      const now = batch.at(-1)!.delivery.receivedAt;
      if (Math.abs(now.getTime() - lastPrune) >= PRUNE_EVERY_MS) {
        lastPrune = now.getTime();
        await pruneDeliveries(services, now).catch((error: unknown) => services.outage.noted(error) || services.log.error({ err: loggedError(error) }, 'webhook deliveries not pruned'));
      }
      batch.forEach((b, i) => b.done(failures[i]));
    }
    writing = false;
  };

  return {
    record(delivery) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ delivery, done: (error) => (error ? reject(error) : resolve()) });
        if (!writing) void drain();
      });
    },
  };
}

/** Drops payloads older than 7 days and rows older than 30 days. */
export async function pruneDeliveries(services: Services, now: Date): Promise<void> {
  const sql = sqlExecutor(services.db);
  await sql('delete from webhook_deliveries where received_at < ?', [new Date(now.getTime() - ROW_RETENTION_MS)]);
  await sql('update webhook_deliveries set payload = null where payload is not null and received_at < ?', [new Date(now.getTime() - PAYLOAD_RETENTION_MS)]);
}
