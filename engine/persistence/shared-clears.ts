/**
 * Clears of the shared caches (the credentials, the cached rows), shared by every instance of one PostgreSQL
 * database: each instance LISTENs on one channel over a connection of its own and NOTIFYs it when a cache clears
 * (after the change committed), so a revoked key or token stops working, and a changed rule applies, on every
 * instance at once, not after the cache's time-to-live. A notification clears every cache (changes to what they
 * keep are rare). While the connection is down the caches keep nothing (a notification could be missed); it
 * reconnects every few seconds.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { DatabaseOutage } from './outage.ts';
import type { SharedCache } from './shared-cache.ts';

const CHANNEL = 'vigil_credentials';
const RECONNECT_MS = 2000;

export interface Invalidation {
  close(): Promise<void>;
}

export async function shareClears(databaseUrl: string, caches: readonly SharedCache<unknown>[], log: Logger, outage: DatabaseOutage): Promise<Invalidation> {
  const instance = randomUUID();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const down = () => {
    for (const cache of caches) cache.keeping(false);
    client = null;
    if (!closed && !retry) retry = setTimeout(() => void connect(), RECONNECT_MS);
  };

  async function connect(): Promise<void> {
    retry = null;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('error', (error) => {
      // a database outage is logged once, by the outage state; the reconnection attempts through it are not
      if (!outage.noted(error)) log.warn({ err: { name: error.name } }, 'shared caches: notification connection lost');
      void next.end().catch(() => undefined);
      if (client === next) down();
    });
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== instance) for (const cache of caches) cache.forget();
    });
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
    } catch (error) {
      if (!outage.noted(error)) log.warn({ err: { name: (error as Error).name } }, 'shared caches: notification connection failed; retrying');
      void next.end().catch(() => undefined);
      down();
      return;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    // whatever happened while no one listened is unknown: start empty
    for (const cache of caches) cache.keeping(true);
  }

  const announce = () => {
    const listening = client;
    if (!listening) return;
    listening.query('select pg_notify($1, $2)', [CHANNEL, instance]).catch((error: Error) => {
      if (!outage.noted(error)) log.warn({ err: { name: error.name } }, 'shared caches: clear not announced');
    });
  };
  for (const cache of caches) {
    cache.keeping(false);
    cache.shareWith(announce);
  }
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
