/**
 * The scheduler's own state per check (kept off the family rows, whose columns are the descriptor's): when it is
 * next due, which configuration version it last saw (a change makes it due at once), and the failure streak
 * that decides when its alert fires. `next_run_at` is what instances claim with `FOR UPDATE SKIP LOCKED`.
 */
import { EntitySchema } from '@mikro-orm/core';

export const CheckScheduleEntity = new EntitySchema<any>({
  name: 'CheckSchedule',
  tableName: 'check_schedules',
  properties: {
    /** synthetic or certificate */
    kind: { type: 'string', columnType: 'text', primary: true },
    // family rows are keyed by organization and id
    organization_id: { type: 'string', columnType: 'uuid', primary: true },
    /** the synthetic check's or certificate monitor's id */
    check_id: { type: 'string', columnType: 'text', primary: true },
    next_run_at: { type: 'Date', columnType: 'timestamptz', index: true },
    /** the row_version of the configuration last scheduled */
    seen_version: { type: 'integer' },
    consecutive_failures: { type: 'integer', default: 0 },
    /** whether a firing event was sent and no resolve since */
    alerting: { type: 'boolean', default: false },
  },
});

export const CHECK_ENTITIES = [CheckScheduleEntity];
