/**
 * The suite-wide log check (test/helpers/log-watch.ts) can fail: a stored secret written to a log line makes
 * closing the service throw, naming the line's message and never the secret; lines without one pass.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const SECRET = 'sk-log-watch-provider-key-000111';

t.test('a log line holding a stored secret fails the close; the error does not repeat the secret', async (t) => {
  const vigil = await startVigil();
  const api = await (await vigil.organization()).key();
  t.equal((await api.post(`${CONFIG}/ai_providers`, { name: 'watched', provider: 'vendor_a', api_key: SECRET })).status, 201);
  vigil.running.services.log.info({ note: `careless ${SECRET}` }, 'a careless line');
  vigil.running.services.log.warn(`key ${api.token}`);
  const closed = await vigil.close().then(() => null, (error: Error) => error);
  t.ok(closed, 'close failed');
  t.match(closed?.message, /2 log line\(s\).*a careless line/, 'names the line; a minted API key is watched too');
  t.notMatch(closed?.message, SECRET);
  t.notMatch(closed?.message, api.token);
});

t.test('the same service with clean lines closes', async (t) => {
  const vigil = await startVigil();
  const api = await (await vigil.organization()).key();
  t.equal((await api.post(`${CONFIG}/ai_providers`, { name: 'watched', provider: 'vendor_a', api_key: SECRET })).status, 201);
  vigil.running.services.log.info({ provider: 'watched' }, 'a clean line');
  await t.resolves(vigil.close());
});
