/**
 * The delivery log's table: every request to a valid webhook token is recorded (source, time, the status answered,
 * an outcome such as `created`, `muted`, `refused: signature`, the size), so a user can see why an alert did or
 * did not page. What is kept of a request is scrub.ts's to decide, writing and pruning writer.ts's, reading it
 * tool.ts's. The URL (which holds the token) is never stored.
 */
import { EntitySchema } from '@mikro-orm/core';

export const WebhookDeliveryEntity = new EntitySchema<any>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: { type: 'string', columnType: 'uuid', primary: true },
    // insertion order, so deliveries received in the same millisecond still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: { type: 'string', columnType: 'uuid' },
    source: { type: 'string', columnType: 'text' },
    received_at: { type: 'Date', columnType: 'timestamptz' },
    status: { type: 'integer' },
    outcome: { type: 'string', columnType: 'text' },
    detail: { type: 'string', columnType: 'text', nullable: true },
    size: { type: 'integer' },
    headers: { type: 'json', columnType: 'jsonb' },
    // json, not jsonb: kept as written, never queried into, and cheaper to store on every delivery
    payload: { type: 'json', columnType: 'json', nullable: true },
  },
  indexes: [{ properties: ['organization_id', 'seq'] }, { properties: ['received_at'] }],
});
