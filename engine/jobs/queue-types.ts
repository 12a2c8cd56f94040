/**
 * The durable background job queue as senders see it: `services.jobs.send(…)` to enqueue. Apart from the handlers
 * (types.ts), which receive the services, so that `Services` (engine/services.ts) can name the queue without a cycle.
 */
import type { SqlExecutor } from '../persistence/sql.ts';

/** How a failed or stuck job is tried again (pg-boss's own names and meanings). */
export interface RetryOptions {
  /** retries after the first attempt before the job is marked failed (default 2) */
  retryLimit?: number;
  /** seconds to wait before a retry (default 0) */
  retryDelay?: number;
  /** exponential backoff from `retryDelay` */
  retryBackoff?: boolean;
  /** seconds a job may run before it counts as failed and is retried (default 900): a crashed instance's job comes back after this */
  expireInSeconds?: number;
}

export interface SendOptions extends RetryOptions {
  /**
   * Enqueue inside this open transaction (the `store` an operation's `inTransaction` hands out): the job
   * commits or rolls back with the rows that asked for it. Without it, the send commits on its own. On the
   * embedded database a send from inside a transaction must pass its store, or it waits for that transaction
   * to end, which never comes.
   */
  store?: { execute: SqlExecutor };
  /** at most one queued (not yet started) job per key in a queue: a second send answers `null` */
  singletonKey?: string;
  /** not before this time, or this many seconds from now (fractions allowed) */
  startAfter?: Date | number;
  /** the job's id, chosen by the caller (a UUID), so a row can name its job in the same statement */
  id?: string;
  /** the group the job belongs to: the handler's `groupConcurrency` bounds how many of a group run at once */
  group?: string;
}

export interface JobQueue {
  /**
   * Enqueues a job on a queue that has a handler (refused otherwise, so a typo cannot park jobs for ever).
   * Answers the job's id, or `null` when `singletonKey` already has a queued job. `data` is stored as JSON in
   * the database: never put a secret in it (pass an id and read the secret inside the handler).
   */
  send(queue: string, data: object, options?: SendOptions): Promise<string | null>;
  /**
   * Which of these jobs of `queue` will never run again: completed, failed after their last retry, cancelled, or
   * gone (archived or never committed). A row that names such a job as its next step is orphaned.
   */
  ended(queue: string, ids: readonly string[]): Promise<Set<string>>;
  /** the queues this service knows (one per handler) */
  readonly queues: readonly string[];
}
