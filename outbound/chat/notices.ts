/**
 * Enqueuing chat posts, inside the caller's open transaction (so a post is queued exactly when the change that
 * caused it commits), for an organization whose workspace is connected:
 *
 * - alert.fired opens the alert's thread: a post to the channel `alert_channel_pattern` names for it, falling back
 *   to `default_channel` when that channel does not exist; with `thread_per_alert` the post is kept as the alert's
 *   thread (`chat_threads`);
 * - a quiet re-fire inside the cooldown (alert.fired marked `quiet_refire`), an un-acknowledgement (marked
 *   `unacknowledged`), alert.acknowledged and alert.resolved
 *   reply in that thread and update its first post to show the alert's state (resolved: the thread is closed);
 *   without `thread_per_alert`, or for an alert that has no thread, each is a message of its own to the alert's
 *   channel. The messages about one alert are chained (`after_id`: each waits for the one before) so they are sent in order;
 * - every other kind (incidents, cards, deployments, fix requests) is a post to `default_channel` (none set: recorded
 *   `not_posted`); change notifications post to the channel they name (`enqueueChatPost`).
 *
 * While `notification_settings.quiet_hours` are in force a post is stored `held` until they end and is not queued;
 * `releaseHeldChat` (release.ts) queues it then.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { OutboundEvent } from '../events.ts';
import { quietUntil } from '../preferences/quiet-hours.ts';
import { readNotificationSettings } from '../preferences/notification-settings.ts';
import { alertChange, alertOpening, eventContent, plain, type ChatContent } from '../render/chat-messages.ts';
import { CHAT_QUEUE, chatGroup } from './queue.ts';
import { alertChannel, readChatSettings, type ChatSettings } from './settings.ts';

type Json = Record<string, any>;

interface NewMessage {
  id: string;
  eventId: string | null;
  eventType: string;
  subjectId: string | null;
  method: 'post' | 'update';
  channel: string | null;
  fallback: string | null;
  threadOf: string | null;
  afterId: string | null;
  content: ChatContent;
}


/** Collects one transaction's chat messages and thread changes, then writes them with their jobs. */
class ChatWriter {
  readonly #sql: Sql;
  readonly #org: string;
  readonly #settings: ChatSettings;
  readonly #messages: NewMessage[] = [];
  /** alert id → the first post of its thread (null: none) */
  readonly #threads = new Map<string, string | null>();
  /** alert id → the last message about it: the next one waits for it, so an alert's messages keep their order */
  readonly #last = new Map<string, string | null>();
  readonly #opened: { alertId: string; messageId: string }[] = [];
  readonly #closed = new Map<string, boolean>();

  constructor(sql: Sql, organizationId: string, settings: ChatSettings) {
    this.#sql = sql;
    this.#org = organizationId;
    this.#settings = settings;
  }

  add(m: Omit<NewMessage, 'id' | 'threadOf' | 'afterId' | 'fallback'> & Partial<Pick<NewMessage, 'threadOf' | 'afterId' | 'fallback'>>): string {
    const id = randomUUID();
    this.#messages.push({ threadOf: null, afterId: null, fallback: null, ...m, id });
    return id;
  }

  /** The first post of the alert's thread; null when it has none. */
  async #thread(alertId: string): Promise<string | null> {
    if (!this.#threads.has(alertId)) {
      const [row] = await this.#sql('select message_id from chat_threads where alert_id = ? and organization_id = ?', [alertId, this.#org]);
      this.#threads.set(alertId, row ? String(row.message_id) : null);
    }
    return this.#threads.get(alertId)!;
  }

  /** The last message about the alert (this batch's included), which the next one waits for. */
  async #lastAbout(alertId: string): Promise<string | null> {
    if (!this.#last.has(alertId)) {
      const [row] = await this.#sql('select id from chat_messages where organization_id = ? and subject_id = ? order by seq desc limit 1', [this.#org, alertId]);
      this.#last.set(alertId, row ? String(row.id) : null);
    }
    return this.#last.get(alertId)!;
  }

  /** Adds a message about an alert, after the alert's previous one. */
  async #about(alertId: string, m: Parameters<ChatWriter['add']>[0]): Promise<string> {
    const id = this.add({ ...m, afterId: await this.#lastAbout(alertId) });
    this.#last.set(alertId, id);
    return id;
  }

  #alertChannel(alert: Json): string | null {
    const channel = alertChannel(this.#settings.alert_channel_pattern, alert);
    return channel === '#' ? null : channel;
  }

  async event(event: OutboundEvent): Promise<void> {
    const base = { eventId: event.id, eventType: event.type as string, subjectId: event.subjectId };
    const alert = (event.data as Json).alert as Json | undefined;
    const isAlert = event.type.startsWith('alert.') && alert && typeof alert.id === 'string';
    if (!isAlert) {
      this.add({ ...base, method: 'post', channel: this.#settings.default_channel, content: eventContent(event) });
      return;
    }
    const alertId = String(alert.id);
    const toChannel = { method: 'post' as const, channel: this.#alertChannel(alert), fallback: this.#settings.default_channel };
    const data = event.data as Json;
    if (event.type === 'alert.fired' && data.quiet_refire !== true && data.unacknowledged !== true) {
      const id = await this.#about(alertId, { ...base, ...toChannel, content: alertOpening(event, 'firing') });
      if (this.#settings.thread_per_alert) {
        this.#threads.set(alertId, id);
        this.#opened.push({ alertId, messageId: id });
        this.#closed.delete(alertId);
      }
      return;
    }
    const kind = event.type === 'alert.fired' ? (data.unacknowledged === true ? 'unacknowledged' : 'refired') : event.type === 'alert.acknowledged' ? 'acknowledged' : 'resolved';
    const typed = { ...base, eventType: kind === 'refired' ? 'alert.refired' : kind === 'unacknowledged' ? 'alert.unacknowledged' : event.type };
    const opener = this.#settings.thread_per_alert ? await this.#thread(alertId) : null;
    if (!opener) {
      await this.#about(alertId, { ...typed, ...toChannel, content: alertChange(kind, event) });
      return;
    }
    await this.#about(alertId, { ...typed, method: 'post', channel: null, threadOf: opener, content: alertChange(kind, event) });
    // the first post shows the alert's state: resolved closes the thread, a quiet re-fire opens it again
    const state = kind === 'refired' || kind === 'unacknowledged' ? 'firing' : kind;
    await this.#about(alertId, { ...typed, method: 'update', channel: null, threadOf: opener, content: alertOpening(event, state) });
    if (kind !== 'acknowledged') this.#closed.set(alertId, kind === 'resolved');
  }

  /** Writes the messages (held while quiet hours are in force), the threads, and the jobs of what may go now. */
  async write(services: Services, store: { execute: Sql }, now: Date, heldUntil: Date | null): Promise<void> {
    if (this.#messages.length > 0) {
      const rows = this.#messages.map((m) => {
        const nowhere = m.method === 'post' && m.threadOf === null && m.channel === null && m.fallback === null;
        const status = nowhere ? 'not_posted' : heldUntil ? 'held' : 'pending';
        return { m, status, jobId: status === 'pending' ? randomUUID() : null };
      });
      await this.#sql(
        `insert into chat_messages (id, organization_id, event_id, event_type, subject_id, method, channel, fallback_channel, thread_of, after_id, text, blocks,
                                    status, attempts, job_id, send_after, last_error_code, last_error, created_at, updated_at)
         values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, 0, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        rows.flatMap(({ m, status, jobId }) => [
          m.id, this.#org, m.eventId, m.eventType, m.subjectId, m.method, m.channel, m.fallback, m.threadOf, m.afterId, m.content.text, JSON.stringify(m.content.blocks),
          status, jobId, status === 'held' ? heldUntil : null,
          status === 'not_posted' ? 'no_channel' : null, status === 'not_posted' ? 'not posted: no channel to post to (the chat settings have no default_channel)' : null, now, now,
        ]),
      );
      for (const { jobId, m } of rows) if (jobId) await services.jobs.send(CHAT_QUEUE, { message_id: m.id }, { store, id: jobId, group: chatGroup(this.#org) });
    }
    for (const { alertId, messageId } of this.#opened) {
      await this.#sql(
        `insert into chat_threads (alert_id, organization_id, message_id, channel, ts, opened_at, closed_at) values (?, ?, ?, null, null, ?, null)
         on conflict (alert_id) do update set message_id = excluded.message_id, channel = null, ts = null, opened_at = excluded.opened_at, closed_at = null`,
        [alertId, this.#org, messageId, now],
      );
    }
    for (const [alertId, closed] of this.#closed) {
      await this.#sql('update chat_threads set closed_at = ? where alert_id = ? and organization_id = ?', [closed ? now : null, alertId, this.#org]);
    }
  }
}

async function prepare(services: Services, sql: Sql, organizationId: string, now: Date): Promise<{ settings: ChatSettings; heldUntil: Date | null } | null> {
  const settings = await readChatSettings(services, sql, organizationId);
  if (!settings) return null;
  const notify = await readNotificationSettings(services, sql, organizationId);
  return { settings, heldUntil: quietUntil(notify.quiet_hours, now) };
}

/** The events (kinds whose channels include chat, for a connected workspace: OutboundBatch) as chat messages. */
export async function enqueueChatNotices(services: Services, store: { execute: Sql }, organizationId: string, events: OutboundEvent[], now: Date): Promise<void> {
  if (events.length === 0 || !services.jobs?.queues.includes(CHAT_QUEUE)) return;
  const ready = await prepare(services, store.execute, organizationId, now);
  if (!ready) return;
  const writer = new ChatWriter(store.execute, organizationId, ready.settings);
  for (const event of events) await writer.event(event);
  await writer.write(services, store, now, ready.heldUntil);
}

/** One plain post to a named channel (change notifications); nothing when the workspace is not connected. */
export async function enqueueChatPost(services: Services, store: { execute: Sql }, organizationId: string, post: { channel: string; text: string; blocks?: unknown[] }, now: Date): Promise<void> {
  if (!services.jobs?.queues.includes(CHAT_QUEUE)) return;
  const ready = await prepare(services, store.execute, organizationId, now);
  if (!ready) return;
  const writer = new ChatWriter(store.execute, organizationId, ready.settings);
  const content = plain(post.text);
  writer.add({ eventId: null, eventType: 'config.changed', subjectId: null, method: 'post', channel: post.channel, content: post.blocks ? { text: content.text, blocks: post.blocks as Json[] } : content });
  await writer.write(services, store, now, ready.heldUntil);
}
