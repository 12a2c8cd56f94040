/**
 * The logger's redaction paths (engine/logger.ts), the second guard behind "only routes, ids and projected rows
 * are logged": a served handler that logs a whole request — its URL, headers and parsed body — and a row full of
 * secrets still writes none of them. Each secret-bearing header and field is sent once through a real HTTP
 * request; the test fails unless every one is censored.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger } from '../../engine/logger.ts';

const lines: string[] = [];
const log = createLogger('info', new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
}));

// a handler as careless as one could be: everything about the request goes into the line
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const body = JSON.parse(raw) as Record<string, unknown>;
    log.info({ req: { method: req.method, url: req.url, headers: req.headers }, headers: req.headers, url: req.url, body, row: body, ...body }, 'request');
    res.end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise((resolve) => server.close(resolve)));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const SECRET = {
  authorization: 'Bearer vigil_key_authorization_0001',
  cookie: 'session=cookie-secret-0002',
  signature: 'x-vigil-signature-secret-0003',
  webhookToken: 'vigil_wh_url_token_0004',
};
const FIELDS = ['api_key', 'token', 'secret', 'password', 'private_key', 'signing_secret', 'bot_token', 'webhook_token', 'key'];
const fieldSecret = (field: string) => `${field}-value-${field.length}-never-logged`;

t.test('every secret-bearing header, URL segment and field of a logged request is censored', async (t) => {
  const answer = await fetch(`${base}/webhooks/metric-dashboard/${SECRET.webhookToken}?x=1`, {
    method: 'POST',
    headers: { authorization: SECRET.authorization, cookie: SECRET.cookie, 'x-vigil-signature-secret': SECRET.signature, 'content-type': 'application/json' },
    body: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, fieldSecret(f)]))),
  });
  t.equal(await answer.text(), 'ok');
  t.equal(lines.length, 1, 'one line logged');
  const line = lines[0]!;
  const secrets = [...Object.values(SECRET), SECRET.authorization.slice('Bearer '.length), ...FIELDS.map(fieldSecret)];
  t.same(secrets.filter((s) => line.includes(s)), [], 'no secret in the line');
  const logged = JSON.parse(line);
  t.equal(logged.req.url, '/webhooks/metric-dashboard/[redacted]?x=1', 'a webhook URL keeps its source, not its token');
  t.equal(logged.url, '/webhooks/metric-dashboard/[redacted]?x=1');
  for (const headers of [logged.req.headers, logged.headers]) {
    t.match(headers, { authorization: '[redacted]', cookie: '[redacted]', 'x-vigil-signature-secret': '[redacted]', 'content-type': 'application/json' }, 'secret headers censored, others kept');
  }
  const censored = Object.fromEntries(FIELDS.map((f) => [f, '[redacted]']));
  t.match(logged, { body: censored, row: censored, ...censored }, 'each secret field, nested or at the top');
});
