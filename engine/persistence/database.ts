/**
 * Opens the database: PostgreSQL when a URL is given, embedded PGlite otherwise (a data directory, or
 * `memory://` for nothing kept). Committed migrations run on open.
 */
import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM as SqlORM } from '@mikro-orm/sql';
import pg from 'pg';
import { releasingClient } from './pool-client.ts';
import { preparingClient } from './prepared.ts';

export type Database = SqlORM;

export interface DatabaseOptions {
  /** `postgres://…`; when absent, embedded PGlite */
  databaseUrl?: string;
  /** PGlite data directory, or `memory://` */
  dataDir?: string;
  entities: EntitySchema[];
  debug?: boolean;
  /** PostgreSQL: statements marked with prepared() go out as named prepared statements (prepared.ts); default true */
  preparedStatements?: boolean;
  /** PostgreSQL: told of every connection the pool opens (one after an outage says the database is back) */
  onConnect?: () => void;
  /**
   * The migrations `migrate` runs, handed in by bin/ as it hands in the registry: the static list
   * (migrations/index.ts), which is what works in the bundle, where no folder is to be searched; or, for
   * `npm run db:migration` only, the folder to search (to write a new file there)
   */
  migrations: readonly MigrationObject[] | { folder: string };
}

export const DEFAULT_DATA_DIR = './data';

/** A migrations folder, searched by the MikroORM CLI and `npm run db:migration` (the service runs the static list). */
export function migrationOptions(folder: string) {
  return { path: folder, pathTs: folder, glob: 'Migration*.ts', emit: 'ts' as const, snapshot: false, silent: true };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const common = {
    entities: options.entities,
    extensions: [Migrator],
    migrations: 'folder' in options.migrations ? migrationOptions(options.migrations.folder) : { migrationsList: [...options.migrations], snapshot: false, silent: true },
    debug: options.debug ?? false,
    discovery: { warnWhenNoEntities: false },
    forceUtcTimezone: true,
  };
  if (options.databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    const onPoolCreated = (pool: pg.Pool) => void pool.on('connect', () => options.onConnect?.());
    const Client = options.preparedStatements === false ? releasingClient() : preparingClient(releasingClient());
    const driverOptions = { onPoolCreated, Client };
    return (await MikroORM.init({ ...common, clientUrl: options.databaseUrl, pool: { min: 0, max: 20 }, driverOptions })) as unknown as Database;
  }
  const { MikroORM } = await import('@mikro-orm/pglite');
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const location = dataDir === 'memory://' ? { dbName: 'memory://' } : { dbName: 'vigil', driverOptions: { dataDir } };
  return (await MikroORM.init({ ...common, ...location })) as unknown as Database;
}

/** An arbitrary constant: the advisory lock every Vigil instance of one database takes while it starts. */
const STARTUP_LOCK = 7_238_401;

/**
 * On PostgreSQL, a session-level advisory lock on a connection of its own (held until `release`), so instances
 * starting at once run their migrations and first-start writes one after the other; the embedded database serves
 * one process, so there it is a no-op.
 */
export async function startupLock(databaseUrl: string | undefined): Promise<{ release(): Promise<void> }> {
  if (!databaseUrl) return { release: async () => {} };
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'vigil-startup' });
  await client.connect();
  await client.query('select pg_advisory_lock($1)', [STARTUP_LOCK]);
  return {
    release: async () => {
      await client.query('select pg_advisory_unlock($1)', [STARTUP_LOCK]).catch(() => {});
      await client.end();
    },
  };
}

export async function migrate(db: Database): Promise<void> {
  await db.migrator.up();
}
