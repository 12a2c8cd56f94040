/**
 * When a failed delivery is tried again: 8 attempts in all, the waits after the 1st to the 7th failure
 * 30 s, 1, 2, 4, 8, 16 and 32 minutes (doubling), each stretched or shrunk by up to 20 % at random (jitter, so
 * deliveries that failed together do not retry together). The last try comes about an hour after the first
 * (51 to 76 minutes, 63.5 at the middle); when it fails too the delivery is `dead`. A deployment (or a test) may
 * replace the waits (`ServiceConfig.outbound.retryDelaysSeconds`): the number of attempts is one more than the
 * number of waits.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [30, 60, 120, 240, 480, 960, 1920];
export const JITTER = 0.2;

/** Attempts a delivery gets under a schedule. */
export const attemptsAllowed = (delays: readonly number[]) => delays.length + 1;

/** Seconds to wait after failed attempt `attempt` (1 for the first), or null when it was the last. */
export function retryDelay(delays: readonly number[], attempt: number, random: () => number = Math.random): number | null {
  const base = delays[attempt - 1];
  if (base === undefined) return null;
  return base * (1 - JITTER + 2 * JITTER * random());
}
