/**
 * The job queue on pg-boss. Every queue has the `short` policy: at most one *queued* job per singleton key
 * (a running job does not block the next one for the same key). A send without a key gets its own id as key,
 * so keyless jobs never collide. Fetching uses `SKIP LOCKED` on PostgreSQL, so two instances never start the
 * same job; a job whose instance died mid-run is retried after `expireInSeconds`.
 */
import { randomUUID } from 'node:crypto';
import type { PgBoss, SendOptions as BossSendOptions } from 'pg-boss';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import type { Database } from '../persistence/database.ts';
import type { DatabaseOutage } from '../persistence/outage.ts';
import { openBoss } from './boss.ts';
import { storedError } from './stored-error.ts';
import type { JobQueue, RetryOptions, SendOptions } from './queue-types.ts';
import type { JobHandler } from './types.ts';

export interface JobQueueOptions {
  db: Database;
  databaseUrl?: string;
  handlers: readonly JobHandler[];
  log: Logger;
  /** hears of connection failures (pg-boss keeps polling through an outage: one log line for it, not one per poll) */
  outage: DatabaseOutage;
}

export interface WorkOptions {
  /** seconds between polls of an idle queue (pg-boss allows 0.5 and more) */
  pollSeconds: number;
}

/** Queue settings from a handler: only the keys it sets, so pg-boss's defaults fill the rest. */
function retrySettings(options: RetryOptions): RetryOptions {
  const { retryLimit, retryDelay, retryBackoff, expireInSeconds } = options;
  return Object.fromEntries(Object.entries({ retryLimit, retryDelay, retryBackoff, expireInSeconds }).filter(([, v]) => v !== undefined));
}

export class BossJobQueue implements JobQueue {
  readonly queues: readonly string[];
  readonly #boss: PgBoss;
  readonly #handlers: ReadonlyMap<string, JobHandler>;
  readonly #log: Logger;
  readonly #outage: DatabaseOutage;

  private constructor(boss: PgBoss, handlers: ReadonlyMap<string, JobHandler>, log: Logger, outage: DatabaseOutage) {
    this.#boss = boss;
    this.#handlers = handlers;
    this.#log = log;
    this.#outage = outage;
    this.queues = [...handlers.keys()];
  }

  /** Starts pg-boss (creating or migrating its schema) and makes sure every handler's queue exists. */
  static async start(options: JobQueueOptions): Promise<BossJobQueue> {
    const handlers = new Map<string, JobHandler>();
    for (const handler of options.handlers) {
      if (handlers.has(handler.queue)) throw new Error(`Job queue ${handler.queue} has two handlers.`);
      handlers.set(handler.queue, handler);
    }
    const boss = await openBoss(options.db, options.databaseUrl);
    // an 'error' event without a listener would end the process; pg-boss reports and carries on
    boss.on('error', (error) => {
      if (!options.outage.noted(error)) options.log.error({ err: { message: error.message } }, 'job queue error');
    });
    boss.on('warning', (warning) => options.log.warn({ warning: warning.message }, 'job queue warning'));
    await boss.start();
    for (const handler of handlers.values()) {
      const settings = { ...retrySettings(handler), notify: true };
      await boss.createQueue(handler.queue, { ...settings, policy: 'short' });
      // an existing queue keeps its row: bring its retry and notify settings up to the handler's
      await boss.updateQueue(handler.queue, settings);
      // loads the queue into pg-boss's cache now: a send inside a transaction on PGlite must not wait to read it
      await boss.findJobs(handler.queue, { id: randomUUID() });
    }
    return new BossJobQueue(boss, handlers, options.log, options.outage);
  }

  async send(queue: string, data: object, options: SendOptions = {}): Promise<string | null> {
    if (!this.#handlers.has(queue)) throw new Error(`No handler works job queue ${queue}: list one in a module's jobs.`);
    const { store, singletonKey, startAfter, group } = options;
    const id = options.id ?? randomUUID();
    const send: BossSendOptions = { ...retrySettings(options), id, singletonKey: singletonKey ?? id };
    if (startAfter !== undefined) send.startAfter = startAfter;
    if (group !== undefined) send.group = { id: group };
    if (store) send.db = { executeSql: async (text, values) => ({ rows: await store.execute(text, values ?? []) }) };
    return this.#boss.send(queue, data, send);
  }

  /** Starts the workers of every queue in this instance. */
  async ended(queue: string, ids: readonly string[]): Promise<Set<string>> {
    const ended = new Set<string>();
    for (const id of ids) {
      const [job] = await this.#boss.findJobs(queue, { id });
      if (!job || !['created', 'retry', 'active'].includes(job.state)) ended.add(id);
    }
    return ended;
  }

  async work(services: Services, options: WorkOptions): Promise<void> {
    for (const handler of this.#handlers.values()) {
      const work = {
        localConcurrency: handler.concurrency ?? 1,
        pollingIntervalSeconds: options.pollSeconds,
        // with NOTIFY pg-boss would relax its poll to 30 s; jobs that start later (retries, delays) are found by polling
        notifyPollingIntervalSeconds: options.pollSeconds,
        ...(handler.groupConcurrency ? { groupConcurrency: handler.groupConcurrency } : {}),
      };
      const run = async (job: { id: string; data: unknown; retryCount: number }) => {
        try {
          await handler.handle({ id: job.id, data: job.data, retryCount: job.retryCount }, services);
        } catch (error) {
          const stored = storedError(error);
          // a job cut off by an outage is retried like any failure; the outage is logged once, not per job
          if (!this.#outage.noted(error)) this.#log.warn({ queue: handler.queue, job: job.id, retryCount: job.retryCount, error: stored.message }, 'job failed');
          throw stored;
        }
      };
      const batchSize = handler.batchSize ?? 1;
      if (batchSize === 1) {
        // pg-boss waits out the poll after every job, so a worker drained a backlog one job per poll (20 jobs took
        // 18 s at a 2 s poll): a worker that found a job asks again at once, and waits only once it finds none.
        // One pg-boss worker per unit of concurrency, so each knows its own id to wake.
        for (let i = 0; i < (handler.concurrency ?? 1); i++) {
          let self: string | undefined;
          self = await this.#boss.work<unknown>(handler.queue, { ...work, localConcurrency: 1, batchSize }, async (jobs) => {
            try {
              for (const job of jobs) await run(job);
            } finally {
              if (self) this.#boss.notifyWorker(self);
            }
          });
        }
        continue;
      }
      // a batch runs together, each job settled on its own (one failure retries that job alone)
      await this.#boss.work<unknown>(handler.queue, { ...work, batchSize, burstWhenBatchFull: true, perJobResults: true }, (jobs) =>
        Promise.all(jobs.map((job) => run(job).then(
          () => ({ id: job.id, status: 'completed' as const }),
          (error: Error) => ({ id: job.id, status: 'failed' as const, output: { message: error.message, stack: error.stack } }),
        ))));
    }
  }

  /** Stops taking jobs, lets running ones finish (up to `timeoutMs`) and closes pg-boss's connections. */
  async stop(timeoutMs = 30_000): Promise<void> {
    await this.#boss.stop({ graceful: true, close: true, timeout: timeoutMs });
  }
}
