/**
 * The ops board's operations: open, update, comment, list, get. The tickets webhook (handler.ts) and the agent
 * tools (tools.ts) both go through these functions, so one set of rules holds whoever writes.
 *
 * Rules (the spec's, and the decisions where it is silent; README section in /tmp/readme-board.md):
 * - Open: `title` required (1..500 characters after trimming); `description` ≤ 60,000; `priority` urgent, high,
 *   normal or low (case-insensitive) and anything else — another word, a number, null — becomes `normal` (the
 *   spec; a sender's own scale such as `P1` must not lose the card); `labels` an array of at most 50 strings of
 *   1..100 characters (duplicates dropped); `service` ≤ 200; `assignee_email` assigns the member whose email it
 *   is (case-insensitive) and never invites: an email that matches no member leaves the card unassigned, recorded
 *   as an `assignment_skipped` effect (the 201 body is the spec's and carries no notice). `status`, `source`,
 *   `author` and unknown fields are ignored; the card lands in `triage` with no author. A new card records a
 *   `notification` and a `chat_post` effect in its own transaction.
 * - Update: by id or key (key case-insensitive, within the organization; any other organization's card is the same
 *   404 as a missing one). Fields: title, description, priority, labels (replaces the list), service,
 *   assignee_email, status; null or "" clears description, service and assignee. Unknown `priority` or `status`
 *   is 422, never guessed: an update is a deliberate edit of a value someone may have set by hand, so guessing
 *   would overwrite it silently, while on create there is nothing to overwrite and refusing would lose the card.
 *   An `assignee_email` that matches no member is 422 (`assignee_email`): the edit asked for something that
 *   cannot happen, and dropping it silently would report success. A body naming no updatable field is 422
 *   (`body`). A status update on an archived card brings it back (the spec's table: "any" state → the given
 *   status).
 * - Comment: `body` required (1..60,000); `author` a display name (≤ 200), never matched against members.
 *   Accepted on every card, done and archived included: a comment is history (a post-mortem note on a done
 *   card, a reason on a won't-do one) and refusing it would only make the sender retry; it changes no status.
 * - Idempotency keys (cards: Idempotency-Key header > body `dedup_key` > SNS MessageId; comments: header >
 *   `comment_id` > MessageId): 1..200 characters, letters, digits and `. _ - : / + = @`; else 422. Scoped to the
 *   organization (comments: to the card) and never expiring. A repeat answers 200 with the first answer's body
 *   and `duplicate: true` and changes nothing, whatever else the repeat's body says.
 *
 * Concurrency: creations are written by card-writer.ts, batched per organization under the organization's counter
 * row lock, which is held until the cards commit; keys are looked up under that lock, so of two racing deliveries
 * of one key the second answers the first's card. Numbers are gapless and distinct; one key makes one card, one
 * notification and one chat post. Comments rely on their unique
 * (card_id, comment_id) with `on conflict do nothing`.
 *
 * This file holds the operations; what a write accepts is inputs.ts's, the words vocabulary.ts's, the SQL
 * store.ts's, audit entries audit.ts's and card.updated publishing.ts's.
 */
import { randomUUID } from 'node:crypto';
import type { Caller, Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import type { Change } from '../../engine/operations/audit-entry.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { FEATURES, hasFeature } from '../../engine/plans.ts';
import { iso } from '../../engine/persistence/store.ts';
import { MembershipEntity, UserEntity } from '../../engine/persistence/entities.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { recordPage } from '../../engine/operations/record-list.ts';
import { auditComment, auditCardUpdate } from './audit.ts';
import { cardWriter, type NewCard } from './card-writer.ts';
import { clean, commentFields, openFields, refused, updateFields } from './inputs.ts';
import { cardUrl, publishCardUpdated } from './publishing.ts';
import {
  answerOfKey, cardHistory, cardIdOf, cardWhere, commentOfKey, insertComment, insertEffects, lockCard, memberByEmail, parsedJson, selectCard,
  CARD_LIST, cardFilters, updateCardRow,
} from './store.ts';
import { boardPrefix, CARD_STATUSES, priorityOf, statusOf, type CardStatus } from './vocabulary.ts';

type Json = Record<string, unknown>;
const has = (obj: Json, key: string) => Object.hasOwn(obj, key) && obj[key] !== undefined;

export const CARD_NOT_FOUND = 'No card with that id or key is on this board.';
const notFound = () => new ApiError('not_found', CARD_NOT_FOUND);

/** 403 when the organization's plan (or the operator's override) does not include the ops board. */
export function requireBoard(organization: Organization): void {
  if (hasFeature(organization.plan, organization.features, 'ops_board')) return;
  throw new ApiError('plan_required', `The ops board is not included in the ${organization.plan} plan; upgrade to team or above to open cards.`, {
    extra: { feature: 'ops_board' satisfies keyof typeof FEATURES },
  });
}

// ——— open ———

export interface OpenResult {
  status: 201 | 200;
  body: Json;
  duplicate: boolean;
  /** what the sender may want to know and the 201 body does not say (for the delivery log) */
  notices: string[];
}

const repeat = (answer: unknown): OpenResult => ({ status: 200, body: { ...parsedJson(answer), duplicate: true }, duplicate: true, notices: [] });

export async function openCard(services: Services, organization: Organization, input: Json, key: string | null, now: Date): Promise<OpenResult> {
  requireBoard(organization);
  let card: { card: NewCard; notices: string[] };
  try {
    card = await newCard(services, organization, input, key, now);
  } catch (error) {
    // a repeat answers the first answer whatever else its body says, a body that would be refused included
    const existing = key === null ? undefined : await answerOfKey(readStore(services).execute, organization.id, key);
    if (existing !== undefined) return repeat(existing);
    throw error;
  }
  const written = await cardWriter(services).create(card.card);
  return written.created ? { status: 201, body: written.answer, duplicate: false, notices: card.notices } : repeat(written.answer);
}

/** The card a creation asks for, validated; notices say what the 201 body will not. */
async function newCard(services: Services, organization: Organization, input: Json, key: string | null, now: Date): Promise<{ card: NewCard; notices: string[] }> {
  const notices: string[] = [];
  const fields = openFields(input);
  let priority = priorityOf(input.priority);
  if (!priority) {
    if (has(input, 'priority') && input.priority !== null) notices.push('priority is not urgent, high, normal or low: set to normal');
    priority = 'normal';
  }
  const email = fields.assignee_email;
  const assignee = email ? await memberByEmail(readStore(services).execute, organization.id, email) : null;
  if (email && !assignee) notices.push('assignee_email matches no member of the organization: the card is unassigned (no one is invited)');
  const id = randomUUID();
  const card: NewCard = {
    id,
    organizationId: organization.id,
    prefix: boardPrefix(organization.name),
    key,
    title: fields.title,
    description: fields.description,
    priority,
    labels: fields.labels,
    service: fields.service,
    assigneeUserId: assignee,
    now,
    extraEffects: email && !assignee ? [['assignment_skipped', { reason: 'no member has this email', email }]] : [],
    answer: (cardKey) => ({ id, key: cardKey, url: cardUrl(services, cardKey), dedup_key: key, duplicate: false }),
  };
  return { card, notices };
}

// ——— update ———

export interface UpdateResult {
  body: { id: string; key: string; status: CardStatus; url: string };
  changed: string[];
}

export async function updateCard(services: Services, organization: Organization, ref: string, input: Json, now: Date, caller?: Caller): Promise<UpdateResult> {
  requireBoard(organization);
  const orgId = organization.id;
  const { assignee_email: email, ...fields } = updateFields(input);
  const set: Json = { ...fields };
  if (email !== undefined) {
    if (email === null) set.assignee_user_id = null;
    else {
      const user = await memberByEmail(readStore(services).execute, orgId, email);
      if (!user) throw refused('assignee_email', 'matches no member of this organization (Vigil never invites anyone; add the member first)');
      set.assignee_user_id = user;
    }
  }
  const where = cardWhere(ref);
  if (!where) throw notFound();

  return inTransaction(services, async (store) => {
    const sql = store.execute;
    const before = await lockCard(sql, orgId, where);
    if (!before) throw notFound();
    const changes: Record<string, Change> = {};
    for (const [field, value] of Object.entries(set)) {
      if (JSON.stringify(before[field] ?? null) !== JSON.stringify(value)) changes[field] = { before: before[field] ?? null, after: value };
    }
    let archivedAt = before.archived_at ?? null;
    if ('status' in changes) archivedAt = set.status === 'archived' ? now : null;
    const cardId = String(before.id);
    if (Object.keys(changes).length > 0) {
      await updateCardRow(sql, before.id, set, Object.keys(changes), archivedAt, now);
      const detail: Json = { changes };
      if ('status' in changes && typeof input.status === 'string') detail.status_sent = clean(input.status);
      await insertEffects(sql, orgId, cardId, now, [['updated', detail]]);
      if (caller) await auditCardUpdate(services, store, caller, cardId, changes, now);
      await publishCardUpdated(services, store, orgId, { ...before, ...set, archived_at: archivedAt }, Object.keys(changes), now);
    }
    const key = String(before.key);
    const status = (set.status ?? before.status) as CardStatus;
    return { body: { id: cardId, key, status, url: cardUrl(services, key) }, changed: Object.keys(changes) };
  });
}

// ——— comment ———

export interface CommentResult {
  status: 201 | 200;
  body: Json;
  duplicate: boolean;
}

export async function addComment(
  services: Services, organization: Organization, ref: string, input: Json, key: string | null, now: Date, caller?: Caller,
): Promise<CommentResult> {
  requireBoard(organization);
  const orgId = organization.id;
  const where = cardWhere(ref);
  if (!where) throw notFound();
  return inTransaction(services, async (store) => {
    const sql = store.execute;
    const cardId = await cardIdOf(sql, orgId, where);
    if (!cardId) throw notFound();
    const existing = async () => {
      const found = await commentOfKey(sql, cardId, key);
      return found ? { status: 200 as const, body: { id: found, duplicate: true }, duplicate: true } : null;
    };
    if (key !== null) {
      const found = await existing();
      if (found) return found;
    }
    const { body, author } = commentFields(input);
    const id = randomUUID();
    if (!(await insertComment(sql, { id, orgId, cardId, body, author, key, now }))) {
      // a delivery of the same comment_id committed while this one waited
      const found = await existing();
      if (found) return found;
    }
    if (caller) await auditComment(services, store, caller, cardId, id, now);
    return { status: 201 as const, body: { id }, duplicate: false };
  });
}

// ——— reads ———

export function cardView(services: Services, r: Json): Json {
  const key = String(r.key);
  return {
    id: String(r.id), key, number: Number(r.number), url: cardUrl(services, key), title: String(r.title),
    description: (r.description as string | null) ?? null, priority: String(r.priority), labels: parsedJson(r.labels) ?? [],
    service: (r.service as string | null) ?? null, assignee_email: (r.assignee_email as string | null) ?? null,
    status: String(r.status), archived_at: iso(r.archived_at), dedup_key: (r.dedup_key as string | null) ?? null,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at),
  };
}

export interface CardFilters {
  /** a status or any synonym; `archived` lists archived cards, which are left out otherwise */
  status?: string;
  label?: string;
  service?: string;
  /** the assignee's email, any case */
  assignee_email?: string;
  limit?: unknown;
  cursor?: unknown;
}

/** One page of the board, newest first; the filters as applied (a synonym read as its status) are the cursor's. */
export async function listCards(services: Services, organization: Organization, input: CardFilters) {
  requireBoard(organization);
  let status: CardStatus | undefined;
  if (input.status !== undefined) {
    status = statusOf(input.status);
    if (!status) throw refused('status', `must be one of ${CARD_STATUSES.join(', ')}, archived, or a usual synonym`);
  }
  const filters = cardFilters({
    status,
    label: input.label === undefined ? undefined : (clean(input.label) ?? ''),
    service: input.service === undefined ? undefined : (clean(input.service) ?? ''),
    assignee: input.assignee_email === undefined ? undefined : input.assignee_email.trim().toLowerCase(),
  });
  return recordPage(services, CARD_LIST, organization.id, filters, input, (rows) => rows.map((r) => cardView(services, r)));
}

export async function getCard(services: Services, organization: Organization, ref: string): Promise<Json> {
  requireBoard(organization);
  const where = cardWhere(ref);
  if (!where) throw notFound();
  const store = readStore(services);
  const row = await selectCard(store.execute, organization.id, where);
  if (!row) throw notFound();
  const card = cardView(services, row);
  const history = await cardHistory(store.execute, String(card.id));
  const emails = [card.assignee_email, ...(history.comments as { author?: unknown }[]).map((c) => c.author)];
  return { ...card, ...history, people: await memberNames(store.execute, organization.id, emails) };
}

/** The names of the members among these emails (any case), by the email as given: the console shows "Dana Ortiz (dana@…)", not an email alone. */
async function memberNames(sql: SqlExecutor, organizationId: string, emails: unknown[]): Promise<Record<string, string | null>> {
  const given = [...new Set(emails.filter((e): e is string => typeof e === 'string' && e.includes('@')))];
  if (given.length === 0) return {};
  const rows = await sql(`select lower(m.email) as email, u.name from ${MembershipEntity.meta.tableName} m join ${UserEntity.meta.tableName} u on u.id = m.user_id
    where m.organization_id = ? and lower(m.email) in (${given.map(() => '?').join(', ')})`, [organizationId, ...given.map((e) => e.toLowerCase())]);
  const named = new Map(rows.map((r) => [String(r.email), (r.name as string | null) ?? null]));
  return Object.fromEntries(given.filter((e) => named.has(e.toLowerCase())).map((e) => [e, named.get(e.toLowerCase()) ?? null]));
}
