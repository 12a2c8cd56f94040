/** Amazon SNS trust: the SNS URL check, subscription confirmation and message signature verification. */
import { createSign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { generate } from 'selfsigned';
import t from 'tap';
import { confirmSubscription, createSnsVerifier, isSnsUrl, type SnsHttp } from '../../webhooks/sns-trust.ts';

type Envelope = Record<string, unknown>;

const FIXTURES = new URL('../fixtures/webhooks/cloud-alarms/', import.meta.url);
const fixture = (name: string): Envelope => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';
const DAY = 24 * 60 * 60 * 1000;

const sns = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], { keySize: 2048, algorithm: 'sha256' });
const stranger = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], { keySize: 2048, algorithm: 'sha256' });
const ecCert = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], { keyType: 'ec', algorithm: 'sha256' });
const snsValidity = new X509Certificate(sns.cert);

/** The string SNS signs, built here independently of the module under test. */
function snsStringToSign(envelope: Envelope): string {
  const keys =
    envelope.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys.filter((key) => typeof envelope[key] === 'string').map((key) => `${key}\n${envelope[key]}\n`).join('');
}

function signText(text: string, version: string, key: string): string {
  return createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
}

/** Signs a copy of the envelope as SNS does. */
function signed(envelope: Envelope, version = '1', key = sns.private): Envelope {
  return {
    ...envelope,
    SigningCertURL: CERT_URL,
    SignatureVersion: version,
    Signature: signText(snsStringToSign(envelope), version, key),
  };
}

type Reply = { status: number; body: string } | Error | 'hang';

/** A fake SNS host: records every URL fetched and answers from `reply`. */
function fakeHttp(reply: (url: string) => Reply | Promise<Reply> = () => ({ status: 200, body: sns.cert })) {
  const calls: string[] = [];
  const signals: AbortSignal[] = [];
  const http: SnsHttp = async (url, init) => {
    calls.push(url);
    signals.push(init.signal);
    const r = await reply(url);
    if (r === 'hang') {
      // AbortSignal.timeout's timer does not keep the process alive (a real socket would), so hold it open.
      const alive = setInterval(() => {}, 1000);
      return new Promise((_, reject) =>
        init.signal.addEventListener('abort', () => {
          clearInterval(alive);
          reject(init.signal.reason);
        }),
      );
    }
    if (r instanceof Error) throw r;
    return { ok: r.status >= 200 && r.status < 300, status: r.status, text: async () => r.body };
  };
  return { http, calls, signals };
}

const alarm = fixture('alarm.json');

t.test('isSnsUrl accepts only https URLs on an SNS host and port 443', async (t) => {
  const accepted = [
    'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=abc',
    'https://sns.us-gov-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
    'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
    'https://sns.ap-southeast-2.amazonaws.com',
    'https://sns.eu-west-1.amazonaws.com:443/x.pem',
    'https://SNS.US-EAST-1.AMAZONAWS.COM/x.pem',
  ];
  const refused = [
    'http://sns.us-east-1.amazonaws.com/x.pem',
    'https://user@sns.us-east-1.amazonaws.com/x.pem',
    'https://user:pass@sns.us-east-1.amazonaws.com/x.pem',
    'https://sns.us-east-1.amazonaws.com:8443/x.pem',
    'https://sns.us-east-1.amazonaws.com.evil.example/x.pem',
    'https://evilsns.us-east-1.amazonaws.com/x.pem',
    'https://evil.sns.us-east-1.amazonaws.com/x.pem',
    'https://sns.us-east-1.amazonaws.com./x.pem',
    'https://sns.amazonaws.com/x.pem',
    'https://sns.useast1.amazonaws.com/x.pem',
    'https://sns.-us-east-1.amazonaws.com/x.pem',
    'https://sns.us--east-1.amazonaws.com/x.pem',
    'https://sns.us_east-1.amazonaws.com/x.pem',
    'https://sns.us-east-1.amazonaws.org/x.pem',
    'https://sns.us-east-1.amazonaws.com.cn.evil.example/x.pem',
    'https://sqs.us-east-1.amazonaws.com/x.pem',
    'https://54.239.28.85/x.pem',
    'https://[::1]/x.pem',
    'ftp://sns.us-east-1.amazonaws.com/x.pem',
    'sns.us-east-1.amazonaws.com/x.pem',
    '//sns.us-east-1.amazonaws.com/x.pem',
    'https://',
    'not a url',
    '',
  ];
  for (const url of accepted) t.equal(isSnsUrl(url), true, `accepts ${url}`);
  for (const url of refused) t.equal(isSnsUrl(url), false, `refuses ${JSON.stringify(url)}`);
  t.equal(isSnsUrl(42 as unknown as string), false, 'a non-string is refused, not thrown on');
});

t.test('valid signatures: versions 1 and 2, all three types, re-signed fixtures', async (t) => {
  const files = ['alarm.json', 'ok.json', 'insufficient-data.json', 'subscription-confirmation.json', 'unsubscribe-confirmation.json'];
  const { http, calls, signals } = fakeHttp();
  const verifier = createSnsVerifier({ http });
  for (const file of files) {
    for (const version of ['1', '2']) {
      t.same(await verifier.verify(signed(fixture(file), version)), { valid: true }, `${file} v${version}`);
    }
  }
  t.same(calls, [CERT_URL], 'the certificate is fetched from SigningCertURL, once');
  t.ok(signals[0] instanceof AbortSignal, 'the fetch carries an abort signal');
});

t.test('the string to sign is the one AWS documents', async (t) => {
  // A literal, so the key order and layout are checked without the test's own string builder.
  const envelope = {
    Type: 'Notification',
    MessageId: '4d4dc071-ddbf-465d-bba8-08f81c89da64',
    TopicArn: 'arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P',
    Subject: 'My subject',
    Message: 'My Test Message',
    Timestamp: '2019-01-31T04:37:04.321Z',
    UnsubscribeURL: 'https://sns.us-east-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=x',
  };
  const text =
    'Message\nMy Test Message\nMessageId\n4d4dc071-ddbf-465d-bba8-08f81c89da64\nSubject\nMy subject\n' +
    'Timestamp\n2019-01-31T04:37:04.321Z\nTopicArn\narn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P\n' +
    'Type\nNotification\n';
  const verifier = createSnsVerifier({ http: fakeHttp().http });
  for (const version of ['1', '2']) {
    const message = { ...envelope, SignatureVersion: version, Signature: signText(text, version, sns.private), SigningCertURL: CERT_URL };
    t.same(await verifier.verify(message), { valid: true }, `v${version}`);
  }
  const confirmation = fixture('subscription-confirmation.json');
  const confirmationText = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type']
    .map((key) => `${key}\n${confirmation[key]}\n`)
    .join('');
  t.same(
    await verifier.verify({ ...confirmation, Signature: signText(confirmationText, '1', sns.private), SigningCertURL: CERT_URL }),
    { valid: true },
    'a SubscriptionConfirmation signs SubscribeURL and Token',
  );
});

t.test('Subject is signed when present and left out when absent', async (t) => {
  const verifier = createSnsVerifier({ http: fakeHttp().http });
  const { Subject: _subject, ...noSubject } = alarm;
  t.same(await verifier.verify(signed(noSubject, '2')), { valid: true }, 'no Subject');
  t.same(await verifier.verify({ ...signed(noSubject, '2'), Subject: null }), { valid: true }, 'a null Subject counts as absent');
  const withSubject = signed(alarm, '2');
  t.same(await verifier.verify(withSubject), { valid: true }, 'with Subject');
  const { Subject: _s, ...stripped } = withSubject;
  t.match(await verifier.verify(stripped), { valid: false, reason: /signature does not match/ }, 'Subject removed after signing');
  t.match(await verifier.verify({ ...signed(noSubject, '2'), Subject: 'ALARM: injected' }), { valid: false }, 'Subject added after signing');
  t.match(await verifier.verify({ ...withSubject, Subject: 'OK: "checkout-api-5xx-high"' }), { valid: false }, 'Subject changed');
});

t.test('tampering, a wrong key and unsigned fields', async (t) => {
  const { http } = fakeHttp();
  const verifier = createSnsVerifier({ http });
  const good = signed(alarm, '1');
  const message = JSON.parse(alarm.Message as string);
  const tampered = { ...good, Message: JSON.stringify({ ...message, NewStateValue: 'OK' }) };
  t.match(await verifier.verify(tampered), { valid: false, reason: /signature does not match/ }, 'tampered Message');
  t.match(await verifier.verify({ ...good, TopicArn: 'arn:aws:sns:us-east-1:999999999999:other' }), { valid: false }, 'tampered TopicArn');
  t.match(await verifier.verify({ ...good, Type: 'SubscriptionConfirmation' }), { valid: false }, 'Type changed');
  t.match(await verifier.verify(signed(alarm, '1', stranger.private)), { valid: false, reason: /signature does not match/ }, 'signed by another key');
  t.match(await verifier.verify({ ...good, SignatureVersion: '2' }), { valid: false }, 'a v1 signature claimed as v2');
  t.same(await verifier.verify({ ...good, UnsubscribeURL: 'https://evil.example/' }), { valid: true }, 'UnsubscribeURL is not signed');

  const confirmation = signed(fixture('subscription-confirmation.json'), '2');
  t.match(await verifier.verify({ ...confirmation, Token: 'f'.repeat(64) }), { valid: false, reason: /signature does not match/ }, 'Token is signed');
  t.match(
    await verifier.verify({ ...confirmation, SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x' }),
    { valid: false, reason: /signature does not match/ },
    'SubscribeURL is signed',
  );
  const { Token: _token, ...noToken } = confirmation;
  t.match(await verifier.verify(noToken), { valid: false, reason: /Token is missing/ }, 'a confirmation without Token');
  const { Timestamp: _ts, ...noTimestamp } = good;
  t.match(await verifier.verify(noTimestamp), { valid: false, reason: /Timestamp is missing/ }, 'a notification without Timestamp');
  t.match(await verifier.verify({ ...good, MessageId: 7 }), { valid: false, reason: /MessageId/ }, 'a non-string signed field');
});

t.test('unsigned or unsupported messages are refused without fetching anything', async (t) => {
  const { http, calls } = fakeHttp();
  const verifier = createSnsVerifier({ http });
  const good = signed(alarm, '1');
  const { Signature: _sig, ...noSignature } = good;
  const { SigningCertURL: _url, ...noCertUrl } = good;
  const { SignatureVersion: _v, ...noVersion } = good;
  const { Type: _type, ...noType } = good;
  const cases: [string, unknown, RegExp][] = [
    ['no Signature', noSignature, /^the message is not signed \(no Signature\)$/],
    ['no SigningCertURL', noCertUrl, /^the message is not signed \(no SigningCertURL\)$/],
    ['SigningCertUrl is not an alias', { ...noCertUrl, SigningCertUrl: CERT_URL }, /not signed \(no SigningCertURL\)/],
    ['no SignatureVersion', noVersion, /not signed \(no SignatureVersion\)/],
    ['no Type', noType, /not signed \(no Type\)/],
    ['several missing', { Type: 'Notification', Message: '{}' }, /not signed \(no SignatureVersion, Signature, SigningCertURL\)/],
    ['an empty Signature', { ...good, Signature: '' }, /not signed \(no Signature\)/],
    ['a non-string Signature', { ...good, Signature: 12 }, /not signed \(no Signature\)/],
    ['an array', [good], /not a JSON object/],
    ['a string', JSON.stringify(good), /not a JSON object/],
    ['null', null, /not a JSON object/],
    ['SignatureVersion 3', { ...good, SignatureVersion: '3' }, /this SignatureVersion is not supported \(only "1" and "2"\)/],
    ['SignatureVersion as a number', { ...good, SignatureVersion: 1 }, /no SignatureVersion/],
    ['an unknown Type', { ...good, Type: 'Unsubscribe' }, /Type/],
    ['a Signature that is not base64', { ...good, Signature: 'not*base64!' }, /not base64/],
    ['a foreign certificate host', { ...good, SigningCertURL: 'https://evil.example/SimpleNotificationService-0.pem' }, /SigningCertURL/],
    ['a look-alike host', { ...good, SigningCertURL: 'https://sns.us-east-1.amazonaws.com.evil.example/a.pem' }, /SigningCertURL/],
    ['a plain-http certificate', { ...good, SigningCertURL: CERT_URL.replace('https:', 'http:') }, /SigningCertURL/],
    ['a non-.pem path', { ...good, SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.crt' }, /SigningCertURL/],
    ['a directory path', { ...good, SigningCertURL: 'https://sns.us-east-1.amazonaws.com/x.pem/' }, /SigningCertURL/],
    ['the service root', { ...good, SigningCertURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe' }, /SigningCertURL/],
    ['.pem only in the query', { ...good, SigningCertURL: 'https://sns.us-east-1.amazonaws.com/x?f=a.pem' }, /SigningCertURL/],
    ['a query after .pem', { ...good, SigningCertURL: `${CERT_URL}?redirect=1` }, /SigningCertURL/],
    ['userinfo', { ...good, SigningCertURL: CERT_URL.replace('https://', 'https://x@') }, /SigningCertURL/],
    ['another port', { ...good, SigningCertURL: CERT_URL.replace('.com/', '.com:8443/') }, /SigningCertURL/],
  ];
  for (const [name, envelope, reason] of cases) {
    t.match(await verifier.verify(envelope), { valid: false, reason }, name);
  }
  t.same(calls, [], 'nothing was fetched');
});

t.test('certificates are cached per URL, for cacheTtlMs, and only when fetched successfully', async (t) => {
  let clock = Date.now();
  const { http, calls } = fakeHttp();
  const verifier = createSnsVerifier({ http, cacheTtlMs: 60_000, now: () => clock });
  const message = signed(alarm, '2');
  t.same(await verifier.verify(message), { valid: true });
  t.same(await verifier.verify(signed(fixture('ok.json'), '1')), { valid: true });
  t.equal(calls.length, 1, 'the second verification fetches nothing');
  clock += 59_999;
  t.same(await verifier.verify(message), { valid: true });
  t.equal(calls.length, 1, 'still cached just before the TTL');
  clock += 2;
  t.same(await verifier.verify(message), { valid: true });
  t.equal(calls.length, 2, 'fetched again once the TTL has passed');

  const other = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1111.pem';
  t.same(await verifier.verify({ ...message, SigningCertURL: other }), { valid: true });
  t.same(calls, [CERT_URL, CERT_URL, other], 'each URL has its own entry');
});

t.test('a failed or unusable fetch is an invalid verdict and is not cached', async (t) => {
  let reply: Reply = { status: 503, body: 'Service Unavailable' };
  const { http, calls } = fakeHttp(() => reply);
  const verifier = createSnsVerifier({ http, timeoutMs: 30 });
  const message = signed(alarm, '1');
  t.match(await verifier.verify(message), { valid: false, reason: /could not be fetched \(HTTP 503\)/ });
  reply = new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
  t.match(await verifier.verify(message), { valid: false, reason: /could not be fetched \(Amazon SNS could not be reached\)/ });
  reply = 'hang';
  t.match(await verifier.verify(message), { valid: false, reason: /could not be fetched \(Amazon SNS could not be reached\)/ });
  reply = { status: 200, body: '<html>not a certificate</html>' };
  t.match(await verifier.verify(message), { valid: false, reason: /not a PEM X.509 certificate/ });
  reply = { status: 200, body: sns.public };
  t.match(await verifier.verify(message), { valid: false, reason: /not a PEM X.509 certificate/ }, 'a bare public key is not a certificate');
  reply = { status: 200, body: sns.cert };
  t.same(await verifier.verify(message), { valid: true });
  t.equal(calls.length, 6, 'every failure was fetched anew');
});

t.test('concurrent verifications share one certificate fetch', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { http, calls } = fakeHttp(async () => {
    await gate;
    return { status: 200, body: sns.cert };
  });
  const verifier = createSnsVerifier({ http });
  const pending = [signed(alarm, '1'), signed(alarm, '2'), signed(fixture('subscription-confirmation.json'), '2')].map((m) => verifier.verify(m));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  t.same(await Promise.all(pending), [{ valid: true }, { valid: true }, { valid: true }]);
  t.equal(calls.length, 1, 'one fetch for three verifications');

  // A shared failure is not cached either: the next verification tries again.
  let fail = true;
  const failing = fakeHttp(() => (fail ? { status: 500, body: '' } : { status: 200, body: sns.cert }));
  const v2 = createSnsVerifier({ http: failing.http });
  const both = await Promise.all([v2.verify(signed(alarm)), v2.verify(signed(alarm))]);
  t.match(both, [{ valid: false }, { valid: false }]);
  t.equal(failing.calls.length, 1);
  fail = false;
  t.same(await v2.verify(signed(alarm)), { valid: true });
  t.equal(failing.calls.length, 2);
});

t.test('maxCached evicts the oldest certificate', async (t) => {
  const { http, calls } = fakeHttp();
  const verifier = createSnsVerifier({ http, maxCached: 2 });
  const url = (region: string) => `https://sns.${region}.amazonaws.com/SimpleNotificationService-x.pem`;
  const at = (region: string) => verifier.verify({ ...signed(alarm), SigningCertURL: url(region) });
  for (const region of ['us-east-1', 'us-west-2', 'eu-west-1']) t.same(await at(region), { valid: true });
  t.equal(calls.length, 3);
  await at('eu-west-1');
  await at('us-west-2');
  t.equal(calls.length, 3, 'the two newest are cached');
  await at('us-east-1');
  t.equal(calls.length, 4, 'the oldest was evicted');
  await at('eu-west-1');
  t.equal(calls.length, 4, 'refetching evicted us-west-2, not eu-west-1');
  await at('us-west-2');
  t.equal(calls.length, 5);
});

t.test('a certificate refetched after its TTL counts as the newest', async (t) => {
  let clock = Date.now();
  const { http, calls } = fakeHttp();
  const verifier = createSnsVerifier({ http, maxCached: 3, cacheTtlMs: 1000, now: () => clock });
  const url = (region: string) => `https://sns.${region}.amazonaws.com/SimpleNotificationService-x.pem`;
  const at = (region: string) => verifier.verify({ ...signed(alarm), SigningCertURL: url(region) });
  await at('us-east-1');
  clock += 500;
  await at('us-west-2');
  clock += 600;
  await at('us-east-1');
  t.equal(calls.length, 3, 'us-east-1 expired and was fetched again');
  await at('eu-west-1');
  await at('eu-central-1');
  t.same(calls.slice(3), [url('eu-west-1'), url('eu-central-1')]);
  await at('us-east-1');
  t.equal(calls.length, 5, 'us-east-1 is still cached: us-west-2 was the oldest fetch');
  await at('us-west-2');
  t.equal(calls.length, 6, 'us-west-2 was evicted');
});

t.test('the certificate must be within its validity period and hold an RSA key', async (t) => {
  let clock = Date.now();
  const verifier = createSnsVerifier({ http: fakeHttp().http, now: () => clock });
  const message = signed(alarm, '2');
  t.same(await verifier.verify(message), { valid: true });
  clock = snsValidity.validToDate.getTime() + DAY;
  t.match(await verifier.verify(message), { valid: false, reason: /validity period/ }, 'expired');
  clock = snsValidity.validFromDate.getTime() - DAY;
  t.match(await verifier.verify(message), { valid: false, reason: /validity period/ }, 'not yet valid');

  const ec = createSnsVerifier({ http: fakeHttp(() => ({ status: 200, body: ecCert.cert })).http });
  t.match(await ec.verify(signed(alarm, '2', ecCert.private)), { valid: false, reason: /RSA/ }, 'an ECDSA signature from an EC certificate');
});

t.test('verify never throws: fuzzed envelopes and hostile objects', async (t) => {
  let seed = 0x5eed;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const randomString = () => {
    const chars = 'aZ09+/=.-_:\n\u0000é😀 ';
    return Array.from({ length: Math.floor(random() * 24) }, () => pick([...chars])).join('');
  };
  const randomValue = (depth = 0): unknown => {
    switch (Math.floor(random() * (depth > 2 ? 6 : 8))) {
      case 0: return null;
      case 1: return random() * 1e6 - 5e5;
      case 2: return random() < 0.5;
      case 3: return randomString();
      case 4: return pick(['1', '2', 'Notification', 'SubscriptionConfirmation', CERT_URL, 'http://x.pem', '']);
      case 5: return undefined;
      case 6: return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(depth + 1));
      default: return randomObject(depth + 1);
    }
  };
  const keys = ['Type', 'SignatureVersion', 'Signature', 'SigningCertURL', 'Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Token', 'SubscribeURL', '__proto__', 'constructor', 'x'];
  const randomObject = (depth = 0): Envelope => {
    const obj: Envelope = {};
    for (let i = Math.floor(random() * 8); i > 0; i--) obj[pick(keys)] = randomValue(depth);
    return obj;
  };

  const { http } = fakeHttp();
  const verifier = createSnsVerifier({ http });
  const good = signed(fixture('subscription-confirmation.json'), '2');
  let invalid = 0;
  for (let i = 0; i < 600; i++) {
    const kind = i % 3;
    const input = kind === 0 ? randomValue() : kind === 1 ? randomObject() : { ...good, [pick(keys)]: randomValue() };
    const verdict = await verifier.verify(input);
    if (verdict.valid) {
      t.equal(kind, 2, 'only an untouched signed field set can verify');
    } else {
      invalid++;
      if (typeof verdict.reason !== 'string' || verdict.reason === '') t.fail(`no reason for ${JSON.stringify(input)}`);
    }
  }
  t.ok(invalid > 400, `${invalid} of 600 fuzzed inputs refused with a reason`);

  const throwing = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error('boom'); }, get: () => { throw new Error('boom'); } });
  const getter = Object.defineProperty({ ...good }, 'Signature', { get: () => { throw new Error('boom'); }, enumerable: true });
  const inherited = Object.assign(Object.create(good), {});
  for (const [name, input] of [['a throwing proxy', throwing], ['a throwing getter', getter], ['inherited fields', inherited], ['a function', () => good], ['a symbol', Symbol('x')], ['undefined', undefined]] as const) {
    const verdict = await verifier.verify(input);
    t.equal(verdict.valid, false, name);
  }
  t.match(await verifier.verify(JSON.parse(`{"__proto__": ${JSON.stringify(good)}}`)), { valid: false }, 'fields under __proto__ are not read');
});

t.test('confirmSubscription', async (t) => {
  const confirmation = fixture('subscription-confirmation.json');
  const subscribeUrl = confirmation.SubscribeURL as string;
  const token = confirmation.Token as string;
  t.ok(subscribeUrl.includes(token), 'the fixture URL carries the Token');

  t.test('a 2xx answer confirms, with a timeout signal', async (t) => {
    const { http, calls, signals } = fakeHttp(() => ({ status: 200, body: '<ConfirmSubscriptionResponse/>' }));
    t.same(await confirmSubscription(subscribeUrl, http), { ok: true });
    t.same(calls, [subscribeUrl], 'the SubscribeURL is fetched exactly as sent');
    t.ok(signals[0] instanceof AbortSignal);
  });

  t.test('failures are results with a reason that never holds the Token', async (t) => {
    const replies: [string, Reply, RegExp][] = [
      ['HTTP 403', { status: 403, body: `<Error>Token ${token} is invalid</Error>` }, /refused the subscription confirmation \(HTTP 403\)/],
      ['HTTP 500', { status: 500, body: '' }, /HTTP 500/],
      ['a network error', new TypeError(`fetch failed: ${subscribeUrl}`, { cause: { code: 'ENOTFOUND', url: subscribeUrl } }), /could not be confirmed: Amazon SNS could not be reached$/],
      ['an error without a code', new Error(subscribeUrl), /could not be confirmed: Amazon SNS could not be reached$/],
      ['a timeout', 'hang', /could not be confirmed: Amazon SNS could not be reached$/],
    ];
    for (const [name, reply, reason] of replies) {
      const { http, calls } = fakeHttp(() => reply);
      const result = await confirmSubscription(subscribeUrl, http, { timeoutMs: 30 });
      t.match(result, { ok: false, reason }, name);
      t.equal(calls.length, 1);
      t.notOk(JSON.stringify(result).includes(token.slice(0, 16)), `${name}: the Token is not in the reason`);
      t.notOk(JSON.stringify(result).includes('Action=ConfirmSubscription'), `${name}: the query string is not in the reason`);
    }
  });

  t.test('a URL that is not on an SNS host is never fetched', async (t) => {
    const { http, calls } = fakeHttp();
    const query = `?Action=ConfirmSubscription&Token=${token}`;
    for (const url of [
      `http://sns.us-east-1.amazonaws.com/${query}`,
      `https://evil.example/${query}`,
      `https://sns.us-east-1.amazonaws.com.evil.example/${query}`,
      `https://me@sns.us-east-1.amazonaws.com/${query}`,
      `https://169.254.169.254/latest/meta-data/${query}`,
      'not a url',
    ]) {
      const result = await confirmSubscription(url, http);
      t.match(result, { ok: false, reason: /not an https URL on an Amazon SNS host/ }, url);
      t.notOk(JSON.stringify(result).includes(token.slice(0, 16)));
    }
    t.same(calls, []);
  });
});
