/**
 * The guarded outbound client (outbound/net/http.ts) against a receiver on 127.0.0.1: refusals before any
 * connection (IP literals and names, through an injected resolver, never DNS), one failure for every way of not
 * being reached, the operator's log line naming the rule, redirects, the deadline, the TLS handshake; and the
 * retry schedule and request bodies per config kind.
 */
import { createServer as createTlsServer } from 'node:tls';
import { generate } from 'selfsigned';
import t, { type Test } from 'tap';
import { createLogger } from '../../../engine/logger.ts';
import { addressPolicy } from '../../../outbound/net/addresses.ts';
import { requestBody } from '../../../outbound/render/formats.ts';
import { OutboundError, OutboundHttp } from '../../../outbound/net/http.ts';
import { attemptsAllowed, RETRY_DELAYS_SECONDS, retryDelay } from '../../../outbound/deliveries/schedule.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const receiver = await startReceiver();
t.teardown(() => receiver.close());

/** A resolver for made-up names: nothing here reaches DNS. */
const names: Record<string, string[]> = {
  'receiver.test': ['127.0.0.1'],
  'second.test': ['127.0.0.2'],
  'internal.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'mapped-metadata.test': ['::ffff:169.254.169.254'],
  'mixed.test': ['127.0.0.1', '192.168.1.20'],
};
const resolve = async (hostname: string) => {
  if (!(hostname in names)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return names[hostname]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const lines: { msg: string; rule?: string; failure?: string; outbound?: string; host?: string }[] = [];
const log = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
const open = new OutboundHttp({ policy: addressPolicy([], true), resolve, log });
const strict = new OutboundHttp({ policy: addressPolicy(), resolve, log });
t.teardown(() => (open.close(), strict.close()));

const post = (client: OutboundHttp, url: string, timeoutMs = 2000) => client.request({ url, body: '{}', timeoutMs, purpose: 'test' });

/** Refused before any connection: unreachable for the caller, the rule in the log. */
async function refused(t: Test, call: () => Promise<unknown>, rule: string, what: string) {
  const before = receiver.requests.length;
  const logged = lines.length;
  const error = await call().then(() => null, (e: unknown) => e);
  t.ok(error instanceof OutboundError && error.kind === 'unreachable', `${what}: unreachable`);
  t.equal((error as Error | null)?.message, 'could not be reached', `${what}: the one message`);
  t.match(lines.slice(logged), [{ msg: 'outbound request refused by the address policy', outbound: 'test', rule }], `${what}: the log says the rule`);
  t.equal(receiver.requests.length, before, `${what}: nothing reached the receiver`);
}

t.test('a refused address is refused before any connection, as an IP literal or behind a name', async (t) => {
  await refused(t, () => post(open, 'http://10.0.0.7/hook'), 'private', 'a private IP literal');
  await refused(t, () => post(open, 'http://[fe80::1]/hook'), 'link-local', 'a link-local IPv6 literal');
  await refused(t, () => post(open, 'http://[fd00::1]/hook'), 'unique local', 'a unique local IPv6 literal');
  await refused(t, () => post(open, 'http://[::ffff:192.168.1.1]/hook'), 'private (IPv4-mapped)', 'an IPv4-mapped private address');
  await refused(t, () => post(open, 'http://0.0.0.0/hook'), 'unspecified', 'the unspecified address');
  await refused(t, () => post(open, 'http://169.254.169.254/latest/meta-data'), 'cloud metadata', 'the metadata address');
  await refused(t, () => post(open, 'http://[::ffff:169.254.169.254]/latest'), 'cloud metadata (IPv4-mapped)', 'the metadata address, IPv4-mapped');
  await refused(t, () => post(open, 'http://internal.test/hook'), 'private', 'a name resolving to a private address');
  await refused(t, () => post(open, 'http://metadata.test/latest'), 'cloud metadata', 'a name resolving to the metadata address');
  await refused(t, () => post(open, 'http://mapped-metadata.test/latest'), 'cloud metadata (IPv4-mapped)', 'a name resolving to it as IPv6');
  await refused(t, () => post(open, `http://mixed.test:${receiver.port}/hook`), 'private', 'a name with one private address among others');
  await refused(t, () => post(open, 'ftp://receiver.test/hook'), 'not an http(s) URL', 'another scheme');
  await refused(t, () => post(open, 'file:///etc/passwd'), 'not an http(s) URL', 'a file URL');
  await refused(t, () => post(open, `http://user:pw@receiver.test:${receiver.port}/hook`), 'credentials in the URL', 'credentials in the URL');
});

t.test('loopback is reached only when the operator allows it, and only what is listed', async (t) => {
  await refused(t, () => post(strict, `${receiver.url}/hook`), 'loopback', 'loopback by default');
  await refused(t, () => post(strict, `http://receiver.test:${receiver.port}/hook`), 'loopback', 'a name resolving to loopback by default');
  await refused(t, () => post(strict, `http://2130706433:${receiver.port}/hook`), 'loopback', 'loopback written as a decimal number');
  const answer = await post(open, `http://receiver.test:${receiver.port}/hook`);
  t.equal(answer.status, 200, 'allowed: reached through the checked address');
  t.equal(receiver.requests.at(-1)!.headers.host, `receiver.test:${receiver.port}`, 'the Host header keeps the name');
  const listed = new OutboundHttp({ policy: addressPolicy(['127.0.0.1/32']), resolve, log });
  t.teardown(() => listed.close());
  t.equal((await post(listed, `http://receiver.test:${receiver.port}/hook`)).status, 200, 'a listed network is reached');
  await refused(t, () => post(listed, `http://second.test:${receiver.port}/hook`), 'loopback', 'the address next to it is not');
});

t.test('refused, closed, unknown and silent are one failure for the caller; the log tells them apart', async (t) => {
  const closed = await startReceiver();
  const port = closed.port;
  await closed.close();
  receiver.script.push('hang');
  const failures = await Promise.all([
    post(strict, 'http://internal.test/hook'),
    post(open, `http://127.0.0.1:${port}/closed`),
    post(open, 'http://nowhere.test/hook'),
    post(open, `${receiver.url}/silent`, 200),
  ].map((p) => p.then(() => null, (e: unknown) => e)));
  for (const error of failures) t.match(error, { name: 'OutboundError', kind: 'unreachable', message: 'could not be reached' });
  t.equal(new Set(failures.map((e) => (e as Error).message)).size, 1, 'one message for all four');
  t.same(failures.map((e) => (e as OutboundError).detail), ['refused: private', 'connection failed (ECONNREFUSED)', 'lookup failed (ENOTFOUND)', 'timeout']);
  t.ok(lines.some((l) => l.msg === 'outbound request failed' && l.failure === 'connection failed (ECONNREFUSED)'), 'the operator reads what happened');
  t.notOk(lines.some((l) => JSON.stringify(l).includes('/closed')), 'never the path');
});

t.test('a redirect to another host is never followed; a same-origin one is, judged again', async (t) => {
  receiver.script.push({ redirect: `http://localhost:${receiver.port}/elsewhere` });
  const before = receiver.requests.length;
  const error = await post(open, `${receiver.url}/moved`).catch((e: unknown) => e);
  t.match(error, { name: 'OutboundError', kind: 'redirect' }, 'refused: another host');
  t.equal(receiver.requests.length, before + 1, 'only the first request was made');
  receiver.script.push({ redirect: '/final', status: 307 });
  const followed = await post(open, `${receiver.url}/first`);
  t.equal(followed.status, 200, 'a same-origin 307 is followed');
  t.same(receiver.requests.slice(-2).map((r) => [r.path, r.body]), [['/first', '{}'], ['/final', '{}']], 'with its body');
  receiver.script.push({ redirect: '/final', status: 302 });
  t.equal((await post(open, `${receiver.url}/first`)).status, 302, 'a 302 of a POST is answered as it is, not followed');
  receiver.script.push({ redirect: '/got', status: 301 });
  const got = await open.request({ url: `${receiver.url}/get`, method: 'GET', timeoutMs: 2000, purpose: 'test' });
  t.equal(got.status, 200, 'a 301 of a GET to the same origin is followed');
  t.equal(receiver.requests.at(-1)!.path, '/got');
  receiver.script.push({ redirect: 'http://169.254.169.254/latest', status: 307 });
  t.match(await post(open, `${receiver.url}/to-metadata`).catch((e: unknown) => e), { kind: 'redirect' }, 'to the metadata address: another host, refused');
  receiver.script.push({ redirect: 'http://localhost:1/elsewhere', status: 302 });
  t.equal((await open.request({ url: `${receiver.url}/x`, method: 'GET', timeoutMs: 2000, maxRedirects: 0, purpose: 'test' })).status, 302, 'maxRedirects 0: every redirect answered as it is');
});

t.test('one deadline for the whole exchange', async (t) => {
  receiver.script.push('hang');
  const error = await post(open, `${receiver.url}/slow`, 200).catch((e: unknown) => e);
  t.match(error, { kind: 'unreachable', detail: 'timeout' }, 'a hanging receiver times out');
});

t.test('the answer is read up to maxResponseBytes', async (t) => {
  receiver.script.push({ echo: 200 });
  const answer = await open.request({ url: `${receiver.url}/echo`, body: '{}', timeoutMs: 2000, maxResponseBytes: 10, purpose: 'test' });
  t.equal(answer.body.length, 10);
  t.equal(answer.truncated, true);
});

t.test('the TLS handshake of a certificate monitor: the same policy, and the widening of checks', async (t) => {
  const pems = await generate([{ name: 'commonName', value: 'tls.test' }], { keySize: 2048, algorithm: 'sha256' });
  const server = createTlsServer({ key: pems.private, cert: pems.cert }, (socket) => socket.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as { port: number }).port;
  const target = { host: '127.0.0.1', port, timeoutMs: 2000, purpose: 'test' };
  t.match(await open.peerCertificate(target), { subject: { CN: 'tls.test' } }, 'read under a policy that allows loopback');
  await refused(t, () => strict.peerCertificate(target), 'loopback', 'a loopback literal by default');
  await refused(t, () => strict.peerCertificate({ ...target, host: 'receiver.test' }), 'loopback', 'a name resolving to loopback by default');
  t.match(await strict.peerCertificate({ ...target, widening: { loopback: true } }), { subject: { CN: 'tls.test' } }, 'a check widened to loopback');
  await refused(t, () => strict.peerCertificate({ ...target, host: '169.254.169.254', widening: { loopback: true, internal: true } }), 'cloud metadata', 'never the metadata address');
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

