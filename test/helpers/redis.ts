/** The Redis that tests of the shared rate-limit store use, when one answers (TEST_REDIS_URL, default local). */
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A connected client of the test Redis, or undefined when none answers within a second. */
export async function testRedis(): Promise<Redis | undefined> {
  const probe = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return probe;
  } catch {
    probe.disconnect();
    return undefined;
  }
}
