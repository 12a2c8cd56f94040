/**
 * Clears of the credential cache, shared by every instance of one PostgreSQL database: each instance LISTENs on
 * one channel over a connection of its own and NOTIFYs it when it clears (after the change committed), so a
 * revoked key or token stops working on every instance at once, not after the cache's time-to-live. While the
 * connection is down the cache keeps nothing (a notification could be missed); it reconnects every few seconds.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { DatabaseOutage } from './outage.ts';
import type { CredentialCache } from './shared-cache.ts';

const CHANNEL = 'vigil_credentials';
const RECONNECT_MS = 2000;

export interface Invalidation {
  close(): Promise<void>;
}

export async function shareCredentialClears(databaseUrl: string, cache: CredentialCache<unknown>, log: Logger, outage: DatabaseOutage): Promise<Invalidation> {
  const instance = randomUUID();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const down = () => {
    cache.keeping(false);
    client = null;
    if (!closed && !retry) retry = setTimeout(() => void connect(), RECONNECT_MS);
  };

  async function connect(): Promise<void> {
    retry = null;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('error', (error) => {
      // a database outage is logged once, by the outage state; the reconnection attempts through it are not
      if (!outage.noted(error)) log.warn({ err: { name: error.name } }, 'credential cache: notification connection lost');
      void next.end().catch(() => undefined);
      if (client === next) down();
    });
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== instance) cache.forget();
    });
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
    } catch (error) {
      if (!outage.noted(error)) log.warn({ err: { name: (error as Error).name } }, 'credential cache: notification connection failed; retrying');
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
    cache.keeping(true);
  }

  cache.keeping(false);
  cache.shareWith(() => {
    const listening = client;
    if (!listening) return;
    listening.query('select pg_notify($1, $2)', [CHANNEL, instance]).catch((error: Error) => {
      if (!outage.noted(error)) log.warn({ err: { name: error.name } }, 'credential cache: clear not announced');
    });
  });
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
