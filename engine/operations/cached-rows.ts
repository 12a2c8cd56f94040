/**
 * The rows of a `cachedRows` family that other writes consult, kept per organization in this process
 * (`services.rows`): a write that asks whether a rule concerns it costs no query. Every committed write of the
 * family clears them (write.ts), here and on the other instances (persistence/shared-clears.ts).
 */
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import type { Services } from '../services.ts';
import { inBatchNow, readStore } from './context.ts';

export async function cachedRows(services: Services, d: FamilyDescriptor, organizationId: string): Promise<Row[]> {
  const key = `${d.name}:${organizationId}`;
  // inside a batch the rows read are the batch's, not yet committed: read them, keep nothing
  const batch = inBatchNow(services);
  const held = batch ? undefined : services.rows.get(key);
  if (held) return held;
  const generation = services.rows.generation;
  const rows = await readStore(services).list(d, organizationId);
  if (!batch) services.rows.set(key, rows, generation);
  return rows;
}
