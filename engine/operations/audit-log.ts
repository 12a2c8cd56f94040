/** The organization's own view of its audit log: a read-only domain operation for org admins; the operator API reads the same pages. */
import Type from 'typebox';
import { publicOrganization } from '../auth/caller.ts';
import { iso, jsonValue } from '../persistence/store.ts';
import type { Row } from '../descriptor.ts';
import { auditView } from './audit.ts';
import { readStore } from './context.ts';
import type { DomainOperation, Services } from '../services.ts';
import { listAnswer, NEXT_CURSOR, pageFields, pageOf, type PageLimits } from './page.ts';
import { JSON_VALUE, ORGANIZATION } from './tool-schemas.ts';

/** Newest first; 1000 stays the most one page holds, as it was before the log was paged. */
export const AUDIT_LOG_LIMITS: PageLimits = { default: 200, max: 1000 };
/** The operator API's view answered 1000 entries before it was paged: that stays its default. */
export const OPERATOR_AUDIT_LOG_LIMITS: PageLimits = { default: 1000, max: 1000 };

const CHANGE = Type.Union([
  Type.Object({ before: JSON_VALUE('the value before (null when the row was created)'), after: JSON_VALUE('the value after (null when the row was deleted)') }),
  Type.Union([Type.Literal('(set)'), Type.Literal('(changed)'), Type.Literal('(cleared)')], { description: 'a secret: only whether it was set, changed or cleared' }),
]);

const ENTRY = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({ kind: Type.String({ description: 'api_key, user, operator or system' }), id: Type.String() }),
  transport: Type.String({ description: 'rest, mcp, console or system' }),
  family: Type.String(),
  row_id: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({ description: 'create, update, delete, archive, or action:<name>' }),
  changes: Type.Record(Type.String(), CHANGE, { description: 'per changed field' }),
  change_id: Type.Union([Type.String(), Type.Null()], { description: 'the entries one batch apply (POST /batch, `vigil apply`) wrote share it; null for a single write' }),
});

/** One page of an organization's audit log, newest first (`seq`: insertion order, unique). */
export async function auditLogPage(services: Services, organizationId: string, input: { limit?: unknown; cursor?: unknown }, limits = AUDIT_LOG_LIMITS) {
  const scope = { organizationId, list: 'audit_log', keys: [{ column: 'seq', direction: 'desc' as const }] };
  const page = await pageOf(services, readStore(services).execute, scope, {
    select: 'id, seq, at, actor_kind, actor_id, transport, family, row_id, action, changes, change_id',
    from: 'audit_log',
    where: 'organization_id = ?',
    params: [organizationId],
  }, input, limits);
  const data = page.records.map((r) => auditView({ ...r, at: iso(r.at), changes: jsonValue(r.changes) } as Row));
  return listAnswer({ data, next_cursor: page.next_cursor });
}

export const auditLogOperation: DomainOperation = {
  name: 'list_audit_log',
  description:
    'The organization\'s audit log, newest first: one entry per configuration change (time, actor, transport, family, row, action, ' +
    'changed fields before → after; secrets only as (set), (changed) or (cleared)). Paged: pass `next_cursor` back as `cursor`. Needs an org-admin credential.',
  input: Type.Object(pageFields(AUDIT_LOG_LIMITS), { additionalProperties: false }),
  role: 'org_admin',
  kind: 'read',
  rest: { method: 'GET', path: 'audit_log' },
  answer: {
    schema: Type.Object({
      organization: ORGANIZATION,
      data: Type.Array(ENTRY),
      next_cursor: NEXT_CURSOR,
      truncated: Type.Boolean({ description: 'true when a next page exists' }),
    }),
  },
  async run(services, caller, input) {
    return { json: { organization: publicOrganization(caller.organization), ...(await auditLogPage(services, caller.organization.id, input)) } };
  },
};
