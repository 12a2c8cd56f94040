/**
 * One tracker item → its card: the one function behind the issue-tracker and sprint-tracker webhooks, the
 * code-host endpoint's `issues` events and run_ticket_import.
 *
 * 1. The tracker needs an enabled import rule; without one the item is `ignored` and nothing is written.
 * 2. An item not linked yet: when the rule names it (rules.ts) and it is neither removed nor already finished
 *    (done or won't do: closed items are not imported, as run_ticket_import fetches open ones only), a card is
 *    opened in `triage` through the board's `openCard` with the idempotency key `<provider>:<external id>` — so
 *    any number of racing or repeated deliveries make one card, one notification, one chat post — and the link
 *    row is inserted (`on conflict do nothing`: the delivery that inserts it records `tracker_linked` on the card
 *    and asks for the fix when the item carries the fix label). Otherwise `ignored`, with the reason.
 * 3. A linked item: what changed in the tracker since the state last applied (`synced`: title, description,
 *    priority, labels, status) is applied to the card with the board's `updateCard` (its effects and rules), and
 *    nothing else, so a card moved by hand on the board is not pulled back by an unrelated edit. A removed or
 *    deleted item archives the card. An item that no longer matches the rule (a label taken off, moved to another
 *    project) is `ignored` and its card left as it is, still linked: should it match again, the same card picks
 *    up from there; removing it still archives the card (the link says which card it is). An older state than the
 *    one applied (`source_updated_at`: an out-of-order or replayed delivery) is `ignored`. The link's `version` is
 *    compared and set, so of two deliveries only one applies a change; a loser re-reads and finds nothing left.
 */
import { randomUUID } from 'node:crypto';
import type { Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { parseTimestamp } from '../../engine/persistence/store.ts';
import { openCard, updateCard } from '../board/cards.ts';
import { cardUrl } from '../board/publishing.ts';
import { askForFix, recordEffect, type FixOutcome } from './fix.ts';
import { FIX_LABEL, hasLabel, type TrackerItem } from './item.ts';
import { importRule, mismatch } from './rules.ts';

type Json = Record<string, unknown>;

export interface SyncEvent {
  /** `Issue.update`, `jira:issue_updated`, `issues.labeled`, `import` */
  name: string;
  deliveryId?: string | null;
}

export interface SyncResult {
  status: 'ok' | 'ignored';
  /** created, updated, unchanged, archived; or why the item was ignored */
  action?: 'created' | 'updated' | 'unchanged' | 'archived';
  reason?: string;
  card?: { id: string; key: string; url: string; status?: string };
  changed?: string[];
  fix?: FixOutcome;
}

/** The state applied to the card, compared field by field. */
interface Synced {
  title: string;
  description: string | null;
  priority: string | null;
  labels: string[];
  status: string | null;
}

const SYNCED_FIELDS = ['title', 'description', 'priority', 'labels', 'status'] as const;

const parsed = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const asDate = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(parseTimestamp(v) as Date | string));

function snapshot(item: TrackerItem, before?: Synced): Synced {
  return {
    title: item.title,
    description: item.description,
    // a tracker without priorities (GitHub) or a state that maps to no status keeps what was applied
    priority: item.priority ?? before?.priority ?? null,
    labels: item.labels,
    status: item.status ?? before?.status ?? null,
  };
}

function changes(before: Synced, after: Synced): Json {
  const out: Json = {};
  for (const field of SYNCED_FIELDS) {
    if (JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null) && (field !== 'priority' || after.priority !== null) && (field !== 'status' || after.status !== null)) {
      out[field] = after[field];
    }
  }
  return out;
}

const LINK_COLUMNS = 'id, card_id, synced, version, source_updated_at, removed_at';

async function readLink(services: Services, organizationId: string, item: TrackerItem): Promise<Json | undefined> {
  const [row] = await readStore(services).execute(
    `select ${LINK_COLUMNS} from tracker_items where organization_id = ? and provider = ? and external_id = ?`,
    [organizationId, item.provider, item.externalId],
  );
  return row;
}

async function cardOf(services: Services, cardId: string): Promise<SyncResult['card']> {
  const [row] = await readStore(services).execute('select id, key, status from cards where id = ?', [cardId]);
  if (!row) return undefined;
  return { id: String(row.id), key: String(row.key), url: cardUrl(services, String(row.key)), status: String(row.status) };
}

export async function syncItem(services: Services, organization: Organization, item: TrackerItem, event: SyncEvent, now: Date): Promise<SyncResult> {
  const rule = await importRule(services, organization, item.provider);
  if (!rule || !rule.enabled) {
    return { status: 'ignored', reason: `There is no enabled ${item.provider} ticket import rule (ticket_import_rules), so ${item.identifier} is not imported.` };
  }
  const notNamed = mismatch(rule, item);
  for (let attempt = 0; attempt < 20; attempt++) {
    const link = await readLink(services, organization.id, item);
    if (!link) {
      if (item.removed) return { status: 'ignored', reason: `${item.identifier} was removed and no card is linked to it.` };
      if (notNamed) return { status: 'ignored', reason: `${item.identifier} is not imported: ${notNamed}.` };
      if (item.status === 'done' || item.status === 'archived') {
        return { status: 'ignored', reason: `${item.identifier} is already finished (${item.state ?? item.status}); only open items are imported.` };
      }
      const created = await create(services, organization, item, event, now);
      if (created) return created;
      continue; // another delivery linked it a moment ago: keep that card in step instead
    }
    const result = await update(services, organization, item, event, now, link, notNamed);
    if (result) return result;
  }
  throw new Error('the tracker item link kept changing under this delivery');
}

async function create(services: Services, organization: Organization, item: TrackerItem, event: SyncEvent, now: Date): Promise<SyncResult | null> {
  const opened = await openCard(
    services, organization,
    { title: item.title, description: item.description, priority: item.priority ?? 'normal', labels: item.labels },
    `${item.provider}:${item.externalId}`, now,
  );
  const cardId = String(opened.body.id);
  const synced = snapshot(item);
  const linkId = randomUUID();
  const inserted = await readStore(services).execute(
    `insert into tracker_items (id, organization_id, provider, external_id, card_id, identifier, url, synced, version, source_updated_at,
                                last_event, last_delivery_id, last_event_at, removed_at, fix, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, 1, ?, ?, ?, ?, null, null, ?, ?)
     on conflict (organization_id, provider, external_id) do nothing returning id`,
    [linkId, organization.id, item.provider, item.externalId, cardId, item.identifier, item.url, JSON.stringify(synced), item.updatedAt,
      event.name, event.deliveryId ?? null, now, now, now],
  );
  if (!inserted[0]) return null;
  await recordEffect(services, organization.id, cardId, now, 'tracker_linked', { provider: item.provider, identifier: item.identifier, url: item.url, state: item.state });
  const fix = hasLabel(item, FIX_LABEL) ? await askForFix(services, organization, item, cardId, linkId, now) : undefined;
  const body = opened.body as { id: string; key: string; url: string };
  return { status: 'ok', action: 'created', card: { id: body.id, key: body.key, url: body.url, status: 'triage' }, ...(fix ? { fix } : {}) };
}

/** null when another delivery changed the link first (the caller reads it again). */
async function update(services: Services, organization: Organization, item: TrackerItem, event: SyncEvent, now: Date, link: Json, notNamed: string | null): Promise<SyncResult | null> {
  const cardId = String(link.card_id);
  const before = parsed<Synced>(link.synced);
  const version = Number(link.version);
  const appliedAt = asDate(link.source_updated_at);
  const removedAt = asDate(link.removed_at);
  if (item.updatedAt && appliedAt && item.updatedAt.getTime() < appliedAt.getTime()) {
    return { status: 'ignored', reason: `This state of ${item.identifier} is older than the one already applied (an out-of-order or replayed delivery).`, card: await cardOf(services, cardId) };
  }
  if (item.removed && removedAt) return { status: 'ok', action: 'unchanged', card: await cardOf(services, cardId) };
  if (!item.removed && notNamed) {
    return { status: 'ignored', reason: `${item.identifier} no longer matches the import rule (${notNamed}); its card is left as it is.`, card: await cardOf(services, cardId) };
  }

  const after = snapshot(item, before);
  let set: Json;
  if (item.removed) set = { status: 'archived' };
  else {
    set = changes(before, after);
    // an item back from the trash takes its tracker status again, whatever was applied before
    if (removedAt && after.status !== null) set.status = after.status;
  }
  const fixNow = !item.removed && hasLabel(item, FIX_LABEL) && !before.labels.some((l) => l.toLowerCase() === FIX_LABEL);
  if (!item.removed && Object.keys(set).length === 0 && !fixNow && !removedAt) {
    // nothing to apply (a redelivery, an edit of something the card does not hold): note the event, claim nothing
    await readStore(services).execute(
      `update tracker_items set source_updated_at = greatest(source_updated_at, ?), last_event = ?, last_delivery_id = ?, last_event_at = ?, updated_at = ? where id = ?`,
      [item.updatedAt, event.name, event.deliveryId ?? null, now, now, link.id],
    );
    return { status: 'ok', action: 'unchanged', card: await cardOf(services, cardId), changed: [] };
  }
  const next = item.removed ? { ...before, status: 'archived' } : after;
  const claimed = await readStore(services).execute(
    `update tracker_items set synced = ?::jsonb, version = version + 1, identifier = ?, url = coalesce(?, url),
       source_updated_at = greatest(source_updated_at, ?), last_event = ?, last_delivery_id = ?, last_event_at = ?, removed_at = ?, updated_at = ?
     where id = ? and version = ? returning version`,
    [JSON.stringify(next), item.identifier, item.url, item.updatedAt, event.name, event.deliveryId ?? null, now, item.removed ? now : null, now, link.id, version],
  );
  if (!claimed[0]) return null;

  let changed: string[] = [];
  if (Object.keys(set).length > 0) changed = await apply(services, organization, cardId, set, String(link.id), version + 1, now);
  const fix = fixNow ? await askForFix(services, organization, item, cardId, String(link.id), now) : undefined;
  const action = item.removed ? 'archived' : changed.length ? 'updated' : 'unchanged';
  return { status: 'ok', action, card: await cardOf(services, cardId), changed, ...(fix ? { fix } : {}) };
}

/**
 * Applies the changes to the card. Should another delivery have claimed a newer state meanwhile, its card
 * update may have committed before this one: the fields written here are then written again from the newest
 * state, so the card always ends as the link says.
 */
async function apply(services: Services, organization: Organization, cardId: string, set: Json, linkId: string, claimed: number, now: Date): Promise<string[]> {
  const changed = new Set<string>();
  let values = set;
  let version = claimed;
  for (let round = 0; round < 5; round++) {
    try {
      for (const field of (await updateCard(services, organization, cardId, values, now)).changed) changed.add(field);
    } catch (error) {
      // the card cannot be missing (cards are never deleted); a refusal here is a value the board does not take
      if (!(error instanceof ApiError)) throw error;
      services.log.warn({ err: { name: error.name, message: error.message }, card: cardId }, 'tracker sync: the card refused a change');
    }
    const [row] = await readStore(services).execute('select synced, version from tracker_items where id = ?', [linkId]);
    if (!row || Number(row.version) === version) break;
    const latest = parsed<Synced>(row.synced);
    version = Number(row.version);
    values = Object.fromEntries(Object.keys(set).filter((f) => latest[f as keyof Synced] !== null).map((f) => [f, latest[f as keyof Synced]]));
    if (Object.keys(values).length === 0) break;
  }
  return [...changed];
}
