/**
 * The ops board's tables: cards, their comments, the effects recorded on them (notification, chat post, …), and
 * one counter row per organization that hands out gapless card numbers.
 *
 * Keys are `<PREFIX>-<number>`. The prefix is chosen once, when the organization's first card is created, from its
 * name (`boardPrefix` in cards.ts) and kept in `board_counters` from then on (renaming the organization does not
 * change existing or later keys). Numbers come from `board_counters.last_number`, incremented with
 * `insert … on conflict do update … returning` inside the card's own transaction: the counter row stays locked
 * until the card commits, so a rolled-back creation gives its number back (no gaps) and two creations never get
 * the same number (no duplicates).
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optionalText } from '../../engine/persistence/columns.ts';

// insertion order, so rows written in the same millisecond still list newest first
const seq = { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true } as const;

export const CardEntity = new EntitySchema<any>({
  name: 'Card',
  tableName: 'cards',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    number: { type: 'integer' },
    /** `<PREFIX>-<number>`, uppercase; matched without regard to case (the lookup upper-cases its input) */
    key: text,
    title: text,
    description: optionalText,
    /** urgent, high, normal or low */
    priority: text,
    labels: { type: 'json', columnType: 'jsonb' },
    service: optionalText,
    assignee_user_id: { ...uuid, nullable: true },
    /** backlog, triage, todo, in_progress, blocked, done, or archived (won't do: not counted as done) */
    status: text,
    archived_at: { ...time, nullable: true },
    /** the idempotency key in effect when the card was created (Idempotency-Key header, dedup_key, or an SNS MessageId) */
    dedup_key: optionalText,
    /** the first answer's body, replayed (with `duplicate: true`) on every repeat of the key */
    answer: { type: 'json', columnType: 'jsonb' },
    created_at: time,
    updated_at: time,
  },
  uniques: [
    { properties: ['organization_id', 'number'] },
    { properties: ['organization_id', 'key'] },
    // NULLs are distinct: cards without a key never collide
    { properties: ['organization_id', 'dedup_key'] },
  ],
  indexes: [{ properties: ['organization_id', 'status'] }, { properties: ['organization_id', 'seq'] }],
});

export const CardCommentEntity = new EntitySchema<any>({
  name: 'CardComment',
  tableName: 'card_comments',
  properties: {
    id: { ...uuid, primary: true },
    seq,
    organization_id: uuid,
    card_id: uuid,
    body: text,
    /** a display name as sent; never matched against members */
    author: optionalText,
    /** the comment's idempotency key (Idempotency-Key header, comment_id, or an SNS MessageId) */
    comment_id: optionalText,
    created_at: time,
  },
  uniques: [{ properties: ['card_id', 'comment_id'] }],
  indexes: [{ properties: ['card_id', 'seq'] }],
});

export const CardEffectEntity = new EntitySchema<any>({
  name: 'CardEffect',
  tableName: 'card_effects',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    card_id: uuid,
    at: time,
    kind: text,
    detail: { type: 'json', columnType: 'jsonb' },
  },
  indexes: [{ properties: ['card_id', 'seq'] }],
});

export const BoardCounterEntity = new EntitySchema<any>({
  name: 'BoardCounter',
  tableName: 'board_counters',
  properties: {
    organization_id: { ...uuid, primary: true },
    prefix: text,
    /** the number of the organization's latest card */
    last_number: { type: 'integer' },
  },
});

export const BOARD_ENTITIES: EntitySchema[] = [CardEntity, CardCommentEntity, CardEffectEntity, BoardCounterEntity];
