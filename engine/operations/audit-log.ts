/** The organization's own view of its audit log: a read-only domain operation for org admins. */
import Type from 'typebox';
import { publicOrganization } from '../auth/caller.ts';
import { AuditEntryEntity } from '../persistence/entities.ts';
import { auditView } from './audit.ts';
import type { DomainOperation } from './domain.ts';

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
  async run(services, caller, input) {
    const limit = typeof input.limit === 'number' ? input.limit : 200;
    const rows = await services.db.em.fork().find(AuditEntryEntity, { organization_id: caller.organization.id }, { orderBy: { seq: 'desc' }, limit, disableIdentityMap: true });
    return { json: { organization: publicOrganization(caller.organization), data: rows.map((r) => auditView(r as Record<string, unknown>)) } };
  },
};
