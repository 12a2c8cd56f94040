/**
 * The email notifier's table: one row per event mailed (`email_notices`), kept after it is sent as the record of
 * what went out, when, and after how many attempts (outbound/email).
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optional } from '../../engine/persistence/columns.ts';

export const EmailNoticeEntity = new EntitySchema<any>({
  name: 'EmailNotice',
  tableName: 'email_notices',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order: a digest lists its events in the order they happened
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    event_id: uuid,
    event_type: text,
    /** what the event is about (an alert, incident, card, deployment or fix request id) */
    subject_id: optional(text),
    /** the event's envelope as JSON text (outbound/events.ts) */
    payload: text,
    created_at: time,
    /** not sent before: now, the next digest time, or the end of quiet hours; a failed try moves it on */
    send_after: time,
    /** held for a digest or by quiet hours: mailed together with every other such notice due; otherwise alone */
    batched: { type: 'boolean', default: false },
    /** pending, sending (claimed by `claim_id`), sent or failed */
    status: text,
    /** the send that claimed it; only that send may mark it */
    claim_id: optional(uuid),
    claimed_at: optional(time),
    sent_at: optional(time),
    attempts: { type: 'integer', default: 0 },
    /** why the last try failed, without the SMTP URL's credentials */
    last_error: optional(text),
  },
  // (organization_id, seq): list_email_notices pages newest first
  indexes: [{ properties: ['status', 'send_after'] }, { properties: ['organization_id', 'status', 'send_after'] }, { properties: ['organization_id', 'seq'] }],
});

export const EMAIL_ENTITIES: EntitySchema[] = [EmailNoticeEntity];
