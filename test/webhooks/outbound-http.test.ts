/**
 * The SSRF-safe outbound client (webhooks/outbound/http.ts) against a receiver on 127.0.0.1, and the address
 * rules (addresses.ts), the retry schedule and the request bodies per config kind. No request ever leaves for a
 * refused address: refusals happen before a connection is made, and the refused names resolve through an
 * injected resolver, never DNS.
 */
import t, { type Test } from 'tap';
import { classifyAddress, isInternalNetwork } from '../../webhooks/outbound/addresses.ts';
import { refusal as checkRefusal } from '../../webhooks/checks/address.ts';
import { requestBody } from '../../webhooks/outbound/formats.ts';
import { OutboundFailed, OutboundHttp, OutboundRefused } from '../../webhooks/outbound/http.ts';
import { attemptsAllowed, RETRY_DELAYS_SECONDS, retryDelay } from '../../webhooks/outbound/schedule.ts';
import { startReceiver } from '../helpers/receiver.ts';

const receiver = await startReceiver();
t.teardown(() => receiver.close());

/** A resolver for made-up names: nothing here reaches DNS. */
const names: Record<string, string[]> = {
  'receiver.test': ['127.0.0.1'],
  'internal.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['127.0.0.1', '192.168.1.20'],
};
const resolve = async (hostname: string) => (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const open = new OutboundHttp({ allowLoopback: true, resolve });
const strict = new OutboundHttp({ allowLoopback: false, resolve });
t.teardown(() => (open.close(), strict.close()));

const post = (client: OutboundHttp, url: string, timeoutMs = 2000) => client.request({ url, body: '{}', timeoutMs });

async function refused(t: Test, promise: Promise<unknown>, reason: string, what: string) {
  const before = receiver.requests.length;
  const error = await promise.then(() => null, (e: unknown) => e);
  t.ok(error instanceof OutboundRefused, `${what}: refused`);
  t.equal((error as OutboundRefused).reason, reason, `${what}: for its ${reason}`);
  t.equal(receiver.requests.length, before, `${what}: nothing reached the receiver`);
}

t.test('addresses: private, link-local, reserved and mapped ones are refused; loopback is its own class', async (t) => {
  const cases: [string, string][] = [
    ['8.8.8.8', 'public'], ['2606:4700::1111', 'public'], ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'], ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'], ['0.0.0.0', 'private'], ['224.0.0.1', 'private'], ['255.255.255.255', 'private'], ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'], ['fe80::1', 'private'], ['::', 'private'], ['::ffff:10.0.0.1', 'private'], ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'private'], ['[::1]', 'loopback'], ['not an address', 'private'], ['172.32.0.1', 'public'],
  ];
  for (const [address, verdict] of cases) t.equal(classifyAddress(address), verdict, `${address} is ${verdict}`);
});

t.test('a private or link-local address is refused before any connection, as an IP literal or behind a name', async (t) => {
  await refused(t, post(open, 'http://10.0.0.7/hook'), 'address', 'a private IP literal');
  await refused(t, post(open, 'http://[fe80::1]/hook'), 'address', 'a link-local IPv6 literal');
  await refused(t, post(open, 'http://[::ffff:192.168.1.1]/hook'), 'address', 'an IPv4-mapped private address');
  await refused(t, post(open, 'http://internal.test/hook'), 'address', 'a name resolving to a private address');
  await refused(t, post(open, 'http://metadata.test/latest'), 'address', 'a name resolving to the metadata address');
  await refused(t, post(open, `http://mixed.test:${receiver.port}/hook`), 'address', 'a name with one private address among others');
  await refused(t, post(open, 'ftp://receiver.test/hook'), 'scheme', 'another scheme');
});

t.test('loopback is reached only when the operator allows it', async (t) => {
  await refused(t, post(strict, `${receiver.url}/hook`), 'address', 'loopback by default');
  await refused(t, post(strict, `http://receiver.test:${receiver.port}/hook`), 'address', 'a name resolving to loopback by default');
  const answer = await post(open, `http://receiver.test:${receiver.port}/hook`);
  t.equal(answer.status, 200, 'allowed: reached through the checked address');
  t.equal(receiver.requests.at(-1)!.headers.host, `receiver.test:${receiver.port}`, 'the Host header keeps the name');
});

t.test('a redirect to another host is never followed; a same-origin 307 is', async (t) => {
  receiver.script.push({ redirect: `http://localhost:${receiver.port}/elsewhere` });
  const before = receiver.requests.length;
  const error = await post(open, `${receiver.url}/moved`).catch((e: unknown) => e);
  t.ok(error instanceof OutboundRefused && error.reason === 'redirect', 'refused: another host');
  t.equal(receiver.requests.length, before + 1, 'only the first request was made');
  receiver.script.push({ redirect: '/final', status: 307 });
  const followed = await post(open, `${receiver.url}/first`);
  t.equal(followed.status, 200, 'a same-origin 307 is followed');
  t.same(receiver.requests.slice(-2).map((r) => [r.path, r.body]), [['/first', '{}'], ['/final', '{}']], 'with its body');
  receiver.script.push({ redirect: '/final', status: 302 });
  t.equal((await post(open, `${receiver.url}/first`)).status, 302, 'a 302 is answered as it is, not followed');
});

t.test('one deadline for the whole exchange', async (t) => {
  receiver.script.push('hang');
  // a receiver that never answers: without the deadline this would never settle; how close to the 200 ms it
  // gives up is a timing question this functional test leaves alone (a loaded machine stretches it)
  const error = await post(open, `${receiver.url}/slow`, 200).catch((e: unknown) => e);
  t.ok(error instanceof OutboundFailed && error.kind === 'timeout', 'a hanging receiver times out');
});

t.test('retry schedule: 8 attempts, doubling waits with ±20 % jitter, about an hour in all', async (t) => {
  t.equal(attemptsAllowed(RETRY_DELAYS_SECONDS), 8);
  t.same(RETRY_DELAYS_SECONDS, [30, 60, 120, 240, 480, 960, 1920]);
  const total = (r: number) => RETRY_DELAYS_SECONDS.reduce((sum, _, i) => sum + retryDelay(RETRY_DELAYS_SECONDS, i + 1, () => r)!, 0);
  t.equal(Math.round(total(0.5)), 3810, '63.5 minutes at the middle');
  t.equal(Math.round(total(0)), 3048, 'at least 51 minutes');
  t.equal(Math.round(total(1)), 4572, 'at most 76 minutes');
  t.equal(retryDelay(RETRY_DELAYS_SECONDS, 8), null, 'no wait after the 8th attempt: it was the last');
});

t.test('request bodies: the envelope for webhooks, a message with blocks for chat, pager events for a pager', async (t) => {
  const envelope = JSON.stringify({
    type: 'alert.fired', version: 1, id: 'e1', occurred_at: '2026-03-01T12:00:00.000Z', organization_id: 'o1',
    data: { alert: { id: 'a1', title: 'Disk full', severity: 'high', service: 'db', source: 'metric-dashboard', url: 'https://grafana.example.com/a' }, teams: [], storm: null },
  });
  t.equal(requestBody('webhook', envelope), envelope, 'webhook: the stored bytes');
  t.same(JSON.parse(requestBody('chat', envelope)), {
    text: 'Alert: Disk full · Severity: high · Service: db · Status: Firing · Source: metric-dashboard',
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: '*Alert: Disk full*' } },
      { type: 'section', fields: ['*Severity*\nhigh', '*Service*\ndb', '*Status*\nFiring', '*Source*\nmetric-dashboard'].map((text) => ({ type: 'mrkdwn', text })) },
      { type: 'section', text: { type: 'mrkdwn', text: '<https://grafana.example.com/a|Open the alert>' } },
    ],
  }, 'chat: an incoming-webhook message, a line and Block Kit sections');
  t.match(JSON.parse(requestBody('pager', envelope, 'R0uting-key')), { routing_key: 'R0uting-key', event_action: 'trigger', dedup_key: 'vigil-alert-a1', payload: { summary: 'Disk full', severity: 'error', source: 'db' } });
  const resolved = JSON.stringify({ ...JSON.parse(envelope), type: 'alert.resolved' });
  t.same(JSON.parse(requestBody('pager', resolved, 'R0uting-key')), { routing_key: 'R0uting-key', event_action: 'resolve', dedup_key: 'vigil-alert-a1', client: 'Vigil' });
});

t.test('checks judge addresses with the same classification, with their own policy for internal networks', async (t) => {
  const open = { allowLoopback: false, allowPrivate: true };
  const closed = { allowLoopback: false, allowPrivate: false };
  for (const address of ['10.0.0.7', '172.16.4.4', '192.168.1.1', '100.64.0.9', 'fd00::5', '::ffff:10.1.1.1']) {
    t.ok(isInternalNetwork(address), `${address} is an internal network`);
    t.equal(checkRefusal(address, open), null, `${address}: a check may reach it while private ranges are allowed`);
    t.match(checkRefusal(address, closed), /VIGIL_CHECK_ALLOW_PRIVATE/, `${address}: refused once they are not`);
  }
  for (const address of ['169.254.169.254', '0.0.0.0', '224.0.0.1', '192.0.2.10', 'fe80::1', '::']) {
    t.notOk(isInternalNetwork(address), `${address} is not an internal network`);
    t.match(checkRefusal(address, { allowLoopback: true, allowPrivate: true }), /never reach/, `${address}: never reached by a check`);
  }
  t.match(checkRefusal('127.0.0.1', open), /VIGIL_CHECK_ALLOW_LOOPBACK/);
  t.equal(checkRefusal('127.0.0.1', { allowLoopback: true, allowPrivate: false }), null);
  t.equal(checkRefusal('8.8.8.8', closed), null);
});
