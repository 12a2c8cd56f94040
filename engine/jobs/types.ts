/**
 * The durable background job queue's handlers: `JobHandler`s listed in a module's `jobs` (engine/module.ts) work a
 * queue (enqueueing is `services.jobs`, queue-types.ts). The engine knows no queue name: the composition root
 * passes the handlers.
 */
import type { Services } from '../services.ts';
import type { RetryOptions } from './queue-types.ts';

/** One job as its handler receives it. `data` is what was sent, read back from JSON: check it before use. */
export interface Job {
  id: string;
  data: unknown;
  /** 0 on the first attempt, then 1, 2, … */
  retryCount: number;
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
