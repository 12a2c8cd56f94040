/** The committed migrations build exactly the tables the descriptors derive. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { MIGRATIONS } from '../../migrations/index.ts';
import { migrationFiles, migrationsIndex } from '../../bin/migrations-index.ts';
import { migrate, openDatabase } from '../../engine/persistence/database.ts';
import { appEntities } from '../../bin/tables.ts';
import { freshDataDir } from '../helpers/pglite-template.ts';

t.test('migrations match the registry (run `npm run db:migration` after changing a descriptor)', async (t) => {
  // a template copy: a memory:// cluster would be created from nothing first (pglite-template.ts)
  const { dataDir, drop } = await freshDataDir();
  const db = await openDatabase({ dataDir, entities: appEntities(), migrations: MIGRATIONS });
  t.teardown(async () => {
    await db.close();
    drop();
  });
  await migrate(db);
  const pending = (await db.schema.getUpdateSchemaSQL({ wrap: false })).trim();
  t.equal(pending, '', 'no schema change is left outside a migration');
});

t.test('the service runs the static list (migrations/index.ts), and it lists every migration file, oldest first', async (t) => {
  // a bundle has no folder to search: the list is what runs, so a file missing from it would never run
  const written = readFileSync(fileURLToPath(new URL('../../migrations/index.ts', import.meta.url)), 'utf8');
  t.equal(written, migrationsIndex(migrationFiles()), 'migrations/index.ts is what `npm run db:migration` writes (run `node bin/migrations-index.ts`)');
  t.same(MIGRATIONS.map((m) => m.name), migrationFiles().map((f) => f.replace(/\.ts$/, '')));
  t.ok(MIGRATIONS.length > 0);
  for (const m of MIGRATIONS) t.equal(m.class.name, m.name, `${m.name} is its file's class`);
});
