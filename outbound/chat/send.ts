/**
 * Sending: the `chat-messages` queue works one job per attempt of one message (outbound/deliveries/deliver.ts's shape). A job:
 *
 * 1. claims its message with a compare-and-set on `job_id` (a repeated or superseded job does nothing), reading
 *    the chat connection with it: disconnected since → `cancelled`;
 * 2. a message about an alert first waits for the alert's message before it (`after_id`): while that one has not
 *    settled the message is `waiting` with no job, and the predecessor queues it when it settles (the
 *    predecessor's row lock makes that hand-over race-free); then a reply or update, unless its thread's first post
 *    was sent, is `not_posted` — a reply never goes out unthreaded;
 * 3. calls the Web API (net/chat-api.ts) with the bot token, opened only here: chat.postMessage to the channel (a reply
 *    with `thread_ts`), or chat.update of the first post. `channel_not_found` on a post moves it to its fallback
 *    channel (default_channel) in the same attempt, and with none the message is `not_posted`;
 * 4. records the outcome: `sent` (with the channel id and ts; a thread's first post fills its thread); a
 *    transient failure → `retrying` with a new job after the schedule's wait (Retry-After when longer), at most
 *    `attemptsAllowed` attempts, then `failed`; a permanent one → `failed` at once. Settling queues the waiting
 *    message that follows it.
 */
import { randomUUID } from 'node:crypto';
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { attemptsAllowed, retryDelay } from '../deliveries/schedule.ts';
import { INTERRUPTED, type OrphanKind } from '../deliveries/orphans.ts';
import { CHAT_QUEUE, chatGroup } from './queue.ts';
import { callWebApi, type CallResult } from '../net/chat-api.ts';
import chat from '../../resources/chat.ts';

/** waits after the 1st to 5th failed attempt: 6 attempts over about 9 minutes (±20 % jitter) */
export const CHAT_RETRY_DELAYS_SECONDS: readonly number[] = [10, 30, 60, 120, 300];
const MAX_RETRY_AFTER_SECONDS = 900;
const SETTLED = ['sent', 'failed', 'not_posted', 'cancelled'];

export type ChatStatus = 'held' | 'pending' | 'sending' | 'waiting' | 'retrying' | 'sent' | 'failed' | 'not_posted' | 'cancelled';

interface Claimed {
  organization_id: string;
  method: 'post' | 'update';
  channel: string | null;
  fallback_channel: string | null;
  thread_of: string | null;
  after_id: string | null;
  text: string;
  blocks: unknown;
  attempts: number;
  /** the sealed bot token, or null when the workspace is no longer connected */
  sealed_token: string | null;
}

interface Outcome {
  status: 'sent' | 'retrying' | 'failed' | 'not_posted' | 'cancelled';
  code: string | null;
  error: string | null;
  channel?: string | null;
  ts?: string | null;
  /** the post went to its fallback channel: the row keeps that as its channel */
  movedTo?: string;
  wait?: number;
}

const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

export async function claimChatMessage(services: Services, id: string, jobId: string, now: Date): Promise<Claimed | null> {
  const family = services.registry.family(chat);
  const token = `(select case when c.workspace_id is not null then c.bot_token end from "${tableName(family)}" c
         where c.organization_id::text = m.organization_id::text and c.id::text = m.organization_id::text)`;
  const [row] = await readStore(services).execute(
    `update chat_messages m set status = 'sending', updated_at = ?
      where m.id = ? and m.job_id = ? and m.status in ('pending', 'retrying', 'sending')
      returning m.organization_id, m.method, m.channel, m.fallback_channel, m.thread_of, m.after_id, m.text, m.blocks, m.attempts, ${token} as sealed_token`,
    [now, id, jobId],
  );
  if (!row) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    organization_id: String(row.organization_id), method: row.method === 'update' ? 'update' : 'post', channel: str(row.channel), fallback_channel: str(row.fallback_channel),
    thread_of: str(row.thread_of), after_id: str(row.after_id), text: String(row.text), blocks: parse(row.blocks) ?? [], attempts: Number(row.attempts),
    sealed_token: typeof row.sealed_token === 'string' ? row.sealed_token : null,
  };
}

/**
 * For a message chained after another (`after_id`): whether it must wait for it (then it is marked `waiting` in the
 * same transaction that read its predecessor under a share lock, so a predecessor settling meanwhile finds it
 * waiting and queues it). For a message in a thread, then: where its thread is (null: the first post was never sent).
 */
async function gate(services: Services, id: string, jobId: string, claimed: Claimed, now: Date): Promise<'waiting' | 'go' | { channel: string; ts: string } | null> {
  if (!claimed.after_id && !claimed.thread_of) return 'go';
  return inTransaction(services, async (store) => {
    if (claimed.after_id) {
      const [before] = await store.execute('select status from chat_messages where id = ? for share', [claimed.after_id]);
      if (before && !SETTLED.includes(String(before.status))) {
        await store.execute(`update chat_messages set status = 'waiting', job_id = null, updated_at = ? where id = ? and job_id = ?`, [now, id, jobId]);
        return 'waiting';
      }
    }
    if (!claimed.thread_of) return 'go';
    const [first] = await store.execute('select status, posted_channel, ts from chat_messages where id = ?', [claimed.thread_of]);
    return first?.status === 'sent' && first.posted_channel && first.ts ? { channel: String(first.posted_channel), ts: String(first.ts) } : null;
  });
}

function fromCall(result: CallResult): Outcome {
  if (result.outcome === 'ok') return { status: 'sent', code: null, error: null, channel: result.channel, ts: result.ts };
  return { status: result.outcome === 'transient' ? 'retrying' : 'failed', code: result.code, error: result.message, wait: result.retryAfterSeconds ?? undefined };
}

async function attempt(services: Services, id: string, jobId: string, claimed: Claimed, now: Date): Promise<Outcome | 'waiting'> {
  if (!claimed.sealed_token) return { status: 'cancelled', code: 'not_connected', error: 'the chat workspace is no longer connected' };
  let token: string;
  try {
    token = services.secrets.open(claimed.sealed_token);
  } catch {
    return { status: 'failed', code: 'unreadable_token', error: 'the stored bot token could not be read; store it again' };
  }
  const content = { text: claimed.text, blocks: claimed.blocks };
  const thread = await gate(services, id, jobId, claimed, now);
  if (thread === 'waiting') return 'waiting';
  if (thread !== 'go') {
    if (!thread) return { status: 'not_posted', code: 'no_thread', error: 'not posted: the first post of the alert\'s thread was not sent, and a thread\'s messages are never posted outside it' };
    const result = claimed.method === 'update'
      ? await callWebApi(services, token, 'chat.update', { channel: thread.channel, ts: thread.ts, ...content })
      : await callWebApi(services, token, 'chat.postMessage', { channel: thread.channel, thread_ts: thread.ts, ...content });
    return fromCall(result);
  }
  const noChannel = (asked: string) => ({ status: 'not_posted' as const, code: 'channel_not_found', error: `not posted: the channel ${asked} does not exist and no default_channel is set` });
  if (!claimed.channel) return claimed.fallback_channel ? fromFallback(await post(claimed.fallback_channel), claimed.fallback_channel, null) : noChannel('(none)');
  const first = await post(claimed.channel);
  if (first.outcome !== 'permanent' || first.code !== 'channel_not_found') return fromCall(first);
  if (!claimed.fallback_channel || claimed.fallback_channel === claimed.channel) return noChannel(claimed.channel);
  return fromFallback(await post(claimed.fallback_channel), claimed.fallback_channel, claimed.channel);

  function post(channel: string) {
    return callWebApi(services, token, 'chat.postMessage', { channel, ...content });
  }
  function fromFallback(result: CallResult, fallback: string, asked: string | null): Outcome {
    const outcome = fromCall(result);
    if (outcome.status === 'failed' && outcome.code === 'channel_not_found') return { ...outcome, status: 'not_posted', error: `not posted: neither ${asked ?? 'the channel'} nor the default_channel ${fallback} exists` };
    return { ...outcome, movedTo: fallback, ...(asked && outcome.status === 'sent' ? { code: 'channel_not_found', error: `${asked} does not exist; posted to the default_channel ${fallback}` } : {}) };
  }
}

/** Queues the waiting message that follows this one in its thread (in the transaction that settled this one). */
async function releaseNext(services: Services, store: { execute: Sql }, id: string, organizationId: string, now: Date): Promise<void> {
  const next = await store.execute(`select id from chat_messages where after_id = ? and status = 'waiting' for update`, [id]);
  for (const row of next) {
    const jobId = randomUUID();
    await store.execute(`update chat_messages set status = 'pending', job_id = ?, updated_at = ? where id = ?`, [jobId, now, row.id]);
    await services.jobs.send(CHAT_QUEUE, { message_id: String(row.id) }, { store, id: jobId, group: chatGroup(organizationId) });
  }
}

export async function recordChatOutcome(services: Services, id: string, jobId: string, claimed: Claimed, outcome: Outcome, now: Date): Promise<ChatStatus> {
  const number = claimed.attempts + (outcome.status === 'cancelled' || outcome.code === 'no_thread' ? 0 : 1);
  const delays = services.config.chat?.retryDelaysSeconds ?? CHAT_RETRY_DELAYS_SECONDS;
  let status = outcome.status;
  let wait: number | null = null;
  if (status === 'retrying') {
    const scheduled = number < attemptsAllowed(delays) ? retryDelay(delays, number) : null;
    if (scheduled === null) status = 'failed';
    else wait = Math.min(Math.max(scheduled, outcome.wait ?? 0), MAX_RETRY_AFTER_SECONDS);
  }
  const nextJob = wait !== null ? randomUUID() : null;
  const next = wait !== null ? new Date(now.getTime() + Math.round(wait * 1000)) : null;
  const error = status === 'failed' && outcome.status === 'retrying' ? `${outcome.error} (gave up after ${number} attempts)` : outcome.error;
  await inTransaction(services, async (store) => {
    const [row] = await store.execute(
      `update chat_messages set status = ?, attempts = ?, job_id = ?, next_attempt_at = ?, last_error_code = ?, last_error = ?, updated_at = ?,
              posted_channel = coalesce(?, posted_channel), ts = coalesce(?, ts), sent_at = case when ? then ? else sent_at end,
              channel = coalesce(?, channel), fallback_channel = case when ?::text is null then fallback_channel end
        where id = ? and job_id = ? returning id`,
      [status, number, nextJob, next, outcome.code, error, now, outcome.channel ?? null, outcome.ts ?? null, status === 'sent', now,
        outcome.movedTo ?? null, outcome.movedTo ?? null, id, jobId],
    );
    if (!row) return;
    if (nextJob !== null) {
      await services.jobs.send(CHAT_QUEUE, { message_id: id }, { store, id: nextJob, startAfter: wait!, group: chatGroup(claimed.organization_id) });
      return;
    }
    if (status === 'sent' && claimed.method === 'post' && !claimed.thread_of) {
      await store.execute('update chat_threads set channel = ?, ts = ? where message_id = ?', [outcome.channel ?? null, outcome.ts ?? null, id]);
    }
    await releaseNext(services, store, id, claimed.organization_id, now);
  });
  services.metrics.attempt('chat', status);
  return status;
}

/** Makes the attempt a job stands for, if it still stands for one. */
export async function sendChatMessage(services: Services, id: string, jobId: string): Promise<ChatStatus | 'superseded'> {
  const now = services.clock.now();
  const claimed = await claimChatMessage(services, id, jobId, now);
  if (!claimed) return 'superseded';
  const outcome = await attempt(services, id, jobId, claimed, now);
  if (outcome === 'waiting') return 'waiting';
  return recordChatOutcome(services, id, jobId, claimed, outcome, now);
}

function messageId(job: Job): string {
  const id = (job.data as { message_id?: unknown } | null)?.message_id;
  if (typeof id !== 'string') throw new Error('a chat message job needs message_id');
  return id;
}

export const chatMessageJob: JobHandler = {
  queue: CHAT_QUEUE,
  concurrency: 2,
  batchSize: 4,
  // a workspace's rate limits are per app and workspace: a few calls at once per organization
  groupConcurrency: 4,
  // a job whose instance died mid-call is tried again once it expires (a call lasts at most 10 s, twice with a fallback)
  retryLimit: 3,
  retryDelay: 5,
  expireInSeconds: 60,
  async handle(job, services) {
    await sendChatMessage(services, messageId(job), job.id);
  },
};

/** Chat messages whose job ended before they settled (outbound/deliveries/orphans.ts): the interrupted call counts as a transient failure. */
export const CHAT_ORPHANS: OrphanKind = {
  table: 'chat_messages',
  queue: CHAT_QUEUE,
  unsettled: ['sending', 'pending', 'retrying'],
  job: (row) => ({ data: { message_id: String(row.id) }, group: chatGroup(String(row.organization_id)) }),
  async interrupted(services, id, jobId, now) {
    const claimed = await claimChatMessage(services, id, jobId, now);
    if (claimed) await recordChatOutcome(services, id, jobId, claimed, { status: 'retrying', code: 'interrupted', error: INTERRUPTED }, now);
  },
};
