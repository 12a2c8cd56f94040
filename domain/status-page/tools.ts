/**
 * The org admins' view of a status page's subscribers (personal data: no other role, no public surface):
 * `list_status_page_subscribers` (`GET /api/v1/config/status_page_subscribers`) and `delete_status_page_subscriber`
 * (`POST /api/v1/config/status_page_subscribers/{id}/delete`), which removes the address at once (audited, without it).
 */
import Type from 'typebox';
import { notFound } from '../../engine/errors.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type ListFilter, type RecordList } from '../../engine/operations/record-list.ts';
import { literals, orNull } from '../../engine/operations/tool-schemas.ts';
import { iso } from '../../engine/persistence/store.ts';
import type { DomainOperation } from '../../engine/services.ts';

const SUBSCRIBER = Type.Object({
  id: Type.String(),
  email: Type.String(),
  status: literals(['pending', 'confirmed'] as const, 'pending until the confirmation link is followed; only confirmed subscribers are mailed'),
  confirmed_at: orNull(Type.String({ format: 'date-time' }), 'when the link was followed'),
  created_at: Type.String({ format: 'date-time' }),
});

const SUBSCRIBERS: RecordList = {
  name: 'status_page_subscribers',
  select: `seq, id, email, confirmed_at, created_at, case when confirmed_at is null then 'pending' else 'confirmed' end as status`,
  from: 'status_page_subscribers',
  keys: NEWEST_FIRST,
  limits: RECORD_LIST_LIMITS,
};

export const listSubscribers: DomainOperation = {
  name: 'list_status_page_subscribers',
  description:
    'The email subscribers of the organization\'s public status page, newest first: pending (asked, not yet confirmed) and confirmed ones. ' +
    'Addresses are personal data: only org admins read them, and no public page shows them.',
  input: Type.Object({ status: Type.Optional(literals(['pending', 'confirmed'] as const, 'only subscribers in this state')), ...pageFields(RECORD_LIST_LIMITS) }, { additionalProperties: false }),
  role: 'org_admin',
  feature: 'status_page',
  kind: 'read',
  rest: { method: 'GET', path: 'status_page_subscribers' },
  answer: { schema: recordPageSchema(SUBSCRIBER) },
  async run(services, caller, input) {
    const filters: ListFilter[] = typeof input.status === 'string'
      ? [{ field: 'status', value: input.status, sql: `confirmed_at is ${input.status === 'pending' ? '' : 'not '}null`, params: [] }]
      : [];
    return {
      json: await recordPage(services, SUBSCRIBERS, caller.organization.id, filters, input, (rows) => rows.map((r) => ({
        id: String(r.id), email: String(r.email), status: r.status, confirmed_at: iso(r.confirmed_at), created_at: iso(r.created_at),
      }))),
    };
  },
};

export const deleteSubscriber: DomainOperation = {
  name: 'delete_status_page_subscriber',
  description: 'Removes a subscriber of the public status page (pending or confirmed) at once; nothing more is mailed to the address.',
  input: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'the subscriber' }) }, { additionalProperties: false }),
  role: 'org_admin',
  feature: 'status_page',
  kind: 'write',
  idempotent: false,
  rest: { method: 'POST', path: 'status_page_subscribers', param: 'id', action: 'delete' },
  answer: { schema: Type.Object({ data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) }) },
  async run(services, caller, input) {
    const id = String(input.id);
    if (!/^[0-9a-f-]{36}$/.test(id)) throw notFound('subscriber');
    const rows = await inTransaction(services, (store) =>
      store.execute('delete from status_page_subscribers where organization_id = ? and id = ? returning id', [caller.organization.id, id]));
    if (rows.length === 0) throw notFound('subscriber');
    return { json: { data: { id, deleted: true } } };
  },
};

export const STATUS_PAGE_OPERATIONS: DomainOperation[] = [listSubscribers, deleteSubscriber];
