/**
 * The key that seals stored secrets is checked at start (engine/bootstrap.ts): a start with another VIGIL_SECRET_KEY
 * than the one the database's secrets are sealed with, or without the one it was started with, is refused (before,
 * it served, and every read of a sealed secret answered 500); `vigil serve` says so in one sentence and exits 1. The
 * right key serves, and the secrets read back.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { SecretKeyRefused } from '../../engine/bootstrap.ts';
import { COMPILE_CACHE_ENV } from '../helpers/compile-cache.ts';
import { client, scratchStorage, startVigil } from '../helpers/harness.ts';

const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));
const CONFIG = '/api/v1/config';

t.test('another key, or none, is refused with a sentence; the key the secrets were sealed with serves them', async (t) => {
  const storage = await scratchStorage();
  t.teardown(() => storage.drop());

  const first = await startVigil({ storage });
  const org = await first.organization();
  const key = await org.key();
  // a secret sealed with the storage's key
  const made = await key.post(`${CONFIG}/ai_providers`, { name: 'sealed', provider: 'vendor_a', api_key: 'sk-sealed-0001' });
  t.equal(made.status, 201);
  await first.close();

  const other = randomBytes(32).toString('base64');
  await t.rejects(startVigil({ storage, secretKey: other }), { constructor: SecretKeyRefused, message: /VIGIL_SECRET_KEY is not the key this database's secrets are sealed with/ });
  // '' is no key: the service would mint one and keep it
  await t.rejects(startVigil({ storage, secretKey: '' }), { constructor: SecretKeyRefused, message: /sealed with a VIGIL_SECRET_KEY, and none is set/ });

  const child = spawn(process.execPath, [VIGIL, 'serve'], {
    env: {
      ...process.env, ...COMPILE_CACHE_ENV, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off',
      DATABASE_URL: storage.databaseUrl ?? '', DATA_DIR: storage.dataDir, VIGIL_SECRET_KEY: other,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    if (/serving at/.test(stderr)) child.kill('SIGTERM');
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 1, 'vigil serve with another key exits 1');
  t.match(stderr, /VIGIL_SECRET_KEY is not the key this database's secrets are sealed with/);
  t.notMatch(stderr, /serving at/, 'it never served');
  t.notMatch(stderr, /\n\s+at /, 'a sentence, not a stack');

  const again = await startVigil({ storage });
  t.teardown(() => again.close());
  const rows = (await client(again.url, key.token).get(`${CONFIG}/ai_providers`)).body.data;
  t.match(rows, [{ name: 'sealed', api_key_set: true }], 'the right key serves the rows with their secrets');
});
