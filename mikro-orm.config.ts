/** The MikroORM CLI's view of the schema, built from the same registry the service serves. */
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { migrationOptions } from './engine/persistence/database.ts';
import { appEntities } from './bin/tables.ts';
import { MIGRATIONS_FOLDER } from './bin/migrations-index.ts';

export default defineConfig({
  entities: appEntities(),
  clientUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vigil',
  extensions: [Migrator],
  migrations: migrationOptions(MIGRATIONS_FOLDER),
});
