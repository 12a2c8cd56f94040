/**
 * Writes new cards, batched per organization. Every creation must take the organization's counter row, whose lock
 * is held until the card commits (numbers without gaps or duplicates), so one card per transaction means the
 * creations of an organization queue on that lock one commit at a time. Instead, creations that arrive while an
 * organization's write is in flight are written together by the next one: one transaction adds N to the counter,
 * inserts the N cards and their effects, and commits once. No delay when traffic is light (a lone creation is a
 * batch of one), far fewer commits under load.
 *
 * Repeats go through the same queue: a batch first reads which of its keys are already on a card (one read, no
 * transaction: a batch of repeats writes nothing) and answers those as repeats. A key twice in one batch makes one
 * card and the later deliveries get the first one's answer. Across instances the unique (organization, key) index
 * decides: a key another instance committed since the read fails the batch (rolled back, its numbers too), which is
 * then retried card by card, so each delivery ends as a card, a repeat of its key, or its own error.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { cardEvent } from '../../outbound/events.ts';
import { OutboundBatch, takesAny } from '../../outbound/publish.ts';
import { readOutbound } from '../../outbound/rules.ts';
import { cardSummary } from './publishing.ts';

type Json = Record<string, unknown>;

/** A validated card waiting for its number. */
export interface NewCard {
  id: string;
  organizationId: string;
  /** the prefix to use if this is the organization's first card */
  prefix: string;
  key: string | null;
  title: string;
  description: string | null;
  priority: string;
  labels: string[];
  service: string | null;
  assigneeUserId: string | null;
  now: Date;
  /** effects beyond the notification and chat post every new card records */
  extraEffects: [string, Json][];
  /** the 201 body, given the card's key */
  answer(cardKey: string): Json;
}

/** The 201 body of a created card, or the first answer of the key when it is a repeat. */
export type Written = { created: true; answer: Json } | { created: false; answer: Json };

interface Pending {
  card: NewCard;
  done(result: Written | Error): void;
}

/** Largest batch: bounded so one statement's parameters stay far below PostgreSQL's 65,535. */
const MAX_BATCH = 500;

const parsed = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Json;

const writers = new WeakMap<Services, CardWriter>();

/** The process's card writer for these services (one per running service). */
export function cardWriter(services: Services): CardWriter {
  let writer = writers.get(services);
  if (!writer) writers.set(services, (writer = new CardWriter(services)));
  return writer;
}

export class CardWriter {
  readonly #services: Services;
  readonly #queues = new Map<string, Pending[]>();

  constructor(services: Services) {
    this.#services = services;
  }

  create(card: NewCard): Promise<Written> {
    return new Promise<Written>((resolve, reject) => {
      const done = (result: Written | Error) => (result instanceof Error ? reject(result) : resolve(result));
      const queue = this.#queues.get(card.organizationId);
      if (queue) queue.push({ card, done });
      else {
        this.#queues.set(card.organizationId, [{ card, done }]);
        void this.#drain(card.organizationId);
      }
    });
  }

  /** Writes the organization's queue batch by batch until it is empty; the map entry marks "a write is in flight". */
  async #drain(organizationId: string): Promise<void> {
    const queue = this.#queues.get(organizationId)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      let results: (Written | Error)[];
      try {
        results = await this.#write(batch.map((p) => p.card));
      } catch (error) {
        results = [];
        if (batch.length === 1) results.push(await this.#failed(batch[0]!.card, error));
        else for (const p of batch) results.push(await this.#write([p.card]).then((r) => r[0]!, (e: unknown) => this.#failed(p.card, e)));
      }
      batch.forEach((p, i) => p.done(results[i]!));
    }
    this.#queues.delete(organizationId);
  }

  /** A card's write failed: a unique violation on its key means another writer committed that key first. */
  async #failed(card: NewCard, error: unknown): Promise<Written | Error> {
    try {
      if (card.key !== null && error instanceof UniqueConstraintViolationException) {
        const [existing] = await readStore(this.#services).execute('select answer from cards where organization_id = ? and dedup_key = ?', [card.organizationId, card.key]);
        if (existing) return { created: false, answer: parsed(existing.answer) };
      }
    } catch (lookup) {
      return lookup instanceof Error ? lookup : new Error(String(lookup));
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  /**
   * Answers a batch of one organization in its order: keys already on a card are repeats, found with one read;
   * the rest are created in one transaction.
   */
  async #write(batch: NewCard[]): Promise<Written[]> {
    const results: (Written | undefined)[] = new Array(batch.length);
    const organizationId = batch[0]!.organizationId;
    const committed = await committedAnswers(readStore(this.#services).execute, organizationId, batch);
    const rest: number[] = [];
    batch.forEach((card, index) => {
      const answer = card.key === null ? undefined : committed.get(card.key);
      if (answer) results[index] = { created: false, answer };
      else rest.push(index);
    });
    if (rest.length > 0) {
      const created = await this.#create(rest.map((i) => batch[i]!));
      rest.forEach((index, i) => (results[index] = created[i]));
    }
    return results as Written[];
  }

  /**
   * One transaction that creates the cards; answers in the batch's order. A key twice in the batch makes one card
   * and the later deliveries answer it. A key committed by another instance since the read is a unique violation
   * that rolls the whole batch back (its numbers too), and the drain retries card by card.
   */
  async #create(batch: NewCard[]): Promise<Written[]> {
    const results: (Written | undefined)[] = new Array(batch.length);
    const fresh: { card: NewCard; index: number }[] = [];
    const leaders = new Map<string, number>();
    batch.forEach((card, index) => {
      if (card.key === null) fresh.push({ card, index });
      else if (!leaders.has(card.key)) (leaders.set(card.key, index), fresh.push({ card, index }));
    });
    const first = batch[0]!;
    // card.created goes out with the cards when an outbound rule takes it (read before the counter lock is taken)
    const { rules } = await readOutbound(this.#services, readStore(this.#services).execute, first.organizationId);
    const announce = takesAny(rules, ['card.created']) ? new OutboundBatch(first.organizationId, rules) : null;
    return inTransaction(this.#services, async (store) => {
      // the counter row's lock is held until this batch commits
      const [counter] = await store.execute(
        `insert into board_counters (organization_id, prefix, last_number) values (?, ?, ?)
         on conflict (organization_id) do update set last_number = board_counters.last_number + excluded.last_number returning prefix, last_number`,
        [first.organizationId, first.prefix, fresh.length],
      );
      await insertCards(store.execute, String(counter!.prefix), Number(counter!.last_number) - fresh.length + 1, fresh, results);
      if (announce) {
        for (const { card, index } of fresh) {
          const summary = cardSummary(this.#services, { ...card, key: results[index]!.answer.key, status: 'triage' });
          announce.add(cardEvent('card.created', summary, null, card.now));
        }
        await announce.enqueue(this.#services, store, first.now);
      }
      batch.forEach((card, index) => {
        if (results[index] === undefined) results[index] = { created: false, answer: results[leaders.get(card.key!)!]!.answer };
      });
      return results as Written[];
    });
  }
}

/** The first answers of the batch's keys that are already on a card. */
async function committedAnswers(sql: Sql, organizationId: string, batch: NewCard[]): Promise<Map<string, Json>> {
  const keys = [...new Set(batch.flatMap((c) => (c.key === null ? [] : [c.key])))];
  const answers = new Map<string, Json>();
  if (keys.length === 0) return answers;
  const rows = await sql(`select dedup_key, answer from cards where organization_id = ? and dedup_key in (${keys.map(() => '?').join(', ')})`, [organizationId, ...keys]);
  for (const row of rows) answers.set(String(row.dedup_key), parsed(row.answer));
  return answers;
}

async function insertCards(sql: Sql, prefix: string, start: number, fresh: { card: NewCard; index: number }[], results: (Written | undefined)[]): Promise<void> {
  const cardParams: unknown[] = [];
  const effects: unknown[][] = [];
  fresh.forEach(({ card, index }, i) => {
    const number = start + i;
    const cardKey = `${prefix}-${number}`;
    const answer = card.answer(cardKey);
    results[index] = { created: true, answer };
    cardParams.push(
      card.id, card.organizationId, number, cardKey, card.title, card.description, card.priority, JSON.stringify(card.labels), card.service,
      card.assigneeUserId, card.key, JSON.stringify(answer), card.now, card.now,
    );
    const kinds: [string, Json][] = [
      ['notification', { reason: 'card opened', key: cardKey, title: card.title, priority: card.priority }],
      ['chat_post', { reason: 'card opened', key: cardKey, title: card.title }],
      ...card.extraEffects,
    ];
    for (const [kind, detail] of kinds) effects.push([card.organizationId, card.id, card.now, kind, JSON.stringify(detail)]);
  });
  // one statement: the cards, then their effects (a data-modifying CTE), one round trip
  await sql(
    `with new_cards as (
       insert into cards (id, organization_id, number, key, title, description, priority, labels, service, assignee_user_id, status,
                          archived_at, dedup_key, answer, created_at, updated_at)
       values ${fresh.map(() => `(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, 'triage', null, ?, ?::jsonb, ?, ?)`).join(', ')} returning id)
     insert into card_effects (organization_id, card_id, at, kind, detail) values ${effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ')}`,
    [...cardParams, ...effects.flat()],
  );
}
