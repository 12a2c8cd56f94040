/**
 * The Redis store of the webhook rate limit (VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis): instances pointed at one
 * Redis share their counts; when Redis does not answer (never reached, or gone mid-run) the in-memory insurance
 * limiter keeps limiting — no 500, no crash — and counting returns to Redis once it is back; the outage is
 * logged once, never with the URL's password; the client is closed on shutdown. The tests that need a Redis use
 * the one at TEST_REDIS_URL (default redis://127.0.0.1:6379) and skip, saying so, when none answers there.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import t from 'tap';
import { createLogger } from '../../engine/logger.ts';
import { createLimiter } from '../../engine/rate-limit/store.ts';
import { startVigil, type Vigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { testRedis, TEST_REDIS_URL as REDIS_URL } from '../helpers/redis.ts';

const PASSWORD = 'pa55-never-logged';
const LIMIT = { points: 3, durationSeconds: 60 };

const redis = await testRedis();
const needsRedis = redis ? false : `no Redis answers at ${REDIS_URL} (set TEST_REDIS_URL to run these)`;
t.teardown(() => redis?.disconnect());

/**
 * A TCP relay in front of the Redis under test, to take "Redis" away and bring it back mid-run. Its port stays
 * bound by this relay throughout (nothing else can take it between down and up): while down, it resets every
 * connection at once, as a Redis that is not there would refuse it.
 */
async function redisRelay(options: { up: boolean } = { up: true }) {
  const target = new URL(REDIS_URL);
  const open = new Set<net.Socket>();
  let up = options.up;
  const server = net.createServer((socket) => {
    if (!up) {
      socket.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    open.add(socket);
    const drop = () => {
      open.delete(socket);
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: Object.assign(new URL(REDIS_URL), { hostname: '127.0.0.1', port: String(port) }).toString(),
    port,
    open: () => open.size,
    down() {
      up = false;
      for (const socket of open) socket.resetAndDestroy();
    },
    up() {
      up = true;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function capturedLog() {
  const lines: string[] = [];
  return { log: createLogger('info', { write: (line: string) => void lines.push(line) }), lines };
}

/** One deployment event to the organization's webhook; answers the status. */
async function deploy(vigil: Vigil, token: string): Promise<number> {
  const res = await fetch(`${vigil.url}/webhooks/deployments/${token}`, {
    method: 'POST', headers: { 'user-agent': 'ci/1', 'content-type': 'application/json' }, body: JSON.stringify({ service: 'checkout', event_type: 'deploy', status: 'succeeded' }),
  });
  await res.text();
  return res.status;
}

async function deployMany(vigil: Vigil, token: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push(await deploy(vigil, token));
  return statuses;
}

t.test('a Redis that never answers: requests are limited in memory, no 500, one log line without the password, close() returns', async (t) => {
  const dead = await redisRelay({ up: false });
  t.teardown(dead.close);
  const { log, lines } = capturedLog();
  const vigil = await startVigil({ log, webhooks: { rateLimit: LIMIT, rateLimitStore: 'redis', redisUrl: `redis://:${PASSWORD}@127.0.0.1:${dead.port}/0` } });
  const org = await vigil.organization();
  t.same(await deployMany(vigil, org.webhookToken, 5), [200, 200, 200, 429, 429], 'the insurance limiter counts: 3 a minute, then 429');
  // the webhooks' and the API's limiters each hold a client of their own
  const outage = (limiter: string) => lines.filter((l) => l.includes('rate-limit Redis does not answer') && l.includes(`"limiter":"${limiter}"`)).length;
  await waitFor(() => outage('vigil_webhooks') > 0 && outage('vigil_api') > 0, 'the outage to be logged');
  t.same([outage('vigil_webhooks'), outage('vigil_api')], [1, 1], 'logged once per limiter, not once per reconnect attempt');
  t.notOk(lines.some((l) => l.includes(PASSWORD)), 'no log line holds the password');
  await vigil.close();
  t.pass('close() returned: the reconnecting client was let go');
});

t.test('two limiters (two instances) on one Redis share the counts', { skip: needsRedis }, async (t) => {
  // a prefix of this run's own: runs never see each other's counts
  const keyPrefix = `vigil_test_${randomUUID()}`;
  const [a, b] = [createLimiter({ points: 5, durationSeconds: 60 }, { kind: 'redis', url: REDIS_URL }, { keyPrefix }), createLimiter({ points: 5, durationSeconds: 60 }, { kind: 'redis', url: REDIS_URL }, { keyPrefix })];
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const answers: (number | null)[] = [];
  for (let i = 0; i < 8; i++) answers.push(await (i % 2 ? b : a).consume('org-1:deployments'));
  t.same(answers.slice(0, 5), [null, null, null, null, null], 'five allowed across both');
  t.ok(answers.slice(5).every((wait) => wait !== null && wait >= 1 && wait <= 60), `then refused on either, with seconds to wait (${answers.slice(5)})`);
  t.equal(await redis!.get(`${keyPrefix}:org-1:deployments`), '8', 'one counter in Redis');
  t.ok((await redis!.pttl(`${keyPrefix}:org-1:deployments`)) > 0, 'the counter expires with its window');
  t.equal(await b.consume('org-2:deployments'), null, 'another key has its own budget');
});

t.test('Redis going away mid-run: the insurance limiter limits, no 500; back, counting returns to Redis; closed on shutdown', { skip: needsRedis }, async (t) => {
  const relay = await redisRelay();
  t.teardown(relay.close);
  const { log, lines } = capturedLog();
  const vigil = await startVigil({ log, webhooks: { rateLimit: LIMIT, rateLimitStore: 'redis', redisUrl: relay.url } });
  const [a, b] = [await vigil.organization(), await vigil.organization()];
  const keyOf = (org: { id: string }) => `vigil_webhooks:${org.id}:deployments`;
  // a started instance counts its first request in Redis already (it waits for the first connection attempt, up to
  // its connect timeout); on a busy machine the connection itself may take longer, so wait for both limiters'
  // (webhooks and API) connections to reach the relay first
  await waitFor(() => relay.open() >= 2, 'both limiters to connect to Redis', 20_000);
  t.same(await deployMany(vigil, a.webhookToken, 2), [200, 200]);
  t.equal(await redis!.get(keyOf(a)), '2', 'each request is counted in Redis');

  relay.down();
  t.same(await deployMany(vigil, b.webhookToken, 5), [200, 200, 200, 429, 429], 'Redis gone: counted in memory, 3 a minute, then 429 (no 500)');
  t.equal(await redis!.get(keyOf(b)), null, 'nothing reached Redis meanwhile');
  await waitFor(() => lines.some((l) => l.includes('rate-limit Redis does not answer')), 'the outage to be logged');

  relay.up();
  await waitFor(async () => {
    await deploy(vigil, a.webhookToken);
    return Number(await redis!.get(keyOf(a))) > 2;
  }, 'Redis to count again', 20_000);
  const statuses = await deployMany(vigil, a.webhookToken, 3);
  t.ok(Number(await redis!.get(keyOf(a))) >= 6, 'every request is counted in Redis again');
  t.equal(statuses.at(-1), 429, 'and limited by that count');
  await waitFor(() => lines.some((l) => l.includes('rate-limit Redis answers again')), 'the recovery to be logged');

  await vigil.close();
  await waitFor(() => relay.open() === 0, 'the Redis connection to close', 5000);
  t.pass('the Redis client was closed on shutdown');
});
