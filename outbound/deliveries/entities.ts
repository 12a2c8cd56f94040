/**
 * Outbound deliveries: one row per event and outbound config (`outbound_deliveries`, its `id` is the
 * `webhook-id` a receiver de-duplicates by), and one row per attempt to send it (`outbound_delivery_attempts`:
 * status code, latency, error, when the next try is due).
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optional } from '../../engine/persistence/columns.ts';

export const OutboundDeliveryEntity = new EntitySchema<any>({
  name: 'OutboundDelivery',
  tableName: 'outbound_deliveries',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order, so deliveries made in the same millisecond still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** the event's id (the envelope's `id`): one event sent to two configs is two deliveries of one event */
    event_id: uuid,
    event_type: text,
    /** what the event is about (an alert, incident, card, deployment or fix request id) */
    subject_id: optional(text),
    config_id: text,
    /** the outbound rules that chose this config for the event */
    rule_ids: { type: 'json', columnType: 'jsonb' },
    /** the envelope as JSON text, exactly the bytes a `webhook` config receives and the signature covers */
    payload: text,
    /** pending, sending, retrying, delivered, dead or cancelled (deliver.ts) */
    status: text,
    attempts: { type: 'integer', default: 0 },
    /** attempts made before the current round of the retry schedule (a redelivery starts a new round) */
    round_offset: { type: 'integer', default: 0 },
    /** the job that will make the next attempt; a job that is not this one does nothing (redeliver replaces it) */
    job_id: optional(uuid),
    next_attempt_at: optional(time),
    last_status_code: optional({ type: 'integer' }),
    last_error: optional(text),
    last_latency_ms: optional({ type: 'integer' }),
    created_at: time,
    updated_at: time,
    delivered_at: optional(time),
  },
  indexes: [{ properties: ['organization_id', 'seq'] }, { properties: ['organization_id', 'config_id', 'seq'] }, { properties: ['created_at'] }],
});

export const OutboundAttemptEntity = new EntitySchema<any>({
  name: 'OutboundAttempt',
  tableName: 'outbound_delivery_attempts',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    delivery_id: uuid,
    /** 1 for the first try; a redelivery continues the count */
    attempt: { type: 'integer' },
    started_at: time,
    /** the receiver's HTTP status, null when no answer came (timeout, refused, connection failed) */
    status_code: optional({ type: 'integer' }),
    latency_ms: optional({ type: 'integer' }),
    error: optional(text),
    /** the start of the receiver's answer (at most 500 characters), for a failed attempt */
    response: optional(text),
    /** delivered, failed (tried again at next_attempt_at), dead (the last try failed) or cancelled */
    outcome: text,
    next_attempt_at: optional(time),
  },
  indexes: [{ properties: ['delivery_id', 'seq'] }],
});

export const OUTBOUND_ENTITIES: EntitySchema[] = [OutboundDeliveryEntity, OutboundAttemptEntity];
