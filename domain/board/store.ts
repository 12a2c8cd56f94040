/** The board's SQL: cards by id or key, their comments and effects, members by email, card lists. */
import { iso, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';

type Json = Record<string, unknown>;

const CARD_KEY = /^[A-Za-z]{1,10}-\d{1,10}$/;

export const parsedJson = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Json;

/** The card a path or tool names: its id, or its key in any case; null when it cannot name a card. */
export function cardWhere(ref: string): { sql: string; param: string } | null {
  const text = String(ref);
  if (isUuid(ref)) return { sql: 'id = ?', param: text.toLowerCase() };
  if (CARD_KEY.test(text)) return { sql: 'key = ?', param: text.toUpperCase() };
  return null;
}

export type CardWhere = NonNullable<ReturnType<typeof cardWhere>>;

const CARD_COLUMNS = `id, key, number, title, description, priority, labels, service, assignee_user_id, status, archived_at, dedup_key, created_at, updated_at`;
const CARD_SELECT = `select c.id, c.key, c.number, c.title, c.description, c.priority, c.labels, c.service, c.assignee_user_id, u.email as assignee_email,
  c.status, c.archived_at, c.dedup_key, c.created_at, c.updated_at from cards c left join users u on u.id = c.assignee_user_id`;

export async function memberByEmail(sql: Sql, organizationId: string, email: string): Promise<string | null> {
  const [row] = await sql(
    'select m.user_id from memberships m join users u on u.id = m.user_id where m.organization_id = ? and u.email = ? limit 1',
    [organizationId, email.toLowerCase()],
  );
  return row ? String(row.user_id) : null;
}

/** The first answer of the card created with this idempotency key, if any. */
export async function answerOfKey(sql: Sql, organizationId: string, key: string): Promise<unknown> {
  const [existing] = await sql('select answer from cards where organization_id = ? and dedup_key = ?', [organizationId, key]);
  return existing?.answer;
}

export async function insertEffects(sql: Sql, orgId: string, cardId: string, now: Date, effects: [string, Json][]): Promise<void> {
  if (effects.length === 0) return;
  await sql(
    `insert into card_effects (organization_id, card_id, at, kind, detail) values ${effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ')}`,
    effects.flatMap(([kind, detail]) => [orgId, cardId, now, kind, JSON.stringify(detail)]),
  );
}

/** The card, row-locked until the transaction ends; labels parsed. */
export async function lockCard(sql: Sql, orgId: string, where: CardWhere): Promise<Json | null> {
  const [row] = await sql(`select ${CARD_COLUMNS} from cards where organization_id = ? and ${where.sql} for update`, [orgId, where.param]);
  return row ? { ...row, labels: parsedJson(row.labels) } : null;
}

/** Sets the changed columns (labels as jsonb), archived_at and updated_at. */
export async function updateCardRow(sql: Sql, id: unknown, set: Json, columns: string[], archivedAt: unknown, now: Date): Promise<void> {
  await sql(
    `update cards set ${columns.map((c) => (c === 'labels' ? 'labels = ?::jsonb' : `${c} = ?`)).join(', ')}, archived_at = ?, updated_at = ? where id = ?`,
    [...columns.map((c) => (c === 'labels' ? JSON.stringify(set[c]) : set[c])), archivedAt, now, id],
  );
}

export async function cardIdOf(sql: Sql, orgId: string, where: CardWhere): Promise<string | null> {
  const [card] = await sql(`select id from cards where organization_id = ? and ${where.sql}`, [orgId, where.param]);
  return card ? String(card.id) : null;
}

export async function commentOfKey(sql: Sql, cardId: string, key: string | null): Promise<string | null> {
  const [found] = await sql('select id from card_comments where card_id = ? and comment_id = ?', [cardId, key]);
  return found ? String(found.id) : null;
}

/** Inserts the comment unless its comment_id is already on the card; false when it was. */
export async function insertComment(sql: Sql, c: { id: string; orgId: string; cardId: string; body: string; author: string | null; key: string | null; now: Date }): Promise<boolean> {
  const inserted = await sql(
    `insert into card_comments (id, organization_id, card_id, body, author, comment_id, created_at) values (?, ?, ?, ?, ?, ?, ?)
     on conflict (card_id, comment_id) do nothing returning id`,
    [c.id, c.orgId, c.cardId, c.body, c.author, c.key, c.now],
  );
  return inserted.length > 0;
}

export interface CardQuery {
  status?: string;
  label?: string;
  service?: string;
  /** the assignee's email (lowercase) */
  assignee?: string;
}

/** Cards newest first, archived ones only when asked for by status; one more than `limit` (to tell truncation). */
export function selectCards(sql: Sql, orgId: string, q: CardQuery, limit: number): Promise<Json[]> {
  const where = ['c.organization_id = ?'];
  const params: unknown[] = [orgId];
  if (q.status !== undefined) (where.push('c.status = ?'), params.push(q.status));
  else where.push(`c.status <> 'archived'`);
  if (q.label !== undefined) (where.push('c.labels @> ?::jsonb'), params.push(JSON.stringify([q.label])));
  if (q.service !== undefined) (where.push('c.service = ?'), params.push(q.service));
  if (q.assignee !== undefined) (where.push('u.email = ?'), params.push(q.assignee));
  return sql(`${CARD_SELECT} where ${where.join(' and ')} order by c.seq desc limit ${limit + 1}`, params);
}

export async function selectCard(sql: Sql, orgId: string, where: CardWhere): Promise<Json | null> {
  const [row] = await sql(`${CARD_SELECT} where c.organization_id = ? and c.${where.sql}`, [orgId, where.param]);
  return row ?? null;
}

export async function cardHistory(sql: Sql, cardId: string): Promise<{ comments: Json[]; effects: Json[] }> {
  const comments = await sql('select id, body, author, comment_id, created_at from card_comments where card_id = ? order by seq', [cardId]);
  const effects = await sql('select kind, at, detail from card_effects where card_id = ? order by seq', [cardId]);
  return {
    comments: comments.map((c) => ({ id: String(c.id), body: String(c.body), author: (c.author as string | null) ?? null, comment_id: (c.comment_id as string | null) ?? null, created_at: iso(c.created_at) })),
    effects: effects.map((e) => ({ kind: String(e.kind), at: iso(e.at), detail: parsedJson(e.detail) ?? {} })),
  };
}
