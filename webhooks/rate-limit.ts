/**
 * The per-organization, per-source rate limit of the webhooks, from rate-limiter-flexible: an in-memory store
 * on one machine; with a PostgreSQL URL, a table shared by every instance serving that database
 * (`RateLimiterPostgres` on its own small pg.Pool, with the in-memory limiter as insurance should the database
 * not answer). Its table is one of the service's own (created by the migrations, in the library's layout), so
 * nothing outside the migrations creates tables; the limiter still reports ready before the first request counts.
 */
import { EntitySchema } from '@mikro-orm/core';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimit } from './limits.ts';

export const RATE_LIMIT_TABLE = 'webhook_rate_limits';

/** The layout rate-limiter-flexible's PostgreSQL store uses (key, consumed points, expiry in ms). */
export const WebhookRateLimitEntity = new EntitySchema<any>({
  name: 'WebhookRateLimit',
  tableName: RATE_LIMIT_TABLE,
  properties: {
    key: { type: 'string', columnType: 'varchar(255)', primary: true },
    points: { type: 'integer', default: 0 },
    expire: { type: 'bigint', columnType: 'bigint', nullable: true },
  },
});

export interface WebhookLimiter {
  /** null when allowed; otherwise the seconds to wait */
  consume(key: string): Promise<number | null>;
  close(): Promise<void>;
}

/** `sharedUrl`: the PostgreSQL database whose table every instance counts in; absent, counts stay in memory. */
export function createLimiter(limit: RateLimit, sharedUrl?: string): WebhookLimiter {
  const options = { keyPrefix: 'vigil_webhooks', points: limit.points, duration: limit.durationSeconds };
  const memory = new RateLimiterMemory(options);
  let pool: pg.Pool | undefined;
  let ready: Promise<RateLimiterAbstract> = Promise.resolve(memory);
  if (sharedUrl) {
    // a count lost to a crash in the last few milliseconds is harmless: no flush to disk per request
    pool = new pg.Pool({ connectionString: sharedUrl, max: 4, allowExitOnIdle: true, options: '-c synchronous_commit=off' });
    // an idle client dropped by the server (a restart, a dropped database) must not crash the process
    pool.on('error', () => undefined);
    const store = pool;
    // the table exists (a migration made it): the ready callback runs at once, inside the constructor
    ready = new Promise((resolve, reject) => {
      const made = new RateLimiterPostgres(
        { ...options, storeClient: store, tableName: RATE_LIMIT_TABLE, tableCreated: true, clearExpiredByTimeout: true, insuranceLimiter: new RateLimiterMemory(options) },
        (error?: unknown) => (error ? reject(error) : queueMicrotask(() => resolve(made))),
      );
    });
    // a failure surfaces on the first request; never as an unhandled rejection at start-up
    ready.catch(() => undefined);
  }
  return {
    async consume(key) {
      const limiter = await ready;
      try {
        await limiter.consume(key);
        return null;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        throw refusal;
      }
    },
    async close() {
      await pool?.end();
    },
  };
}
