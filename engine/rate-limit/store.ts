/**
 * The rate limits, from rate-limiter-flexible: the webhooks' per organization and source, and the configuration
 * API's and agent-tool endpoint's per credential (engine/http/rate-limit.ts), each under its own key prefix in one
 * of three stores (`VIGIL_WEBHOOK_RATE_LIMIT_STORE`, which despite its name sets both): memory, counted by each
 * instance alone; postgres, a table shared by every instance serving that database (`RateLimiterPostgres` on its own
 * small pg.Pool); redis, keys shared by every instance pointed at that Redis (./redis.ts). The shared stores keep an in-memory limiter as insurance
 * should their server not answer. The PostgreSQL table is one of the service's own (created by the migrations, in
 * the library's layout), so nothing outside the migrations creates tables; the limiter still reports ready before
 * the first request counts.
 */
import { EntitySchema } from '@mikro-orm/core';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.ts';
import type { CountStore, FailureLimiter, RequestCount } from '../http/rate-limit.ts';
import type { Services } from '../services.ts';
import type { RateLimit } from './limits.ts';
import { redisLimiter, type LimiterOptions } from './redis.ts';

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

export interface StoreLimiter extends FailureLimiter {
  /** null when allowed; otherwise the seconds to wait */
  consume(key: string): Promise<number | null>;
  close(): Promise<void>;
}

/** Where the counts live; `url` is the PostgreSQL database or the Redis server every instance shares. */
export type LimiterStore = { kind: 'memory' } | { kind: 'postgres'; url: string } | { kind: 'redis'; url: string };

/** The store chosen by the settings (`VIGIL_WEBHOOK_RATE_LIMIT_STORE` with `DATABASE_URL` or `VIGIL_REDIS_URL`). */
export interface StoreSettings {
  rateLimitStore?: 'memory' | 'postgres' | 'redis';
  databaseUrl?: string;
  redisUrl?: string;
}

export function limiterStore(settings: StoreSettings): LimiterStore {
  if (settings.rateLimitStore === 'postgres' && settings.databaseUrl) return { kind: 'postgres', url: settings.databaseUrl };
  if (settings.rateLimitStore === 'redis' && settings.redisUrl) return { kind: 'redis', url: settings.redisUrl };
  return { kind: 'memory' };
}

/**
 * The per-credential limit of the configuration API and the agent-tool endpoint (`VIGIL_API_RATE_LIMIT`), counted in
 * the webhooks' store under its own key prefix; closed with the service.
 */
export function credentialLimiter(limit: RateLimit, settings: StoreSettings, keyPrefix = 'vigil_api'): (services: Services) => StoreLimiter {
  return (services) => {
    const limiter = createLimiter(limit, limiterStore(settings), { keyPrefix, log: services.log });
    services.onClose(() => limiter.close());
    return limiter;
  };
}

/** `keyPrefix` keeps counts of different purposes (or test runs) apart in a shared store; `log` hears of outages. */
export function createLimiter(limit: RateLimit, store: LimiterStore = { kind: 'memory' }, extra: { keyPrefix?: string; log?: Logger } = {}): StoreLimiter {
  const { ready, release } = openStore({ keyPrefix: extra.keyPrefix ?? 'vigil_webhooks', points: limit.points, duration: limit.durationSeconds }, store, extra.log);
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const take = async (key: string): Promise<RequestCount> => {
    const limiter = await ready;
    try {
      const counted = await limiter.consume(key);
      return { remaining: counted.remainingPoints, resetSeconds: seconds(counted.msBeforeNext), retryAfter: null };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const wait = seconds(refusal.msBeforeNext);
      return { remaining: 0, resetSeconds: wait, retryAfter: wait };
    }
  };
  const waiting = async (key: string): Promise<number | null> => {
    const counted = await (await ready).get(key);
    return counted && counted.consumedPoints > limit.points ? seconds(counted.msBeforeNext) : null;
  };
  return {
    points: limit.points,
    windowSeconds: limit.durationSeconds,
    take,
    waiting,
    consume: async (key) => (await take(key)).retryAfter,
    close: () => release(),
  };
}

/**
 * Numbers kept per key in the limits' store (the console's failed sign-ins), each forgotten `forgetSeconds` after it
 * was first added to or last set; closed with the service. Counting never refuses: the caller decides what a count means.
 */
export function countStore(settings: StoreSettings, keyPrefix: string, forgetSeconds: number): (services: Services) => CountStore {
  return (services) => {
    // the largest value the PostgreSQL store's integer column holds: `add` never reaches a limit
    const { ready, release } = openStore({ keyPrefix, points: 2 ** 31 - 1, duration: forgetSeconds }, limiterStore(settings), services.log);
    services.onClose(() => release());
    return {
      get: async (key) => (await (await ready).get(key))?.consumedPoints ?? 0,
      add: async (key) => (await (await ready).penalty(key, 1)).consumedPoints,
      set: async (key, value) => void (await (await ready).set(key, value, forgetSeconds)),
      delete: async (key) => void (await (await ready).delete(key)),
    };
  };
}

/** The store's limiter once it answers, and how to let its connections go. */
function openStore(options: LimiterOptions, store: LimiterStore, log?: Logger): { ready: Promise<RateLimiterAbstract>; release: () => Promise<void> } {
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
    const redis = redisLimiter(store.url, options, log);
    ready = redis.ready;
    release = redis.close;
  }
  return { ready, release };
}
