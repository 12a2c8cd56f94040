/**
 * The people alerts and incidents name: the member one is assigned to (answered as id and email, read from the
 * organization's memberships), and who took an action (`{ kind, id }`, as the audit log names actors).
 */
import Type from 'typebox';
import { validationFailed } from '../../engine/errors.ts';
import { MembershipEntity, UserEntity } from '../../engine/persistence/entities.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { isUuid } from '../../engine/validation.ts';

const MEMBERSHIPS = MembershipEntity.meta.tableName;
const USERS = UserEntity.meta.tableName;

/** The audit log's `family` of people's actions on alerts and on incidents (neither is a configuration family). */
export const AUDITED = { alerts: 'alerts', incidents: 'incidents' } as const;

const NAME = Type.Union([Type.String(), Type.Null()], { description: 'their name, as the operator gave it (null: none given, or no longer a member)' });

export const MEMBER = Type.Object({
  id: Type.String({ description: 'the user id' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'their email; null once they are no longer a member of the organization' }),
  name: NAME,
});

export const ACTOR = Type.Object({
  kind: Type.String({ description: 'session (a person in the console), personal_token, chat_user (id: the user), page (a person answering a page where it landed; id: the user), api_key, operator or system' }),
  id: Type.String(),
  name: Type.Optional(NAME),
  email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'a person\'s email while they are a member' })),
});

/** The assignee's columns of `table` (a row with `organization_id` and `assignee_id`), its email read from the memberships and its name from the user. */
export const memberColumns = (table: string) =>
  `assignee_id, (select m.email from ${MEMBERSHIPS} m where m.organization_id = ${table}.organization_id and m.user_id = ${table}.assignee_id) as assignee_email,
   (select u.name from ${USERS} u join ${MEMBERSHIPS} m on m.user_id = u.id where m.organization_id = ${table}.organization_id and u.id = ${table}.assignee_id) as assignee_name`;

export function memberOf(row: Record<string, unknown>): { id: string; email: string | null; name: string | null } | null {
  return row.assignee_id ? { id: String(row.assignee_id), email: (row.assignee_email as string | null) ?? null, name: (row.assignee_name as string | null) ?? null } : null;
}

/** Actor kinds whose id is a user's. */
export const PERSON_KINDS = new Set(['session', 'personal_token', 'chat_user', 'page']);

/**
 * Names the people among these actors (those whose kind is a person's): each gets the member's `name` and `email`,
 * so every surface shows "Dana Ortiz acknowledged", not a user id. Mutates the actor objects given; one query.
 */
export async function namePeople(sql: SqlExecutor, organizationId: string, actors: readonly unknown[]): Promise<void> {
  const people = actors.filter((a): a is { kind: string; id: string; name?: string | null; email?: string | null } =>
    typeof a === 'object' && a !== null && PERSON_KINDS.has(String((a as { kind?: unknown }).kind)) && isUuid(String((a as { id?: unknown }).id)));
  if (people.length === 0) return;
  const ids = [...new Set(people.map((p) => p.id))];
  const rows = await sql(`select u.id, u.name, m.email from ${USERS} u join ${MEMBERSHIPS} m on m.user_id = u.id and m.organization_id = ? where u.id in (${ids.map(() => '?').join(', ')})`, [organizationId, ...ids]);
  const found = new Map(rows.map((r) => [String(r.id), { name: (r.name as string | null) ?? null, email: (r.email as string | null) ?? null }]));
  for (const p of people) Object.assign(p, found.get(p.id) ?? { name: null, email: null });
}

/** `assignee` as the assign actions take it: a member's user id or email (any case), or null to unassign. */
export const ASSIGNEE_INPUT = Type.Union([Type.String({ minLength: 1, maxLength: 320 }), Type.Null()], {
  description: 'a member of the organization, by user id or email; null to unassign',
});

/** The member `value` names (user id or email), or 422 naming `assignee`; null stays null. */
export async function findMember(sql: SqlExecutor, organizationId: string, value: string | null): Promise<string | null> {
  if (value === null) return null;
  const byId: boolean = isUuid(value);
  const [member] = byId
    ? await sql(`select user_id from ${MEMBERSHIPS} where organization_id = ? and user_id = ?`, [organizationId, value])
    : await sql(`select user_id from ${MEMBERSHIPS} where organization_id = ? and lower(email) = ?`, [organizationId, value.trim().toLowerCase()]);
  if (!member) throw validationFailed([{ field: 'assignee', message: 'No member of this organization has that email or user id (give a member\'s, or leave it empty to unassign)' }]);
  return String(member.user_id);
}
