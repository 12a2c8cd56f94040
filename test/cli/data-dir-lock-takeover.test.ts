/**
 * One embedded database, one process (issue 19, part 3): the lock a killed process leaves behind, or one torn while
 * written, does not block the next start, which takes it over and removes it on a clean stop. The refusals:
 * data-dir-lock-refusal.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freshDataDir } from '../helpers/pglite-template.ts';
import { serveProcess } from '../helpers/serve-process.ts';

// a new cluster, as a first start would make it, without each run of this file paying for its creation
const { dataDir, drop } = await freshDataDir();
t.teardown(drop);
// the embedded database whatever the suite runs on
const env = { DATABASE_URL: '', DATA_DIR: dataDir };
const lockFile = join(dataDir, 'vigil.lock');

const healthy = async (url: string) => (await fetch(`${url}/healthz`)).status;

t.test('after kill -9 the next start takes the lock over', async (t) => {
  const killed = await serveProcess(env);
  await killed.stop('SIGKILL');
  t.ok(existsSync(lockFile), 'a killed process leaves its lock behind');

  const next = await serveProcess(env);
  t.teardown(() => next.stop());
  t.equal(await healthy(next.url), 200);
  t.same(JSON.parse(readFileSync(lockFile, 'utf8')).pid, next.child.pid);
  t.equal(await next.stop('SIGTERM'), 0);
  t.notOk(existsSync(lockFile), 'a clean stop removes the lock');
});

t.test('an unreadable lock (a process killed while writing it) is taken over', async (t) => {
  writeFileSync(lockFile, '{"pid":');
  const next = await serveProcess(env);
  t.teardown(() => next.stop());
  t.equal(await healthy(next.url), 200);
});
