/**
 * A status page's email subscribers (`status_page_subscribers`): personal data, so never on a public page or in an
 * answer but the org admins' list. A row is pending until its confirmation link is followed (double opt-in); only
 * the confirmation token's hash is kept, with its end.
 */
import { EntitySchema } from '@mikro-orm/core';
import { optional, optionalText, optionalTime, text, time, uuid } from '../../engine/persistence/columns.ts';

export const StatusPageSubscriberEntity = new EntitySchema<any>({
  name: 'StatusPageSubscriber',
  tableName: 'status_page_subscribers',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order: the admins' list pages newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** lowercased */
    email: text,
    /** null while pending */
    confirmed_at: optionalTime,
    /** sha256 of the pending confirmation token; null once confirmed */
    confirm_hash: optionalText,
    confirm_expires_at: optionalTime,
    /** the last confirmation mail: one per address per RESEND_MINUTES */
    confirmation_sent_at: optional(time),
    created_at: time,
  },
  uniques: [{ properties: ['organization_id', 'email'] }],
  indexes: [{ properties: ['confirm_hash'] }, { properties: ['organization_id', 'seq'] }],
});

export const STATUS_PAGE_ENTITIES: EntitySchema[] = [StatusPageSubscriberEntity];
