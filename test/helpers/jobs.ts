/** Test job handlers that record what they ran, and a wait for an outcome with a generous deadline. */
import type { JobHandler } from '../../engine/jobs/types.ts';
import type { Services } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';

export interface Run {
  queue: string;
  id: string;
  data: unknown;
  retryCount: number;
  /** which service ran it (services objects differ per instance) */
  services: Services;
}

/** Handlers for `queues` that append every completed run to `runs`; `fail` decides which attempts throw. */
export function recordingHandlers(queues: string[], options: { fail?: (run: Run) => boolean; runs?: Run[] } = {}): { handlers: JobHandler[]; runs: Run[]; attempts: Run[] } {
  const runs = options.runs ?? [];
  const attempts: Run[] = [];
  const handlers = queues.map(
    (queue): JobHandler => ({
      queue,
      retryLimit: 3,
      async handle(job, services) {
        const run = { queue, id: job.id, data: job.data, retryCount: job.retryCount, services };
        attempts.push(run);
        if (options.fail?.(run)) throw new Error(`test failure of attempt ${job.retryCount}`);
        runs.push(run);
      },
    }),
  );
  return { handlers, runs, attempts };
}

/** Polls `check` until it holds; fails after `ms` (a deadline for a broken queue, not a timing assumption). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** pg-boss's own record of a job (its tables live in the `pgboss` schema). */
export async function storedJob(services: Services, id: string): Promise<{ state: string; retry_count: number } | undefined> {
  const [row] = await readStore(services).execute('select state, retry_count from pgboss.job where id = ?', [id]);
  return row as { state: string; retry_count: number } | undefined;
}

/**
 * Waits until no job is due or running on any queue (pg-boss's table): whatever the queued work would send has
 * then been sent, so "nothing was sent" can be asserted without sleeping. Jobs scheduled for later are not waited for.
 */
export async function drainJobs(services: Services, ms = 30_000): Promise<void> {
  await waitFor(async () => {
    const [row] = await readStore(services).execute(`select count(*)::int as n from pgboss.job where state in ('created', 'retry', 'active') and start_after <= now()`, []);
    return (row as { n: number }).n === 0;
  }, 'the job queues to drain', ms);
}
