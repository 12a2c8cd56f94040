/**
 * Issue 41: `POST /v2/enqueue` carries its token in the body, so it is limited per client address before the body
 * is read or parsed: unknown keys and large bodies count too, and one address cannot slow real events down. The
 * routing key is read from the raw bytes where it can be, so an unknown key is refused without parsing the body.
 */
import t from 'tap';
import { scanRoutingKey } from '../../webhooks/sources/events.ts';
import { startVigil } from '../helpers/harness.ts';

const RATE = { points: 5, durationSeconds: 3600 };
// one trusted proxy: each test chooses its client address with X-Forwarded-For
const vigil = await startVigil({ trustedProxies: 1, webhooks: { rateLimit: RATE } });
t.teardown(() => vigil.close());
const org = await vigil.organization();

const enqueue = async (body: string, from: string) => {
  const res = await fetch(`${vigil.url}/v2/enqueue`, { method: 'POST', headers: { 'user-agent': 'alertmanager/0.28', 'content-type': 'application/json', 'x-forwarded-for': from }, body });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> };
};
const event = (key: string) => JSON.stringify({ routing_key: key, event_action: 'trigger', payload: { summary: 'disk full', source: 'db-1', severity: 'critical' } });

t.test('unknown keys from one address are limited, before the body is read; another address goes on', async (t) => {
  for (let i = 0; i < RATE.points; i++) {
    const answer = await enqueue(event(`vigil_wh_guess${i}`), '203.0.113.9');
    if (answer.status !== 400) return t.fail(`guess ${i + 1} answered ${answer.status}`);
  }
  const over = await enqueue(event('vigil_wh_guess-more'), '203.0.113.9');
  t.equal(over.status, 429, 'the next unknown key is limited');
  t.ok(Number(over.retryAfter) > 0, 'with Retry-After');
  const large = await enqueue(`{"routing_key":"${org.webhookToken}","x":"${'y'.repeat(400_000)}`, '203.0.113.9');
  t.equal(large.status, 429, 'a large broken body from that address is refused before it is parsed');
  const real = await enqueue(event(org.webhookToken), '198.51.100.3');
  t.equal(real.status, 202, 'a real event from another address is accepted');
});

t.test('the routing key is read from the raw bytes; the parsed body must agree', async (t) => {
  t.equal(scanRoutingKey(Buffer.from('{"event_action":"trigger","routing_key" : "vigil_wh_abc"}')), 'vigil_wh_abc');
  t.equal(scanRoutingKey(Buffer.from('{"routing_key":"a","payload":{"routing_key":"b"}}')), undefined, 'two occurrences: not scanned');
  t.equal(scanRoutingKey(Buffer.from('{"routing_key":"a\\"b"}')), undefined, 'an escape: not scanned');
  const broken = await enqueue(`{"routing_key":"vigil_wh_unknown-key","payload":${'['.repeat(1000)}`, '192.0.2.50');
  t.match(broken, { status: 400, body: { errors: ['Invalid routing key'] } }, 'an unknown key in a body that does not parse: refused by its key');
  const nested = await enqueue(JSON.stringify({ event_action: 'trigger', payload: { summary: 's', source: 'x', severity: 'info', custom_details: { routing_key: org.webhookToken } } }), '192.0.2.51');
  t.equal(nested.status, 400, 'a key that is not the top-level routing_key selects nothing');
  t.match(nested.body.errors, [/routing_key/]);
});
