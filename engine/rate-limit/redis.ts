/**
 * The Redis store of the webhook rate limit (`VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis`): `RateLimiterRedis` over
 * one ioredis client, so every instance pointed at the same Redis counts in the same keys. When Redis does not
 * answer (not yet connected, gone, slow), each request is counted by an in-memory insurance limiter instead —
 * per instance until Redis is back — so a Redis outage never fails or unblocks a webhook.
 */
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '../logger.ts';

/** the name the client gives itself (`CLIENT LIST` on the Redis side shows which connections are Vigil's) */
export const REDIS_CONNECTION_NAME = 'vigil-rate-limit';

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * `ready` settles once the first connection attempt has (or, after the connect timeout, has not) succeeded, so an
 * instance just started counts its first requests in Redis, not in memory, when Redis answers.
 */
export function redisLimiter(url: string, options: LimiterOptions, log?: Logger): { ready: Promise<RateLimiterRedis>; close(): Promise<void> } {
  const connectTimeout = 2000;
  const client = new Redis(url, {
    connectionName: REDIS_CONNECTION_NAME,
    // bounded waits: a hanging connect is retried, a command without a reply fails over to the insurance limiter
    connectTimeout,
    commandTimeout: 1000,
    // no queueing while disconnected and no resending after a drop: a request is counted now or in memory
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  const hidden = secretsOf(url);
  let down = false;
  // an 'error' event with no listener would crash the process; each outage is logged once, never with the URL
  client.on('error', (error: Error & { code?: string }) => {
    if (down) return;
    down = true;
    const message = hidden.reduce((text, secret) => text.replaceAll(secret, '[redacted]'), error.message);
    // one line per limiter (webhooks, API), each naming its key prefix
    log?.warn({ code: error.code, message, limiter: options.keyPrefix }, 'The rate-limit Redis does not answer: each instance counts requests in memory until it is back.');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log?.info({ limiter: options.keyPrefix }, 'The rate-limit Redis answers again: requests are counted there.');
  });
  const limiter = new RateLimiterRedis({
    ...options,
    storeClient: client,
    // ioredis is the library's default client (`useRedisPackage` is for node-redis 4+)
    useRedisPackage: false,
    // while the client is not connected, go to the insurance limiter at once instead of failing a command
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(options),
  });
  const ready = new Promise<RateLimiterRedis>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      resolve(limiter);
    };
    const timer = setTimeout(settle, connectTimeout);
    client.once('ready', settle).once('error', settle).once('end', settle);
  });
  return {
    ready,
    async close() {
      // no request is in flight at shutdown: drop the connection and stop reconnecting
      client.disconnect();
    },
  };
}

/** The URL's password as written and as sent (percent-decoded), to keep out of log lines. */
function secretsOf(url: string): string[] {
  const written = new URL(url).password;
  if (!written) return [];
  try {
    return [written, decodeURIComponent(written)];
  } catch {
    return [written];
  }
}
