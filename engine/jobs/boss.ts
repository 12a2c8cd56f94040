/**
 * The pg-boss instance for a database. Its tables live in the schema `pgboss` of the service's own database
 * (PostgreSQL, or the embedded PGlite one); pg-boss creates and migrates that schema itself on start, so a
 * fresh database and a restart both work, and MikroORM's migrations never touch it.
 */
import { PgBoss, fromPglite } from 'pg-boss';
import type { Database } from '../persistence/database.ts';

export const JOB_SCHEMA = 'pgboss';

/** pg-boss's connections per instance on PostgreSQL: workers poll and maintenance runs now and then. */
const POOL_SIZE = 4;

type PGliteLike = Parameters<typeof fromPglite>[0];

export async function openBoss(db: Database, databaseUrl: string | undefined): Promise<PgBoss> {
  // LISTEN/NOTIFY: a job sent wakes the workers of its queue (on every instance on PostgreSQL) when its transaction
  // commits, instead of waiting out their poll; polling stays as the floor, and for jobs that start later
  const common = { schema: JOB_SCHEMA, schedule: false, useListenNotify: true } as const;
  // PostgreSQL: a small pool of its own on the same database, so a worker never waits for the ORM's pool.
  if (databaseUrl) return new PgBoss({ ...common, connectionString: databaseUrl, max: POOL_SIZE, application_name: 'vigil-jobs' });
  // PGlite is one connection: share MikroORM's instance. pg-boss's statements wait for a running ORM
  // transaction (PGlite locks itself for one), which is why a send inside one goes through its store.
  const connection = db.em.getConnection() as unknown as { getNativeClient(): Promise<PGliteLike> };
  return new PgBoss({ ...common, backend: 'pglite', db: fromPglite(await connection.getNativeClient()), monitorVacuum: false });
}
