/**
 * A port another process holds: `vigil serve` says which address and why in one sentence, exits non-zero, and
 * leaves nothing behind (the data directory's lock released, the next start on a free port serves).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { COMPILE_CACHE_ENV } from '../helpers/compile-cache.ts';
import { freshDataDir } from '../helpers/pglite-template.ts';
import { serveProcess } from '../helpers/serve-process.ts';

const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));
const { dataDir, drop } = await freshDataDir();
t.teardown(drop);
const env = { DATABASE_URL: '', DATA_DIR: dataDir };

/** `vigil serve` expected to refuse: its exit code and stderr. */
async function refusedStart(address: { PORT: string; HOST: string }): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [VIGIL, 'serve'], {
    env: { ...process.env, ...COMPILE_CACHE_ENV, LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env, ...address },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  return { code: await new Promise<number | null>((resolve) => child.on('exit', resolve)), stderr };
}

t.test('a port in use is refused with the address and what to do, no stack, and nothing left behind', async (t) => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const port = (holder.address() as net.AddressInfo).port;

  const { code, stderr } = await refusedStart({ PORT: String(port), HOST: '127.0.0.1' });

  t.equal(code, 1, 'it exits 1');
  t.match(stderr, `127.0.0.1:${port}`, 'the message names the address');
  t.match(stderr, /another process is listening there; stop it or set PORT/, 'and what to do');
  t.notMatch(stderr, /\n\s+at /, 'a sentence, not a stack');
  t.notOk(existsSync(join(dataDir, 'vigil.lock')), 'the data directory is not left locked');

  const next = await serveProcess(env);
  t.teardown(() => next.stop());
  t.equal((await fetch(`${next.url}/healthz`)).status, 200, 'a start on a free port serves');
});

t.test('an address no interface of this machine has is refused with what to do', async (t) => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine is configured with it
  const { code, stderr } = await refusedStart({ PORT: '8080', HOST: '192.0.2.1' });
  t.equal(code, 1);
  t.match(stderr, '192.0.2.1:8080');
  t.match(stderr, /no network interface of this machine has that address; set HOST/);
  t.notMatch(stderr, /\n\s+at /, 'a sentence, not a stack');
});
