/**
 * Writes a migration for whatever the descriptors changed: applies the committed migrations to a fresh
 * in-memory database, then diffs it against the tables the registry derives. `npm run db:migration`.
 */
import { migrate, openDatabase } from '../engine/persistence/database.ts';
import { appEntities } from './tables.ts';

const db = await openDatabase({ dataDir: 'memory://', entities: appEntities() });
await migrate(db);
const initial = (await db.migrator.getExecuted()).length === 0;
const result = await db.migrator.create(undefined, false, initial, process.argv[2]);
process.stdout.write(result.fileName ? `wrote migrations/${result.fileName}\n` : 'no changes: the migrations match the descriptors\n');
await db.close();
