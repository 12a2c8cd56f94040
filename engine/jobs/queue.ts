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
import { JOB_SCHEMA, openBoss } from './boss.ts';
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
  /** seconds between looks for jobs whose time came (delayed sends, retries); pg-boss allows 0.5 and more */
  pollSeconds: number;
  /** seconds between a worker's own polls while NOTIFY works (default NOTIFY_BACKSTOP_SECONDS) */
  backstopSeconds?: number;
}

/**
 * While a queue's NOTIFY works, a worker's own poll is only a backstop against a lost notification (pg-boss's
 * default); the instance's one look every `pollSeconds` (#wakeReady) wakes the workers whose jobs came due.
 */
const NOTIFY_BACKSTOP_SECONDS = 30;

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
  /** each queue's workers to wake (pg-boss wakes a worker by its id) */
  readonly #workers = new Map<string, string[]>();
  #readyTimer: NodeJS.Timeout | undefined;
  /** the look in flight: one at a time, and awaited by stop() before the connections close */
  #looking: Promise<void> | null = null;

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
      const ids: string[] = [];
      this.#workers.set(handler.queue, ids);
      const work = {
        localConcurrency: handler.concurrency ?? 1,
        // the poll of a queue whose NOTIFY is not working (the listener down, or a database without it)
        pollingIntervalSeconds: options.pollSeconds,
        notifyPollingIntervalSeconds: Math.max(options.backstopSeconds ?? NOTIFY_BACKSTOP_SECONDS, options.pollSeconds),
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
          ids.push(self);
        }
        continue;
      }
      // a batch runs together, each job settled on its own (one failure retries that job alone)
      ids.push(await this.#boss.work<unknown>(handler.queue, { ...work, batchSize, burstWhenBatchFull: true, perJobResults: true }, (jobs) =>
        Promise.all(jobs.map((job) => run(job).then(
          () => ({ id: job.id, status: 'completed' as const }),
          (error: Error) => ({ id: job.id, status: 'failed' as const, output: { message: error.message, stack: error.stack } }),
        )))));
    }
    this.#readyTimer = setInterval(() => {
      this.#looking ??= this.#wakeReady().finally(() => void (this.#looking = null));
    }, options.pollSeconds * 1000);
    this.#readyTimer.unref();
  }

  /**
   * One statement for every queue, in place of each worker polling its own (17 workers polled 34 times a second at
   * the tests' 0.5 s, about 70 ms of CPU a second on the embedded database while idle): the queues holding a job
   * whose time came (a delayed send, a retry), by pg-boss's own test (`start_after <= job_now()`), wake their workers.
   */
  async #wakeReady(): Promise<void> {
    try {
      const { rows } = await this.#boss.getDb().executeSql(
        `select distinct name from ${JOB_SCHEMA}.job where name = any($1::text[]) and state < 'active' and not blocked and start_after <= ${JOB_SCHEMA}.job_now()`,
        [[...this.#workers.keys()]],
      );
      for (const { name } of rows as { name: string }[]) for (const id of this.#workers.get(name) ?? []) this.#boss.notifyWorker(id);
    } catch (error) {
      // the workers' backstop poll still runs; an outage is logged once by whoever notes it
      if (!this.#outage.noted(error)) this.#log.warn({ code: (error as { code?: unknown })?.code }, 'looking for due jobs failed');
    }
  }

  /** Stops taking jobs, lets running ones finish (up to `timeoutMs`) and closes pg-boss's connections. */
  async stop(timeoutMs = 30_000): Promise<void> {
    clearInterval(this.#readyTimer);
    await this.#looking;
    await this.#boss.stop({ graceful: true, close: true, timeout: timeoutMs });
  }
}
