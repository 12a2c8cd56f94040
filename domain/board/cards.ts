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
 */
import { randomUUID } from 'node:crypto';
import type { Caller, Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { recordAudit, type Change } from '../../engine/operations/audit.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/operations/types.ts';
import { FEATURES, hasFeature } from '../../engine/plans.ts';
import { iso, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { cardEvent } from '../../outbound/events.ts';
import { publish } from '../../outbound/publish.ts';
import { cardWriter, type NewCard } from './card-writer.ts';

export const CARD_STATUSES = ['backlog', 'triage', 'todo', 'in_progress', 'blocked', 'done'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number] | 'archived';
export const CARD_PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const;
export type CardPriority = (typeof CARD_PRIORITIES)[number];

/**
 * Status words an update accepts, after lowercasing, turning `_` and `-` into spaces, dropping apostrophes and
 * collapsing spaces. `archived` is what the won't-do words lead to: not done, off the board, reported as
 * `archived`.
 */
export const STATUS_SYNONYMS: Record<string, CardStatus> = {
  backlog: 'backlog', icebox: 'backlog', later: 'backlog', someday: 'backlog',
  triage: 'triage', new: 'triage', open: 'triage', opened: 'triage', reopened: 'triage', untriaged: 'triage', 'needs triage': 'triage',
  todo: 'todo', 'to do': 'todo', ready: 'todo', planned: 'todo', 'not started': 'todo', selected: 'todo', accepted: 'todo',
  'in progress': 'in_progress', inprogress: 'in_progress', doing: 'in_progress', started: 'in_progress', wip: 'in_progress',
  active: 'in_progress', working: 'in_progress', 'in review': 'in_progress', review: 'in_progress',
  blocked: 'blocked', 'on hold': 'blocked', waiting: 'blocked', stalled: 'blocked',
  done: 'done', closed: 'done', resolved: 'done', complete: 'done', completed: 'done', fixed: 'done', finished: 'done',
  'wont do': 'archived', wontdo: 'archived', wontfix: 'archived', 'wont fix': 'archived', cancelled: 'archived',
  canceled: 'archived', 'not planned': 'archived', archived: 'archived',
};

export const LIMITS = { title: 500, description: 60_000, labels: 50, label: 100, service: 200, author: 200, comment: 60_000, key: 200 } as const;
const KEY_PATTERN = /^[\p{L}\p{Nd}._\-:/+=@]+$/u;
const CARD_KEY = /^[A-Za-z]{1,10}-\d{1,10}$/;

type Json = Record<string, unknown>;
const has = (obj: Json, key: string) => Object.hasOwn(obj, key) && obj[key] !== undefined;

// ——— refusals ———

/** 422 naming the field to fix: `{ error, message, field, errors: [{ field, message }] }`. */
export function refused(field: string, message: string): ApiError {
  return new ApiError('validation_failed', `${field} ${message}.`, { extra: { field }, errors: [{ field, message }] });
}

export const CARD_NOT_FOUND = 'No card with that id or key is on this board.';
const notFound = () => new ApiError('not_found', CARD_NOT_FOUND);

/** 403 when the organization's plan (or the operator's override) does not include the ops board. */
export function requireBoard(organization: Organization): void {
  if (hasFeature(organization.plan, organization.features, 'ops_board')) return;
  throw new ApiError('plan_required', `The ops board is not included in the ${organization.plan} plan; upgrade to team or above to open cards.`, {
    extra: { feature: 'ops_board' satisfies keyof typeof FEATURES },
  });
}

// ——— values ———

/** A string as PostgreSQL can hold it (no NUL, no lone surrogate), trimmed; undefined for anything else. */
export function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.toWellFormed().replaceAll('\u0000', '').trim();
}

function boundedText(obj: Json, field: string, max: number, required: boolean): string | null {
  const value = obj[field];
  if (value === null || value === undefined) {
    if (required) throw refused(field, 'is required');
    return null;
  }
  const s = clean(value);
  if (s === undefined) throw refused(field, 'must be a string');
  if (s === '') {
    if (required) throw refused(field, 'must not be blank');
    return null;
  }
  if (s.length > max) throw refused(field, `must be at most ${max} characters (it has ${s.length})`);
  return s;
}

function labelsOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw refused('labels', 'must be an array of strings');
  if (value.length > LIMITS.labels) throw refused('labels', `must hold at most ${LIMITS.labels} labels`);
  const out: string[] = [];
  for (const item of value) {
    const s = clean(item);
    if (s === undefined || s === '') throw refused('labels', 'must hold non-empty strings only');
    if (s.length > LIMITS.label) throw refused('labels', `must hold labels of at most ${LIMITS.label} characters`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** The status a word means, or undefined. */
export function statusOf(value: unknown): CardStatus | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.toLowerCase().replace(/['’‘`]/g, '').replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return Object.hasOwn(STATUS_SYNONYMS, word) ? STATUS_SYNONYMS[word] : undefined;
}

function priorityOf(value: unknown): CardPriority | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return (CARD_PRIORITIES as readonly string[]).includes(word) ? (word as CardPriority) : undefined;
}

/** An idempotency key, checked; `field` names where it came from. */
export function checkKey(value: unknown, field: string): string {
  if (typeof value !== 'string') throw refused(field, 'must be a string of letters, digits and . _ - : / + = @');
  if (value.trim() === '') throw refused(field, 'must not be blank');
  if ([...value].length > LIMITS.key) throw refused(field, `must be at most ${LIMITS.key} characters`);
  if (!KEY_PATTERN.test(value)) throw refused(field, 'may hold only letters, digits and . _ - : / + = @');
  return value;
}

/**
 * The key prefix, chosen from the organization's name when its first card is created and kept from then on:
 * accents dropped, ASCII letters only, uppercase; with two or more words, their initials (at most five: "Acme
 * Platform Team" → APT), with one word its first three letters ("Acme" → ACM); fewer than two letters → OPS.
 */
export function boardPrefix(name: string): string {
  const words = name.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().split(/[^A-Z]+/).filter(Boolean);
  const prefix = words.length >= 2 ? words.slice(0, 5).map((w) => w[0]).join('') : (words[0] ?? '').slice(0, 3);
  return prefix.length >= 2 ? prefix : 'OPS';
}

export const cardUrl = (services: Services, key: string) => `${services.config.publicUrl}/board/${key}`;

/** A card as outbound events (card.created, card.updated) carry it. */
export function cardSummary(services: Services, c: Json): Json & { id: string } {
  const key = String(c.key);
  return {
    id: String(c.id), key, url: cardUrl(services, key), title: String(c.title), status: String(c.status ?? 'triage'), priority: String(c.priority),
    labels: Array.isArray(c.labels) ? c.labels : [], service: c.service ?? null,
  };
}

async function memberByEmail(sql: Sql, organizationId: string, email: string): Promise<string | null> {
  const [row] = await sql(
    'select m.user_id from memberships m join users u on u.id = m.user_id where m.organization_id = ? and u.email = ? limit 1',
    [organizationId, email.toLowerCase()],
  );
  return row ? String(row.user_id) : null;
}

// ——— open ———

export interface OpenResult {
  status: 201 | 200;
  body: Json;
  duplicate: boolean;
  /** what the sender may want to know and the 201 body does not say (for the delivery log) */
  notices: string[];
}

const parsedJson = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Json;
const repeat = (answer: unknown): OpenResult => ({ status: 200, body: { ...parsedJson(answer), duplicate: true }, duplicate: true, notices: [] });

export async function openCard(services: Services, organization: Organization, input: Json, key: string | null, now: Date): Promise<OpenResult> {
  requireBoard(organization);
  let card: { card: NewCard; notices: string[] };
  try {
    card = await newCard(services, organization, input, key, now);
  } catch (error) {
    // a repeat answers the first answer whatever else its body says, a body that would be refused included
    const [existing] = key === null ? [] : await readStore(services).execute('select answer from cards where organization_id = ? and dedup_key = ?', [organization.id, key]);
    if (existing) return repeat(existing.answer);
    throw error;
  }
  const written = await cardWriter(services).create(card.card);
  return written.created ? { status: 201, body: written.answer, duplicate: false, notices: card.notices } : repeat(written.answer);
}

/** The card a creation asks for, validated; notices say what the 201 body will not. */
async function newCard(services: Services, organization: Organization, input: Json, key: string | null, now: Date): Promise<{ card: NewCard; notices: string[] }> {
  const notices: string[] = [];
  const title = boundedText(input, 'title', LIMITS.title, true)!;
  const description = boundedText(input, 'description', LIMITS.description, false);
  const service = boundedText(input, 'service', LIMITS.service, false);
  const labels = labelsOf(input.labels);
  let priority = priorityOf(input.priority);
  if (!priority) {
    if (has(input, 'priority') && input.priority !== null) notices.push(`priority ${JSON.stringify(input.priority)} is not urgent, high, normal or low: set to normal`);
    priority = 'normal';
  }
  const email = boundedText(input, 'assignee_email', 254, false);
  const assignee = email ? await memberByEmail(readStore(services).execute, organization.id, email) : null;
  if (email && !assignee) notices.push('assignee_email matches no member of the organization: the card is unassigned (no one is invited)');
  const id = randomUUID();
  const card: NewCard = {
    id,
    organizationId: organization.id,
    prefix: boardPrefix(organization.name),
    key,
    title,
    description,
    priority,
    labels,
    service,
    assigneeUserId: assignee,
    now,
    extraEffects: email && !assignee ? [['assignment_skipped', { reason: 'no member has this email', email }]] : [],
    answer: (cardKey) => ({ id, key: cardKey, url: cardUrl(services, cardKey), dedup_key: key, duplicate: false }),
  };
  return { card, notices };
}

async function insertEffects(sql: Sql, orgId: string, cardId: string, now: Date, effects: [string, Json][]): Promise<void> {
  if (effects.length === 0) return;
  await sql(
    `insert into card_effects (organization_id, card_id, at, kind, detail) values ${effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ')}`,
    effects.flatMap(([kind, detail]) => [orgId, cardId, now, kind, JSON.stringify(detail)]),
  );
}

// ——— update ———

/** The card a path or tool names: its id, or its key in any case; null when it cannot name a card. */
function cardWhere(ref: string): { sql: string; param: string } | null {
  const text = String(ref);
  if (isUuid(ref)) return { sql: 'id = ?', param: text.toLowerCase() };
  if (CARD_KEY.test(text)) return { sql: 'key = ?', param: text.toUpperCase() };
  return null;
}

export const UPDATABLE = ['title', 'description', 'priority', 'labels', 'service', 'assignee_email', 'status'] as const;

export interface UpdateResult {
  body: { id: string; key: string; status: CardStatus; url: string };
  changed: string[];
}

export async function updateCard(services: Services, organization: Organization, ref: string, input: Json, now: Date, caller?: Caller): Promise<UpdateResult> {
  requireBoard(organization);
  const orgId = organization.id;
  const set: Json = {};
  if (has(input, 'title')) set.title = boundedText(input, 'title', LIMITS.title, true);
  if (has(input, 'description')) set.description = boundedText(input, 'description', LIMITS.description, false);
  if (has(input, 'service')) set.service = boundedText(input, 'service', LIMITS.service, false);
  if (has(input, 'labels')) set.labels = labelsOf(input.labels);
  if (has(input, 'priority')) {
    const priority = priorityOf(input.priority);
    if (!priority) throw refused('priority', `must be one of ${CARD_PRIORITIES.join(', ')} (got ${JSON.stringify(input.priority)})`);
    set.priority = priority;
  }
  let statusWord: unknown;
  if (has(input, 'status')) {
    const status = statusOf(input.status);
    if (!status) {
      throw refused('status', `must be one of ${CARD_STATUSES.join(', ')}, a usual synonym (open, to do, in progress, closed, resolved, …) or won't do, wontfix, cancelled (got ${JSON.stringify(input.status)})`);
    }
    set.status = status;
    statusWord = input.status;
  }
  if (has(input, 'assignee_email')) {
    const email = boundedText(input, 'assignee_email', 254, false);
    if (email === null) set.assignee_user_id = null;
    else {
      const user = await memberByEmail(readStore(services).execute, orgId, email);
      if (!user) throw refused('assignee_email', 'matches no member of this organization (Vigil never invites anyone; add the member first)');
      set.assignee_user_id = user;
    }
  }
  if (Object.keys(set).length === 0) throw refused('body', `names no field a card update changes; send one or more of ${UPDATABLE.join(', ')}`);
  const where = cardWhere(ref);
  if (!where) throw notFound();

  return inTransaction(services, async (store) => {
    const sql = store.execute;
    const [row] = await sql(`select ${CARD_COLUMNS} from cards where organization_id = ? and ${where.sql} for update`, [orgId, where.param]);
    if (!row) throw notFound();
    const before: Json = { ...row, labels: parsedJson(row.labels) };
    const changes: Record<string, Change> = {};
    for (const [field, value] of Object.entries(set)) {
      if (JSON.stringify(before[field] ?? null) !== JSON.stringify(value)) changes[field] = { before: before[field] ?? null, after: value };
    }
    let archivedAt = before.archived_at ?? null;
    if ('status' in changes) archivedAt = set.status === 'archived' ? now : null;
    if (Object.keys(changes).length > 0) {
      const columns = Object.keys(changes);
      await sql(
        `update cards set ${columns.map((c) => (c === 'labels' ? 'labels = ?::jsonb' : `${c} = ?`)).join(', ')}, archived_at = ?, updated_at = ? where id = ?`,
        [...columns.map((c) => (c === 'labels' ? JSON.stringify(set[c]) : set[c])), archivedAt, now, row.id],
      );
      const detail: Json = { changes };
      if ('status' in changes && typeof statusWord === 'string') detail.status_sent = clean(statusWord);
      await insertEffects(sql, orgId, String(row.id), now, [['updated', detail]]);
      if (caller) await recordAudit(services, store, { caller, family: 'cards', rowId: String(row.id), action: 'update', changes, at: now });
      const after = { ...before, ...set, archived_at: archivedAt };
      await publish(services, store, orgId, ['card.updated'], () => [cardEvent('card.updated', cardSummary(services, after), null, now, Object.keys(changes))]);
    }
    const key = String(row.key);
    const status = (set.status ?? row.status) as CardStatus;
    return { body: { id: String(row.id), key, status, url: cardUrl(services, key) }, changed: Object.keys(changes) };
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
    const [card] = await sql(`select id from cards where organization_id = ? and ${where.sql}`, [orgId, where.param]);
    if (!card) throw notFound();
    const cardId = String(card.id);
    const existing = async () => {
      const [found] = await sql('select id from card_comments where card_id = ? and comment_id = ?', [cardId, key]);
      return found ? { status: 200 as const, body: { id: String(found.id), duplicate: true }, duplicate: true } : null;
    };
    if (key !== null) {
      const found = await existing();
      if (found) return found;
    }
    const body = boundedText(input, 'body', LIMITS.comment, true)!;
    const author = boundedText(input, 'author', LIMITS.author, false);
    const id = randomUUID();
    const inserted = await sql(
      `insert into card_comments (id, organization_id, card_id, body, author, comment_id, created_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (card_id, comment_id) do nothing returning id`,
      [id, orgId, cardId, body, author, key, now],
    );
    if (!inserted[0]) {
      // a delivery of the same comment_id committed while this one waited
      const found = await existing();
      if (found) return found;
    }
    if (caller) await recordAudit(services, store, { caller, family: 'cards', rowId: cardId, action: 'action:add_card_comment', changes: { comment: { before: null, after: id } }, at: now });
    return { status: 201 as const, body: { id }, duplicate: false };
  });
}

// ——— reads ———

const CARD_COLUMNS = `id, key, number, title, description, priority, labels, service, assignee_user_id, status, archived_at, dedup_key, created_at, updated_at`;
const CARD_SELECT = `select c.id, c.key, c.number, c.title, c.description, c.priority, c.labels, c.service, c.assignee_user_id, u.email as assignee_email,
  c.status, c.archived_at, c.dedup_key, c.created_at, c.updated_at from cards c left join users u on u.id = c.assignee_user_id`;

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
  limit?: number;
}

export async function listCards(services: Services, organization: Organization, filters: CardFilters): Promise<{ data: Json[]; truncated: boolean }> {
  requireBoard(organization);
  const limit = Math.min(Math.max(Math.trunc(filters.limit ?? 50), 1), 200);
  const where = ['c.organization_id = ?'];
  const params: unknown[] = [organization.id];
  if (filters.status !== undefined) {
    const status = statusOf(filters.status);
    if (!status) throw refused('status', `must be one of ${CARD_STATUSES.join(', ')}, archived, or a usual synonym`);
    (where.push('c.status = ?'), params.push(status));
  } else where.push(`c.status <> 'archived'`);
  if (filters.label !== undefined) (where.push('c.labels @> ?::jsonb'), params.push(JSON.stringify([clean(filters.label) ?? ''])));
  if (filters.service !== undefined) (where.push('c.service = ?'), params.push(clean(filters.service) ?? ''));
  const rows = await readStore(services).execute(`${CARD_SELECT} where ${where.join(' and ')} order by c.seq desc limit ${limit + 1}`, params);
  return { data: rows.slice(0, limit).map((r) => cardView(services, r)), truncated: rows.length > limit };
}

export async function getCard(services: Services, organization: Organization, ref: string): Promise<Json> {
  requireBoard(organization);
  const where = cardWhere(ref);
  if (!where) throw notFound();
  const store = readStore(services);
  const [row] = await store.execute(`${CARD_SELECT} where c.organization_id = ? and c.${where.sql}`, [organization.id, where.param]);
  if (!row) throw notFound();
  const card = cardView(services, row);
  const comments = await store.execute('select id, body, author, comment_id, created_at from card_comments where card_id = ? order by seq', [card.id]);
  const effects = await store.execute('select kind, at, detail from card_effects where card_id = ? order by seq', [card.id]);
  return {
    ...card,
    comments: comments.map((c) => ({ id: String(c.id), body: String(c.body), author: (c.author as string | null) ?? null, comment_id: (c.comment_id as string | null) ?? null, created_at: iso(c.created_at) })),
    effects: effects.map((e) => ({ kind: String(e.kind), at: iso(e.at), detail: parsedJson(e.detail) ?? {} })),
  };
}
