/**
 * Writes a migration for whatever the descriptors changed: applies the committed migrations to a fresh
 * in-memory database, then diffs it against the tables the registry derives. `npm run db:migration`.
 */
import { migrate, openDatabase } from '../engine/persistence/database.ts';
import { appEntities } from './tables.ts';
import { MIGRATIONS_FOLDER, writeMigrationsIndex } from './migrations-index.ts';

const db = await openDatabase({ dataDir: 'memory://', entities: appEntities(), migrations: { folder: MIGRATIONS_FOLDER } });
await migrate(db);
const initial = (await db.migrator.getExecuted()).length === 0;
const result = await db.migrator.create(undefined, false, initial, process.argv[2]);
// the service runs the static list: the new file joins it
if (result.fileName) writeMigrationsIndex();
process.stdout.write(result.fileName ? `wrote migrations/${result.fileName} and migrations/index.ts\n` : 'no changes: the migrations match the descriptors\n');
await db.close();
