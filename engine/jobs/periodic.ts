/**
 * A pass that runs every few seconds (wall time: a poll cadence; what is due is decided inside the pass with the
 * injected clock) on the durable queue: a job that first queues the next one under one singleton key — so however
 * many instances share the database, one tick is queued at a time, and a failing pass does not end the chain —
 * then runs the pass. Every instance seeds the chain at start (a second seed is absorbed by the key), which also
 * restarts a chain a crash broke; for the same reason every instance seeds it again when a database outage ends (a
 * tick running when the connection dropped could not queue its successor). Seconds ≤ 0 start no passes (tests run
 * them by hand).
 */
import type { Services } from '../services.ts';
import type { JobHandler } from './types.ts';

export interface PeriodicPass {
  /** the job handler, listed in its module's `jobs` */
  job: JobHandler;
  /** records this instance's cadence and seeds the chain (from its module's `onStart`) */
  seed(services: Services, seconds: number): Promise<void>;
}

export function periodicPass(queue: string, defaultSeconds: number, pass: (services: Services) => Promise<unknown>): PeriodicPass {
  const cadence = new WeakMap<Services, number>();
  const tick = (services: Services, seconds: number) => services.jobs.send(queue, {}, { singletonKey: 'tick', startAfter: seconds });
  return {
    job: {
      queue,
      retryLimit: 0,
      expireInSeconds: 300,
      async handle(_job, services) {
        const seconds = cadence.get(services) ?? defaultSeconds;
        if (seconds <= 0) return;
        await tick(services, seconds);
        await pass(services);
      },
    },
    async seed(services, seconds) {
      cadence.set(services, seconds);
      if (seconds <= 0) return;
      // a failed re-seed is another outage, noted (and logged once) by the outage state; the next recovery retries
      services.outage.onRecovery(() => void tick(services, 0).catch((error: unknown) => services.outage.noted(error) || services.log.error({ queue, code: (error as { code?: unknown })?.code }, 'could not restart the periodic pass')));
      await tick(services, 0);
    },
  };
}
