/**
 * A pass every instance runs on a timer of its own, for work whose deadlines live in rows claimed with
 * `FOR UPDATE SKIP LOCKED` (several instances running it at once share the due rows, none runs one twice). Unlike a
 * periodic pass (periodic.ts), nothing stands between a deadline and the pass but the cadence: no tick job waits for a
 * queue's poll (a delayed job is seen at the worker's next poll, seconds later), and no chain of ticks can break.
 * What is due is decided inside the pass with the injected clock; the timer keeps no process alive and stops when
 * the service closes. Seconds ≤ 0 start no timer (tests run the pass by hand).
 */
import type { Services } from '../services.ts';

export interface LocalPass {
  /** starts this instance's timer (from its module's `onStart`) */
  start(services: Services, seconds: number): Promise<void>;
  /** stops it (from its module's `onClose`); a pass running finishes */
  stop(services: Services): Promise<void>;
}

export function localPass(name: string, pass: (services: Services) => Promise<unknown>): LocalPass {
  const timers = new WeakMap<Services, { timer?: NodeJS.Timeout; stopped: boolean; running?: Promise<void> }>();
  return {
    async start(services, seconds) {
      if (seconds <= 0 || timers.has(services)) return;
      const state: { timer?: NodeJS.Timeout; stopped: boolean; running?: Promise<void> } = { stopped: false };
      timers.set(services, state);
      const every = seconds * 1000;
      const schedule = (delay: number) => {
        if (state.stopped) return;
        state.timer = setTimeout(() => {
          const began = performance.now();
          state.running = pass(services).then(
            () => undefined,
            // an outage is logged once by the outage state; anything else names the pass, and the next one tries again
            (error: unknown) => void (services.outage.noted(error) || services.log.error({ pass: name, code: (error as { code?: unknown })?.code }, 'a pass failed; the next one runs on time')),
          ).finally(() => schedule(Math.max(0, every - (performance.now() - began))));
        }, delay);
        state.timer.unref();
      };
      schedule(0);
    },
    async stop(services) {
      const state = timers.get(services);
      if (!state) return;
      state.stopped = true;
      clearTimeout(state.timer);
      timers.delete(services);
      await state.running;
    },
  };
}
