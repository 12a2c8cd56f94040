/**
 * One embedded database, one process (issue 19, part 3): a second `vigil serve` on a PGlite DATA_DIR in use refuses
 * to start, naming the directory and the running process, and exits non-zero while the first keeps serving; a lock of
 * another host refuses too; a clean stop leaves no lock and the next start serves. What a killed process leaves
 * behind: data-dir-lock-takeover.test.ts (each file a handful of process starts, within a busy machine's timeout).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { COMPILE_CACHE_ENV } from '../helpers/compile-cache.ts';
import { freshDataDir } from '../helpers/pglite-template.ts';
import { serveProcess } from '../helpers/serve-process.ts';

const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));

// a new cluster, as a first start would make it, without each run of this file paying for its creation
const { dataDir, drop } = await freshDataDir();
t.teardown(drop);
// the embedded database whatever the suite runs on
const env = { DATABASE_URL: '', DATA_DIR: dataDir };
const lockFile = join(dataDir, 'vigil.lock');

/** `vigil serve` expected to refuse: its exit code and stderr; a start that serves instead is stopped and reported. */
function refusedStart(): Promise<{ code: number | null; stderr: string; served: boolean }> {
  const child = spawn(process.execPath, [VIGIL, 'serve'], {
    env: { ...process.env, ...COMPILE_CACHE_ENV, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let served = false;
  // "Vigil is serving at" goes to stderr with what a person reads; stdout is the JSON log stream
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    if (/serving at/.test(stderr) && !served) {
      served = true;
      child.kill('SIGTERM');
    }
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, served })));
}

const healthy = async (url: string) => (await fetch(`${url}/healthz`)).status;

t.test('a second start on a data directory in use refuses, naming the directory and the process; the first keeps serving', async (t) => {
  const first = await serveProcess(env);
  t.teardown(() => first.stop());
  t.equal(await healthy(first.url), 200);

  const second = await refusedStart();
  t.notOk(second.served, 'the second process never serves');
  t.not(second.code, 0, 'it exits non-zero');
  t.match(second.stderr, dataDir, 'the message names the directory');
  t.match(second.stderr, `process ${first.child.pid}`, 'and the running process');
  t.notMatch(second.stderr, /\n\s+at /, 'a sentence, not a stack');

  t.equal(await healthy(first.url), 200, 'the first still serves');
  t.same(JSON.parse(readFileSync(lockFile, 'utf8')).pid, first.child.pid, 'the lock is still the first one\'s');
  await first.stop();
});

t.test('after a clean stop the next start serves', async (t) => {
  const stopped = await serveProcess(env);
  t.equal(await stopped.stop('SIGINT'), 0);
  t.notOk(existsSync(lockFile));
  const next = await serveProcess(env);
  t.teardown(() => next.stop());
  t.equal(await healthy(next.url), 200);
});

t.test('a lock of another host refuses (its process cannot be checked from here)', async (t) => {
  writeFileSync(lockFile, JSON.stringify({ pid: 4242, host: 'db-host-elsewhere' }));
  const refused = await refusedStart();
  t.notOk(refused.served);
  t.not(refused.code, 0);
  t.match(refused.stderr, 'process 4242 on host db-host-elsewhere');
  t.match(refused.stderr, lockFile, 'and says which file to remove once that process is gone');
});
