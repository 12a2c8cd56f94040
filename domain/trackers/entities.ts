/**
 * The link between a tracker item (a Linear issue, a Jira issue, a GitHub issue) and the card it keeps in step.
 *
 * One row per organization, tracker and item: `(organization_id, provider, external_id)` is unique, so however
 * many deliveries of one item race, one link holds (the card itself is made once by `openCard` with the
 * deterministic idempotency key `<provider>:<external id>`). `synced` is the item as last applied to the card
 * (title, description, priority, labels, status): a later delivery changes on the card only what changed in the
 * tracker since, so a status someone moved by hand on the board is not undone by an unrelated edit of the title.
 * `version` is bumped by every write; writers compare and set it, so two deliveries never apply the same change
 * twice. `source_updated_at` is the item's own last-change time: an older state (an out-of-order or replayed
 * delivery) is ignored.
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optionalText, optionalTime } from '../../engine/persistence/columns.ts';

export const TrackerItemEntity = new EntitySchema<any>({
  name: 'TrackerItem',
  tableName: 'tracker_items',
  properties: {
    id: { ...uuid, primary: true },
    organization_id: uuid,
    /** issue_tracker, sprint_tracker or code_host (the ticket_import_rules tracker kinds) */
    provider: text,
    /** the tracker's own stable id of the item (Linear issue id, Jira issue id, GitHub issue id) */
    external_id: text,
    card_id: uuid,
    /** what people call the item: ENG-123, OPS-7, owner/repo#12 */
    identifier: text,
    url: optionalText,
    /** the item as last applied to the card: { title, description, priority, labels, status } */
    synced: { type: 'json', columnType: 'jsonb' },
    version: { type: 'integer' },
    source_updated_at: optionalTime,
    /** the latest delivery or import that touched the link: its event name and delivery id */
    last_event: text,
    last_delivery_id: optionalText,
    last_event_at: time,
    /** set when the item was removed or deleted in the tracker (its card archived) */
    removed_at: optionalTime,
    /** the fix asked for by the fix label: { at, outcome: requested | skipped, id?, reason? } */
    fix: { type: 'json', columnType: 'jsonb', nullable: true },
    created_at: time,
    updated_at: time,
  },
  uniques: [{ properties: ['organization_id', 'provider', 'external_id'] }],
  indexes: [{ properties: ['card_id'] }],
});

export const TRACKER_ENTITIES: EntitySchema[] = [TrackerItemEntity];
