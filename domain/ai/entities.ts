/**
 * The AI side's own table: notifications the service raises for an organization's people (for now the monthly
 * AI budget warning), read through `list_notifications`. `dedup_key` makes "once per …" race-safe: the budget
 * warning's key is the organization's calendar month (`2026-03`), so two calls crossing the threshold at once
 * record one. (The spend ledger, `ai_spend`, and the investigations live with the alert tables.)
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time } from '../../engine/persistence/columns.ts';

export const NotificationEntity = new EntitySchema<any>({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order, so rows of the same instant still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** ai_budget_warning */
    kind: text,
    dedup_key: text,
    message: text,
    detail: { type: 'json', columnType: 'jsonb' },
    created_at: time,
  },
  uniques: [{ properties: ['organization_id', 'kind', 'dedup_key'] }],
  indexes: [{ properties: ['organization_id', 'seq'] }],
});

export const AI_ENTITIES: EntitySchema[] = [NotificationEntity];
