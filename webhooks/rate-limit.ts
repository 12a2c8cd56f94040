/**
 * The per-organization, per-source rate limit of the webhooks, from rate-limiter-flexible, in one of three stores
 * (`VIGIL_WEBHOOK_RATE_LIMIT_STORE`): memory, counted by each instance alone; postgres, a table shared by every
 * instance serving that database (`RateLimiterPostgres` on its own small pg.Pool); redis, keys shared by every
 * instance pointed at that Redis (./rate-limit-redis.ts). The shared stores keep an in-memory limiter as insurance
 * should their server not answer. The PostgreSQL table is one of the service's own (created by the migrations, in
 * the library's layout), so nothing outside the migrations creates tables; the limiter still reports ready before
 * the first request counts.
 */
import { EntitySchema } from '@mikro-orm/core';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../engine/logger.ts';
import type { RateLimit } from './limits.ts';
import { redisLimiter } from './rate-limit-redis.ts';

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

/** Where the counts live; `url` is the PostgreSQL database or the Redis server every instance shares. */
export type LimiterStore = { kind: 'memory' } | { kind: 'postgres'; url: string } | { kind: 'redis'; url: string };

/** `keyPrefix` keeps counts of different purposes (or test runs) apart in a shared store; `log` hears of outages. */
export function createLimiter(limit: RateLimit, store: LimiterStore = { kind: 'memory' }, extra: { keyPrefix?: string; log?: Logger } = {}): WebhookLimiter {
  const options = { keyPrefix: extra.keyPrefix ?? 'vigil_webhooks', points: limit.points, duration: limit.durationSeconds };
  let ready: Promise<RateLimiterAbstract> = Promise.resolve(new RateLimiterMemory(options));
  let release = async () => {};
  if (store.kind === 'postgres') {
    // a count lost to a crash in the last few milliseconds is harmless: no flush to disk per request
    const pool = new pg.Pool({ connectionString: store.url, max: 4, allowExitOnIdle: true, options: '-c synchronous_commit=off' });
    // an idle client dropped by the server (a restart, a dropped database) must not crash the process
    pool.on('error', () => undefined);
    // the table exists (a migration made it): the ready callback runs at once, inside the constructor
    ready = new Promise((resolve, reject) => {
      const made = new RateLimiterPostgres(
        { ...options, storeClient: pool, tableName: RATE_LIMIT_TABLE, tableCreated: true, clearExpiredByTimeout: true, insuranceLimiter: new RateLimiterMemory(options) },
        (error?: unknown) => (error ? reject(error) : queueMicrotask(() => resolve(made))),
      );
    });
    // a failure surfaces on the first request; never as an unhandled rejection at start-up
    ready.catch(() => undefined);
    release = () => pool.end();
  } else if (store.kind === 'redis') {
    const redis = redisLimiter(store.url, options, extra.log);
    ready = redis.ready;
    release = redis.close;
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
    close: () => release(),
  };
}
