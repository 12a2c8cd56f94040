/**
 * The chat side's tables: every chat post, reply and message update as one row (`chat_messages`: what is sent,
 * where, its state and its last error), and one thread per alert (`chat_threads`: the post that opened it, and its
 * channel id and `ts` once sent). No bot token is ever stored here: the sender reads it from the chat row.
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optional } from '../../engine/persistence/columns.ts';

export const ChatMessageEntity = new EntitySchema<any>({
  name: 'ChatMessage',
  tableName: 'chat_messages',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order: releases and lists go by it (several rows share a millisecond)
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** the event that caused it (null for a change notification's post) */
    event_id: optional(uuid),
    /** the event kind, `alert.refired` for a quiet re-fire, `config.changed` for a change notification */
    event_type: text,
    /** what it is about: an alert, incident, card, deployment or fix request id */
    subject_id: optional(text),
    /** post (chat.postMessage, a reply when `thread_of` is set) or update (chat.update of `thread_of`) */
    method: text,
    /** the channel asked for (a name); null for replies and updates, which go to their thread's channel */
    channel: optional(text),
    /** where the post goes when `channel` does not exist (default_channel when it was enqueued) */
    fallback_channel: optional(text),
    /** the thread's first post: a reply goes in its thread, an update changes it */
    thread_of: optional(uuid),
    /** the message about the same alert enqueued before this one: this one waits until it has settled, so an alert's messages keep their order */
    after_id: optional(uuid),
    text,
    blocks: { type: 'json', columnType: 'jsonb' },
    /** held, pending, sending, waiting, retrying, sent, failed, not_posted or cancelled (outbound/chat/send.ts) */
    status: text,
    attempts: { type: 'integer', default: 0 },
    /** the job allowed to make the next attempt; any other does nothing */
    job_id: optional(uuid),
    /** held by quiet hours until then */
    send_after: optional(time),
    next_attempt_at: optional(time),
    /** the channel id and message ts the Web API answered */
    posted_channel: optional(text),
    ts: optional(text),
    /** the Web API's error code (channel_not_found, invalid_auth, …), or http_<status>, timeout, network */
    last_error_code: optional(text),
    /** why it failed or was not posted, in a sentence (never a token) */
    last_error: optional(text),
    created_at: time,
    updated_at: time,
    sent_at: optional(time),
  },
  indexes: [
    { properties: ['organization_id', 'seq'] },
    { properties: ['organization_id', 'subject_id', 'seq'] },
    { properties: ['after_id'] },
    { properties: ['status', 'send_after'] },
  ],
});

export const ChatThreadEntity = new EntitySchema<any>({
  name: 'ChatThread',
  tableName: 'chat_threads',
  properties: {
    /** one thread per alert: a fire after the cooldown opens a new one in its place */
    alert_id: { ...uuid, primary: true },
    organization_id: uuid,
    /** the post that opened it (chat_messages) */
    message_id: uuid,
    /** filled once that post is sent */
    channel: optional(text),
    ts: optional(text),
    opened_at: time,
    /** when the alert resolved (the first post was updated to say so); null again after a quiet re-fire */
    closed_at: optional(time),
  },
});

export const CHAT_ENTITIES: EntitySchema[] = [ChatMessageEntity, ChatThreadEntity];
