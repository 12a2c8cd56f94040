/**
 * On PostgreSQL a statement marked with prepared() goes out as a named prepared statement
 * (engine/persistence/prepared.ts): parsed once per connection. Each test pins one connection with a transaction
 * and asks that connection's pg_prepared_statements.
 */
import t, { type Test } from 'tap';
import { openDatabase, type Database } from '../../engine/persistence/database.ts';
import { prepared, sqlExecutor, type SqlExecutor } from '../../engine/persistence/sql.ts';
import { scratchDatabase } from '../helpers/harness.ts';

const skip = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): prepared statements are a PostgreSQL feature';

t.test('prepared statements on PostgreSQL', { skip }, async (t) => {
  const scratch = (await scratchDatabase())!;
  t.teardown(() => scratch.drop());

  const open = async (t: Test, preparedStatements?: boolean) => {
    const db = await openDatabase({ databaseUrl: scratch.url, entities: [], preparedStatements, migrations: [] });
    t.teardown(() => db.close());
    return db;
  };
  const onOneConnection = <T>(db: Database, work: (sql: SqlExecutor) => Promise<T>) =>
    db.em.getConnection().transactional((trx) => work(sqlExecutor(db, trx)));
  const preparedTexts = async (sql: SqlExecutor) =>
    (await sql('select statement from pg_prepared_statements where statement like ?', ['%vigil-probe%'])).map((r) => String(r.statement));

  t.test('a marked statement is prepared on first use and answers as before; an unmarked one never is', async (t) => {
    const db = await open(t);
    await onOneConnection(db, async (sql) => {
      const marked = prepared("select ?::int + 1 as n, 'vigil-probe marked' as tag");
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(Number((await sql(marked, [i]))[0]!.n));
      for (let i = 0; i < 4; i++) await sql("select ?::int as n, 'vigil-probe unmarked' as tag", [i]);
      t.same(answers, [1, 2, 3, 4], 'the prepared statement binds each call its own parameters');
      t.same(await preparedTexts(sql), ["select $1::int + 1 as n, 'vigil-probe marked' as tag"], 'the marked one, prepared once on this connection');
    });
  });

  t.test('an error in a prepared statement is the same error, and the connection goes on', async (t) => {
    const db = await open(t);
    const probe = prepared("select 1 / ?::int as n, 'vigil-probe' as tag");
    for (let i = 0; i < 3; i++) await sqlExecutor(db)(probe, [1]);
    await t.rejects(sqlExecutor(db)(probe, [0]), /division by zero/);
    t.same(await sqlExecutor(db)(probe, [2]), [{ n: 0, tag: 'vigil-probe' }]);
  });

  t.test('each connection keeps at most 256 prepared statements', async (t) => {
    const db = await open(t);
    await onOneConnection(db, async (sql) => {
      for (let n = 0; n < 300; n++) await sql(prepared(`select ? as n, 'vigil-probe ${n}' as tag`), [n]);
      t.equal((await preparedTexts(sql)).length, 256);
      t.same(await sql("select ? as n, 'vigil-probe 299' as tag", [7]), [{ n: 7, tag: 'vigil-probe 299' }], 'past the limit a statement still runs, unprepared');
    });
  });

  t.test('preparedStatements: false prepares nothing (a pooler in transaction mode)', async (t) => {
    const db = await open(t, false);
    await onOneConnection(db, async (sql) => {
      for (let i = 0; i < 5; i++) await sql(prepared("select ?::int as n, 'vigil-probe off' as tag"), [i]);
      t.same(await preparedTexts(sql), []);
    });
  });
});
