/** The MikroORM CLI's view of the schema, built from the same registry the service serves. */
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { allEntities } from './engine/persistence/entities.ts';
import { migrationOptions } from './engine/persistence/database.ts';
import { families } from './resources/index.ts';

export default defineConfig({
  entities: allEntities(families),
  clientUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vigil',
  extensions: [Migrator],
  migrations: migrationOptions(),
});
