/**
 * The people alerts and incidents name: the member one is assigned to (answered as id and email, read from the
 * organization's memberships), and who took an action (`{ kind, id }`, as the audit log names actors).
 */
import Type from 'typebox';
import { validationFailed } from '../../engine/errors.ts';
import { MembershipEntity } from '../../engine/persistence/entities.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { isUuid } from '../../engine/validation.ts';

const MEMBERSHIPS = MembershipEntity.meta.tableName;

/** The audit log's `family` of people's actions on alerts and on incidents (neither is a configuration family). */
export const AUDITED = { alerts: 'alerts', incidents: 'incidents' } as const;

export const MEMBER = Type.Object({
  id: Type.String({ description: 'the user id' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'their email; null once they are no longer a member of the organization' }),
});

export const ACTOR = Type.Object({
  kind: Type.String({ description: 'api_key, personal_token (id: the user), operator or system' }),
  id: Type.String(),
});

/** The assignee's columns of `table` (a row with `organization_id` and `assignee_id`), its email read from the memberships. */
export const memberColumns = (table: string) =>
  `assignee_id, (select m.email from ${MEMBERSHIPS} m where m.organization_id = ${table}.organization_id and m.user_id = ${table}.assignee_id) as assignee_email`;

export function memberOf(row: Record<string, unknown>): { id: string; email: string | null } | null {
  return row.assignee_id ? { id: String(row.assignee_id), email: (row.assignee_email as string | null) ?? null } : null;
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
  if (!member) throw validationFailed([{ field: 'assignee', message: 'is not a member of this organization (give a member\'s user id or email, or null)' }]);
  return String(member.user_id);
}
