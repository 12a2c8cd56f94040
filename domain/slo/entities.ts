/**
 * `synthetic_results`: one row per run of a synthetic check, written by the check runner (domain/checks),
 * read by SLO evaluation (availability = share of ok runs; latency = share of runs answered within the SLI's
 * threshold). Kept apart from the check's row, whose `last_*` fields show only the latest run.
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid } from '../../engine/persistence/columns.ts';

export const SyntheticResultEntity = new EntitySchema<any>({
  name: 'SyntheticResult',
  tableName: 'synthetic_results',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    check_id: uuid,
    at: { type: 'Date', columnType: 'timestamptz' },
    ok: { type: 'boolean' },
    /** null when no answer arrived (timeout, refused connection) */
    latency_ms: { type: 'integer', nullable: true },
    status_code: { type: 'integer', nullable: true },
    error: { type: 'string', columnType: 'text', nullable: true },
  },
  // SLO windows scan one check's runs by time
  indexes: [{ properties: ['organization_id', 'check_id', 'at'] }],
});

export const SLO_ENTITIES: EntitySchema[] = [SyntheticResultEntity];
