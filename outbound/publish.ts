/**
 * Publishing events: a batch collects the events of one unit of work (one alert delivery, one card batch, …),
 * matches each against the organization's outbound rules (read once for the batch: rules.ts), and enqueues one
 * delivery per event and config inside the caller's transaction — a delivery row and its job commit or roll
 * back with the change that caused the event, so a 2xx answer means the deliveries are queued.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction, readStore } from '../engine/operations/context.ts';
import type { Services } from '../engine/services.ts';
import type { SqlExecutor as Sql } from '../engine/persistence/store.ts';
import { enqueueNotices } from './notices.ts';
import type { EventKind, OutboundEvent } from './events.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './deliveries/queue.ts';
import { envelope } from './render/envelope.ts';
import { readOutbound, targetsOf, type OutboundRules } from './rules.ts';

interface Pending {
  id: string;
  jobId: string;
  event: OutboundEvent;
  configId: string;
  ruleIds: string[];
  payload: string;
}

/** Where one event went: the outbound configs chosen by rules (ids), and whether chat and email take its kind. */
export interface Reach {
  outbound: string[];
  chat: boolean;
  email: boolean;
}

export class OutboundBatch {
  readonly #organizationId: string;
  readonly #rules: OutboundRules;
  readonly #pending: Pending[] = [];
  /** events posted to chat and mailed (notification_settings.channels): outbound/notices.ts */
  readonly #chat: OutboundEvent[] = [];
  readonly #email: OutboundEvent[] = [];

  constructor(organizationId: string, rules: OutboundRules) {
    this.#organizationId = organizationId;
    this.#rules = rules;
  }

  /** Adds an event; answers where it goes: the outbound configs its rules chose, chat, email (an effect records this). */
  add(event: OutboundEvent): Reach {
    const chat = this.#rules.chatKinds?.has(event.type) === true;
    const email = this.#rules.emailKinds?.has(event.type) === true;
    if (chat) this.#chat.push(event);
    if (email) this.#email.push(event);
    const targets = targetsOf(this.#rules, event);
    const payload = targets.length ? envelope(event, this.#organizationId) : '';
    for (const t of targets) this.#pending.push({ id: randomUUID(), jobId: randomUUID(), event, configId: t.configId, ruleIds: t.ruleIds, payload });
    return { outbound: targets.map((t) => t.configId), chat, email };
  }

  /**
   * Adds an event for chat alone (when its kind is posted to chat): it reaches no outbound rule and no email. A quiet
   * re-fire inside the cooldown updates the alert's chat thread this way (outbound/alerts.ts).
   */
  addChatOnly(event: OutboundEvent): void {
    if (this.#rules.chatKinds?.has(event.type)) this.#chat.push(event);
  }

  /** Adds an event for one config, outside the rules (change notifications name their config themselves). */
  addTo(event: OutboundEvent, configId: string): void {
    this.#pending.push({ id: randomUUID(), jobId: randomUUID(), event, configId, ruleIds: [], payload: envelope(event, this.#organizationId) });
  }

  get size(): number {
    return this.#pending.length;
  }

  /** Writes the deliveries, the chat posts and emails, and their jobs through the caller's open transaction (`store`). */
  async enqueue(services: Services, store: { execute: Sql }, now: Date): Promise<void> {
    if (this.#chat.length > 0 || this.#email.length > 0) {
      await enqueueNotices(services, store, this.#organizationId, { chat: this.#chat.splice(0), email: this.#email.splice(0) }, now);
    }
    if (this.#pending.length === 0 || !services.jobs?.queues.includes(OUTBOUND_QUEUE)) return;
    const rows = this.#pending;
    await store.execute(
      `insert into outbound_deliveries (id, organization_id, event_id, event_type, subject_id, config_id, rule_ids, payload, status, attempts, job_id,
                                        next_attempt_at, created_at, updated_at)
       values ${rows.map(() => `(?, ?, ?, ?, ?, ?, ?::jsonb, ?, 'pending', 0, ?, ?, ?, ?)`).join(', ')}`,
      rows.flatMap((d) => [d.id, this.#organizationId, d.event.id, d.event.type, d.event.subjectId, d.configId, JSON.stringify(d.ruleIds), d.payload, d.jobId, now, now, now]),
    );
    for (const d of rows) {
      await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: d.id }, { store, id: d.jobId, group: destinationGroup(this.#organizationId, d.configId) });
    }
    this.#pending.length = 0;
  }
}

/** Whether an event of one of these kinds may go anywhere (before building the events at all): a rule, chat or email. */
export function takesAny(rules: OutboundRules, kinds: readonly EventKind[]): boolean {
  return kinds.some((kind) => (rules.outboundKinds.has(kind) && rules.rules.some((r) => r.events.includes(kind))) || rules.chatKinds?.has(kind) || rules.emailKinds?.has(kind));
}

/**
 * Publishes events from inside the caller's open transaction (`store`): reads the rules through it (one query),
 * and when one may take `kinds`, builds the events and enqueues their deliveries with the caller's change.
 */
export async function publish(services: Services, store: { execute: Sql }, organizationId: string, kinds: readonly EventKind[], events: () => OutboundEvent[] | Promise<OutboundEvent[]>): Promise<void> {
  const { rules } = await readOutbound(services, store.execute, organizationId);
  if (!takesAny(rules, kinds)) return;
  const batch = new OutboundBatch(organizationId, rules);
  for (const event of await events()) batch.add(event);
  await batch.enqueue(services, store, services.clock.now());
}

/**
 * A write that may publish events but has no transaction of its own (one upsert): the rules are read first;
 * when none may take `kinds` the write runs as before, else it runs in a transaction with its deliveries.
 */
export async function writeAndPublish<T>(
  services: Services, organizationId: string, kinds: readonly EventKind[], write: (sql: Sql) => Promise<T>, events: (result: T, sql: Sql) => Promise<OutboundEvent[]>,
): Promise<T> {
  const { rules } = await readOutbound(services, readStore(services).execute, organizationId);
  if (!takesAny(rules, kinds)) return write(readStore(services).execute);
  return inTransaction(services, async (store) => {
    const result = await write(store.execute);
    const batch = new OutboundBatch(organizationId, rules);
    for (const event of await events(result, store.execute)) batch.add(event);
    await batch.enqueue(services, store, services.clock.now());
    return result;
  });
}
