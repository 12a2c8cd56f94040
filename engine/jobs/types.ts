/**
 * The durable background job queue as other parts see it: `services.jobs.send(…)` to enqueue, and
 * `JobHandler`s listed in a module's `jobs` (engine/module.ts) to work a queue. The engine knows no queue name: the
 * composition root passes the handlers.
 */
import type { Services } from '../operations/types.ts';
import type { SqlExecutor } from '../persistence/sql.ts';

/** One job as its handler receives it. `data` is what was sent, read back from JSON: check it before use. */
export interface Job {
  id: string;
  data: unknown;
  /** 0 on the first attempt, then 1, 2, … */
  retryCount: number;
}

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

/**
 * Works one queue. `handle` resolving completes the job; throwing fails this attempt, and the job is retried
 * per the retry options (the queue's, set from here, unless the send overrode them).
 *
 * For handler authors: the thrown error's message is stored with the job (pg-boss keeps it in
 * `pgboss.job.output`) and logged, so it must never carry a secret or a submitted value. Database driver
 * errors (whose messages hold SQL and parameters) are reduced to their class name before they are stored.
 * A job may run more than once (a retry, or an instance that died mid-job): make `handle` idempotent.
 */
export interface JobHandler extends RetryOptions {
  /** the queue's name: letters, digits, `_`, `-`, `.` and `/` */
  queue: string;
  handle(job: Job, services: Services): Promise<void>;
  /** workers of this queue in one instance, each running its batch (default 1) */
  concurrency?: number;
  /**
   * jobs one worker fetches at once and runs together (default 1); while a fetch comes back full the worker
   * fetches again at once instead of waiting for the next poll, so a backlog drains at the handlers' pace.
   * A failing job fails alone. In flight at most: concurrency × batchSize
   */
  batchSize?: number;
  /**
   * jobs of one `group` (see SendOptions) running at the same time, across every instance (counted in the
   * database: each fetch counts the running jobs per group). A bound per fetch: fetches that run at the same
   * moment (several workers or instances) do not see each other's jobs yet, so a group may briefly reach
   * `groupConcurrency` times the number of simultaneous fetches.
   */
  groupConcurrency?: number;
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
