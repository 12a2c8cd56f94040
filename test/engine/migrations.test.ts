/** The committed migrations build exactly the tables the descriptors derive. */
import t from 'tap';
import { migrate, openDatabase } from '../../engine/persistence/database.ts';
import { appEntities } from '../../bin/tables.ts';

t.test('migrations match the registry (run `npm run db:migration` after changing a descriptor)', async (t) => {
  const db = await openDatabase({ dataDir: 'memory://', entities: appEntities() });
  t.teardown(() => db.close());
  await migrate(db);
  const pending = (await db.schema.getUpdateSchemaSQL({ wrap: false })).trim();
  t.equal(pending, '', 'no schema change is left outside a migration');
});
