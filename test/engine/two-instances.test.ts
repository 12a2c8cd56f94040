/**
 * Two `vigil serve` processes on one PostgreSQL database, started at the same moment (migrations race), behind
 * no balancer: the same workload sent to both gives the same answers as one instance would — one alert per
 * fingerprint, one card per idempotency key, configuration conflicts as 409 — and webhook rate limits counted in
 * the shared store are shared, in PostgreSQL and (when one answers) in Redis. PostgreSQL only (the embedded
 * database serves one instance).
 */
import t from 'tap';
import { client, scratchDatabase } from '../helpers/harness.ts';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/jobs.ts';
import { testRedis, TEST_REDIS_URL } from '../helpers/redis.ts';

const OPERATOR = 'two-instances-operator-token-of-32-characters';

const skip = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';

t.test('two vigil serve processes on one PostgreSQL database', { skip }, async (t) => {
  const scratch = (await scratchDatabase())!;
  const instances: ServeProcess[] = [];
  t.teardown(async () => {
    for (const instance of instances) await instance.stop();
    await scratch.drop();
  });
  const start = () => serveProcess({
    VIGIL_ADMIN_TOKEN: OPERATOR, VIGIL_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'), DATABASE_URL: scratch.url,
    // credentials cached for ten minutes: a revocation must still reach the other instance at once
    VIGIL_WEBHOOK_RATE_LIMIT: '40', VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres', VIGIL_AUTH_CACHE_MS: '600000',
  });

  // both start at once: the migrations must not collide
  const started = await Promise.allSettled([start(), start()]);
  for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
  if (instances.length < 2) {
    for (const instance of instances) await instance.stop('SIGKILL');
    throw new Error('an instance did not start beside the other');
  }
  const [a, b] = instances.map((i) => i.url) as [string, string];
  const operator = client(a, OPERATOR);
  const org = (await operator.post('/api/admin/v1/organizations', { name: 'Two Instances', plan: 'business' })).body;
  const key = (await operator.post(`/api/admin/v1/organizations/${org.id}/api_keys`, { name: 'k', scopes: ['api:admin'] })).body.key as string;
  const reader = (await operator.post(`/api/admin/v1/organizations/${org.id}/api_keys`, { name: 'r', scopes: ['mcp:read'] })).body.key as string;
  const token = org.webhook_token as string;
  const both = [a, b];
  /**
   * The status of the first answer that is not 200: the notification travels through the database
   * asynchronously, while the cache would keep a credential for ten minutes. waitFor's deadline is for a
   * notification that never comes, not a timing assumption.
   */
  const waitForStatus = async (ask: () => Promise<{ status: number }>) => {
    let status = 200;
    await waitFor(async () => (status = (await ask()).status) !== 200, 'the other instance to drop its cached credential');
    return status;
  };

  t.test('one card per key and one alert per fingerprint across both instances', async (t) => {
    const cards = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(`${both[i % 2]}/webhooks/tickets/${token}`, {
      method: 'POST', headers: { 'user-agent': 'two/1', 'content-type': 'application/json', 'idempotency-key': 'same-key' }, body: JSON.stringify({ title: 'one card' }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }))));
    t.equal(cards.filter((c) => c.status === 201).length, 1, 'one 201');
    t.equal(new Set(cards.map((c) => c.body.id)).size, 1, 'one card id in every answer');
    const alerts = await Promise.all(Array.from({ length: 10 }, (_, i) => fetch(`${both[i % 2]}/webhooks/metric-dashboard/${token}`, {
      method: 'POST', headers: { 'user-agent': 'Grafana/11.0', 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'firing', alerts: [{ status: 'firing', fingerprint: 'fp-1', labels: { alertname: 'Latency', service: 'checkout' }, startsAt: '2026-03-01T12:00:00Z' }] }),
    }).then((r) => r.status)));
    t.ok(alerts.every((s) => s === 200));
    const listed = (await client(b, key).get('/api/v1/config/alerts')).body.data;
    t.equal(listed.filter((x: any) => x.fingerprint === 'metric-dashboard:fp-1').length, 1, 'one alert');
    const mcp = await client(a, reader).post('/api/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_cards', arguments: {} } }, { accept: 'application/json, text/event-stream' });
    t.equal(mcp.body.result.structuredContent.data.length, 1, 'one card on the board');
  });

  t.test('a configuration conflict is the same 409 on either instance', async (t) => {
    const answers = await Promise.all(both.map((url) => client(url, key).post('/api/v1/config/teams', { name: 'platform' })));
    t.same(answers.map((x) => x.status).sort(), [201, 409]);
  });

  t.test('webhook rate limits are shared through PostgreSQL', async (t) => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${both[i % 2]}/webhooks/deployments/${token}`, {
        method: 'POST', headers: { 'user-agent': 'ci/1', 'content-type': 'application/json' }, body: JSON.stringify({ service: 'checkout', event_type: 'deploy', status: 'succeeded' }),
      });
      await res.text();
      statuses.push(res.status);
    }
    t.equal(statuses.filter((s) => s === 200).length, 40, 'the 40 per minute are counted across both instances');
    t.equal(statuses.filter((s) => s === 429).length, 20);
  });

  t.test('a revocation on one instance stops the credential on the other at once, despite its cache', async (t) => {
    const made = (await operator.post(`/api/admin/v1/organizations/${org.id}/api_keys`, { name: 'to revoke', scopes: ['api:admin'] })).body;
    t.equal((await client(b, made.key).get('/api/v1/config/teams')).status, 200, 'b has it cached');
    t.equal((await operator.del(`/api/admin/v1/organizations/${org.id}/api_keys/${made.id}`)).status, 204, 'revoked through a');
    await t.resolveMatch(waitForStatus(() => client(b, made.key).get('/api/v1/config/teams')), 401);

    const other = (await operator.post('/api/admin/v1/organizations', { name: 'Rotating', plan: 'business' })).body;
    const post = (url: string, token: string) => fetch(`${url}/webhooks/deployments/${token}`, {
      method: 'POST', headers: { 'user-agent': 'ci/1', 'content-type': 'application/json' }, body: JSON.stringify({ service: 'api' }),
    }).then(async (r) => ({ status: r.status, body: await r.text() }));
    t.equal((await post(b, other.webhook_token)).status, 200, 'b has the token cached');
    t.equal((await operator.post(`/api/admin/v1/organizations/${other.id}/webhook_token/rotate`, {})).status, 200);
    t.equal((await operator.post(`/api/admin/v1/organizations/${other.id}/webhook_token/revoke_previous`, {})).status, 204, 'the old URL revoked through a');
    await t.resolveMatch(waitForStatus(() => post(b, other.webhook_token)), 404);
  });

  const redis = await testRedis();
  t.test('webhook rate limits are shared through Redis', { skip: redis ? false : `no Redis answers at ${TEST_REDIS_URL}` }, async (t) => {
    t.teardown(() => redis!.disconnect());
    const pair = await Promise.all([0, 1].map(() => serveProcess({
      VIGIL_ADMIN_TOKEN: OPERATOR, VIGIL_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'), DATABASE_URL: scratch.url,
      VIGIL_WEBHOOK_RATE_LIMIT: '40', VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis', VIGIL_REDIS_URL: TEST_REDIS_URL, VIGIL_AUTH_CACHE_MS: '0',
    })));
    instances.push(...pair);
    // a new organization: its counters are this run's own
    const fresh = (await operator.post('/api/admin/v1/organizations', { name: 'Two Instances Redis', plan: 'business' })).body;
    const key = `vigil_webhooks:${fresh.id}:deployments`;
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${pair[i % 2]!.url}/webhooks/deployments/${fresh.webhook_token}`, {
        method: 'POST', headers: { 'user-agent': 'ci/1', 'content-type': 'application/json' }, body: JSON.stringify({ service: 'checkout', event_type: 'deploy', status: 'succeeded' }),
      });
      await res.text();
      statuses.push(res.status);
    }
    t.equal(statuses.filter((s) => s === 200).length, 40, 'the 40 per minute are counted across both instances');
    t.equal(statuses.filter((s) => s === 429).length, 20);
    t.equal(await redis!.get(key), '60', 'in one Redis counter');
    t.same(await Promise.all(pair.map((p) => p.stop())), [0, 0], 'both stop cleanly, their Redis clients closed');
  });
});
