/** The committed migrations build exactly the tables the descriptors derive. */
import t from 'tap';
import { migrate, openDatabase } from '../../engine/persistence/database.ts';
import { appEntities } from '../../bin/tables.ts';
import { freshDataDir } from '../helpers/pglite-template.ts';

t.test('migrations match the registry (run `npm run db:migration` after changing a descriptor)', async (t) => {
  // a template copy: a memory:// cluster would be created from nothing first (pglite-template.ts)
  const { dataDir, drop } = await freshDataDir();
  const db = await openDatabase({ dataDir, entities: appEntities() });
  t.teardown(async () => {
    await db.close();
    drop();
  });
  await migrate(db);
  const pending = (await db.schema.getUpdateSchemaSQL({ wrap: false })).trim();
  t.equal(pending, '', 'no schema change is left outside a migration');
});
