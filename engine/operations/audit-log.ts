/** The organization's own view of its audit log: a read-only domain operation for org admins. */
import Type from 'typebox';
import { publicOrganization } from '../auth/caller.ts';
import { AuditEntryEntity } from '../persistence/entities.ts';
import { auditView } from './audit.ts';
import type { DomainOperation } from './domain.ts';
import { JSON_VALUE, ORGANIZATION } from './tool-schemas.ts';

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
});

export const auditLogOperation: DomainOperation = {
  name: 'list_audit_log',
  description:
    'The organization\'s audit log, newest first: one entry per configuration change (time, actor, transport, family, row, action, ' +
    'changed fields before → after; secrets only as (set), (changed) or (cleared)). Needs an org-admin credential.',
  input: Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'how many entries, newest first' })) },
    { additionalProperties: false },
  ),
  role: 'org_admin',
  kind: 'read',
  rest: { method: 'GET', path: 'audit_log' },
  answer: { schema: Type.Object({ organization: ORGANIZATION, data: Type.Array(ENTRY) }) },
  async run(services, caller, input) {
    const limit = typeof input.limit === 'number' ? input.limit : 200;
    const rows = await services.db.em.fork().find(AuditEntryEntity, { organization_id: caller.organization.id }, { orderBy: { seq: 'desc' }, limit, disableIdentityMap: true });
    return { json: { organization: publicOrganization(caller.organization), data: rows.map((r) => auditView(r as Record<string, unknown>)) } };
  },
};
