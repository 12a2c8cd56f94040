/**
 * Issue 22: `/readyz` answers 503 until the service has started (migrations done, workers and modules started) and
 * (while closing, answers in flight say `closing`), so an orchestrator sends traffic only to an instance that is ready; `/healthz` beside it.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import t from 'tap';
import { ManualClock } from '../../engine/clock.ts';
import { createLogger } from '../../engine/logger.ts';
import type { Module } from '../../engine/module.ts';
import { createRegistry } from '../../engine/registry.ts';
import { serve } from '../../engine/server.ts';
import { addressPolicy } from '../../outbound/net/addresses.ts';
import { targetRefusal } from '../../outbound/net/url-rules.ts';
import { scratchDatabase } from '../helpers/harness.ts';
import { MIGRATIONS } from '../../migrations/index.ts';

/**
 * A port free now, so the test knows where the server listens before serve() returns: below Linux's ephemeral range
 * (32768-60999), so no outgoing connection of a busy machine takes it in the meantime.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

const probe = async (url: string) => {
  let res: Response;
  try {
    res = await fetch(url);
  } catch {
    return null; // nothing listens
  }
  return { status: res.status, body: await res.json() };
};

t.test('/readyz: 503 starting while a module starts, 200 ready after', async (t) => {
  const scratch = await scratchDatabase();
  t.teardown(() => scratch?.drop());
  const port = await freePort();
  // the server listens before the workers and the parts start: once this part's onStart runs, the probes answer
  let entered!: () => void;
  const onStartEntered = new Promise<void>((resolve) => (entered = resolve));
  let started!: () => void;
  const starting = new Promise<void>((resolve) => (started = resolve));
  const slow: Module = {
    name: 'slow-start',
    onStart: () => {
      entered();
      return starting;
    },
  };
  const running = serve({
    registry: createRegistry([]), migrations: MIGRATIONS, modules: [slow], config: { trustPrincipalId: 'test', webhookSources: [] },
    targets: targetRefusal({ outbound: addressPolicy(), check: { internal: true } }), clock: new ManualClock('2026-03-01T12:00:00.000Z'),
    log: createLogger('silent'), databaseUrl: scratch?.url, dataDir: 'memory://', host: '127.0.0.1', port, operatorToken: 'test-operator-token',
    secretKey: randomBytes(32).toString('base64'), bootstrap: false, version: '9.8.7',
  });
  const base = `http://127.0.0.1:${port}`;
  await Promise.race([onStartEntered, running.then(() => { throw new Error('serve() returned before the part started'); })]);
  const ready = await probe(`${base}/readyz`);
  t.same(ready, { status: 503, body: { status: 'starting', version: '9.8.7' } }, 'not ready while a module starts');
  t.same(await probe(`${base}/healthz`), { status: 200, body: { status: 'ok', version: '9.8.7' } }, '/healthz: the process lives and reaches its database');

  started();
  const service = await running;
  t.same(await probe(`${base}/readyz`), { status: 200, body: { status: 'ready', version: '9.8.7' } }, 'ready once started');

  await service.close();
  t.equal(await probe(`${base}/readyz`), null, 'closed: nothing listens');
});
