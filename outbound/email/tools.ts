/** `list_email_notices` (viewer; also `GET /api/v1/config/email_notices`): which events were mailed, when, and why one was not. */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { iso } from '../../engine/persistence/store.ts';
import { headline } from '../render/headline.ts';
import { literals, orNull } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';

const STATUSES = ['pending', 'sending', 'sent', 'failed', 'cancelled'] as const;

const NOTICE = Type.Object({
  id: Type.String(),
  event_type: Type.String({ description: 'the event kind mailed' }),
  subject_id: orNull(Type.String(), 'what it is about: an alert, incident, card, deployment or fix request id'),
  headline: Type.String({ description: 'the line that stands for the event in the email' }),
  status: literals(STATUSES, 'pending (due at send_after), sending, sent, failed (after its tries), cancelled (no recipient was listed when it was due)'),
  batched: Type.Boolean({ description: 'held by a digest or by quiet hours: mailed together with the other notices due then' }),
  attempts: Type.Integer(),
  send_after: Type.String({ format: 'date-time', description: 'when it may be sent (now, the next digest, the end of quiet hours, or a retry\'s wait)' }),
  sent_at: orNull(Type.String({ format: 'date-time' }), 'when the SMTP server accepted it'),
  last_error: orNull(Type.String(), 'the SMTP server\'s refusal or the failure, without credentials'),
  created_at: Type.String({ format: 'date-time' }),
});

const NOTICES: RecordList = {
  name: 'email_notices',
  select: 'seq, id, event_type, subject_id, payload, status, batched, attempts, send_after, sent_at, last_error, created_at',
  from: 'email_notices',
  keys: NEWEST_FIRST,
  limits: RECORD_LIST_LIMITS,
};

export const listEmailNotices: DomainOperation = {
  name: 'list_email_notices',
  description:
    'The events Vigil mailed (or will mail) to the organization\'s notification_settings.email_recipients, newest first, with when each is due, ' +
    'whether it waits for a digest or the end of quiet hours, and why one failed. Recorded only while outgoing mail is configured on the deployment.',
  input: Type.Object(
    {
      status: Type.Optional(literals(STATUSES, 'only notices in this state')),
      event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only notices of this event kind' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'email_notices' },
  answer: { schema: recordPageSchema(NOTICE) },
  async run(services, caller, input) {
    const filters = equalTo(input, { status: 'status', event_type: 'event_type' });
    return { json: await recordPage(services, NOTICES, caller.organization.id, filters, input, (rows) => rows.map(noticeView)) };
  },
};

function noticeView(r: Record<string, unknown>) {
  return {
    id: String(r.id), event_type: String(r.event_type), subject_id: r.subject_id ?? null, headline: headline(JSON.parse(String(r.payload))),
    status: r.status, batched: r.batched === true || r.batched === 't', attempts: Number(r.attempts), send_after: iso(r.send_after), sent_at: iso(r.sent_at),
    last_error: r.last_error ?? null, created_at: iso(r.created_at),
  };
}

export const EMAIL_OPERATIONS: DomainOperation[] = [listEmailNotices];
