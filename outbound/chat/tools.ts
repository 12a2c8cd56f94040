/** `list_chat_messages` (viewer; also `GET /api/v1/config/chat_messages`): what was posted to chat, where, and why a post failed. */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { iso } from '../../engine/persistence/store.ts';
import { literals, orNull, time } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';

const STATUSES = ['held', 'pending', 'sending', 'waiting', 'retrying', 'sent', 'failed', 'not_posted', 'cancelled'] as const;

const MESSAGE = Type.Object({
  id: Type.String(),
  event_type: Type.String({ description: 'the event kind that caused it; alert.refired: a quiet re-fire inside the cooldown; alert.unacknowledged: back to firing without a page; config.changed: a change notification' }),
  subject_id: orNull(Type.String(), 'what it is about: an alert, incident, card, deployment or fix request id'),
  method: literals(['post', 'update'], 'post: chat.postMessage (a reply when thread_of is set); update: chat.update of the thread\'s first post'),
  channel: orNull(Type.String(), 'the channel it is posted to; null for a reply or update, which go to their thread\'s channel'),
  fallback_channel: orNull(Type.String(), 'where the post goes when channel does not exist (default_channel)'),
  thread_of: orNull(Type.String(), 'the first post of the thread this message replies in or updates'),
  status: literals(STATUSES, 'held (quiet hours, until send_after), pending, sending, waiting (for the message before it in its thread), retrying, sent, failed, not_posted, cancelled (the workspace was disconnected)'),
  attempts: Type.Integer(),
  posted_channel: orNull(Type.String(), 'the channel id the chat API answered'),
  ts: orNull(Type.String(), 'the message ts the chat API answered'),
  last_error_code: orNull(Type.String(), 'the chat API\'s error (channel_not_found, invalid_auth, ratelimited, …), http_<status>, timeout or network'),
  last_error: orNull(Type.String(), 'why it failed or was not posted, in a sentence'),
  text: Type.String(),
  send_after: time('held until then by quiet hours'),
  next_attempt_at: time('when the next try is due, after a failed attempt'),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: time('when the chat API accepted it'),
});

const MESSAGES: RecordList = {
  name: 'chat_messages',
  select: `seq, id, event_type, subject_id, method, channel, fallback_channel, thread_of, status, attempts, posted_channel, ts, last_error_code, last_error,
    text, send_after, next_attempt_at, created_at, sent_at`,
  from: 'chat_messages',
  keys: NEWEST_FIRST,
  limits: RECORD_LIST_LIMITS,
};

export const listChatMessages: DomainOperation = {
  name: 'list_chat_messages',
  description:
    'What Vigil posted (or tried to post) to the organization\'s chat workspace, newest first: alert threads (the first post, replies, and updates of the ' +
    'first post), incidents, cards and change notifications, each with its channel, status, attempts and the chat API\'s error when it failed. ' +
    'A failed call is tried 6 times over about 9 minutes when the failure is transient (HTTP 5xx, 429, timeout, connection); ' +
    'a refusal such as invalid_auth fails at once.',
  input: Type.Object(
    {
      status: Type.Optional(literals(STATUSES, 'only messages in this state')),
      subject_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only messages about this alert, incident, card, deployment or fix request' })),
      event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only messages of this event kind' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'chat_messages' },
  answer: { schema: recordPageSchema(MESSAGE) },
  async run(services, caller, input) {
    const filters = equalTo(input, { status: 'status', subject_id: 'subject_id', event_type: 'event_type' });
    return { json: await recordPage(services, MESSAGES, caller.organization.id, filters, input, (rows) => rows.map(messageView)) };
  },
};

function messageView(r: Record<string, unknown>) {
  return {
    id: String(r.id), event_type: String(r.event_type), subject_id: r.subject_id ?? null, method: r.method, channel: r.channel ?? null,
    fallback_channel: r.fallback_channel ?? null, thread_of: r.thread_of ?? null, status: r.status, attempts: Number(r.attempts),
    posted_channel: r.posted_channel ?? null, ts: r.ts ?? null, last_error_code: r.last_error_code ?? null, last_error: r.last_error ?? null, text: String(r.text),
    send_after: iso(r.send_after), next_attempt_at: iso(r.next_attempt_at), created_at: iso(r.created_at), sent_at: iso(r.sent_at),
  };
}

export const CHAT_OPERATIONS: DomainOperation[] = [listChatMessages];
