/** `vigil serve`'s environment: every deployment setting is read as documented, and bad values refused by name. */
import t, { type Test } from 'tap';
import { readSettings } from '../../bin/env.ts';
import { serviceOptions as fromSettings } from '../../bin/serve.ts';
import type { Services } from '../../engine/services.ts';

const serviceOptions = (env: NodeJS.ProcessEnv) => fromSettings(readSettings(env));

/** Each environment is refused with its message, and the refusal never repeats `secret` (a password in a URL). */
function refusedWithout(t: Test, refusals: [Record<string, string>, RegExp][], secret: string): void {
  for (const [env, message] of refusals) {
    let refusal: unknown;
    try {
      serviceOptions(env);
    } catch (error) {
      refusal = error;
    }
    t.match(String(refusal), message, `refused: ${JSON.stringify(env).replaceAll(secret, '…')}`);
    t.notOk(String(refusal).includes(secret), 'the refusal does not repeat the password');
  }
}

t.test('VIGIL_WEBHOOK_RATE_LIMIT and VIGIL_WEBHOOK_RATE_LIMIT_STORE', async (t) => {
  t.doesNotThrow(() => serviceOptions({}), 'both unset: 600 a minute, counted in memory');
  t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT: '1200', VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'memory' }));
  t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'postgres://u@127.0.0.1:1/x' }));
  for (const value of ['0', '-5', '1.5', 'lots']) {
    t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT: value }), /VIGIL_WEBHOOK_RATE_LIMIT must be a whole number/, `limit ${value} refused`);
  }
  t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'mongo' }), /VIGIL_WEBHOOK_RATE_LIMIT_STORE must be memory, postgres or redis \(got mongo\)/);
  t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres' }), /needs DATABASE_URL/, 'the shared store needs PostgreSQL');
});

t.test('VIGIL_API_RATE_LIMIT: requests per minute per credential, 600 by default, 0 off', async (t) => {
  const closes: (() => Promise<void>)[] = [];
  const policy = (env: Record<string, string>) => {
    const make = serviceOptions(env).rateLimit;
    if (!make) return 'off';
    const limiter = make({ log: undefined, onClose: (hook: () => Promise<void>) => void closes.push(hook) } as unknown as Services);
    return `${limiter.points}/${limiter.windowSeconds}s`;
  };
  t.teardown(() => Promise.all(closes.map((close) => close())));
  t.equal(policy({}), '600/60s');
  t.equal(policy({ VIGIL_API_RATE_LIMIT: '' }), '600/60s');
  t.equal(policy({ VIGIL_API_RATE_LIMIT: '1200' }), '1200/60s');
  t.equal(policy({ VIGIL_API_RATE_LIMIT: '0' }), 'off');
  for (const value of ['-1', '1.5', 'ten', '1e400']) {
    t.throws(() => serviceOptions({ VIGIL_API_RATE_LIMIT: value }), /VIGIL_API_RATE_LIMIT must be a whole number of requests per minute, or 0/, `limit ${value} refused`);
  }
});

t.test('VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis and VIGIL_REDIS_URL', async (t) => {
  for (const url of ['redis://127.0.0.1:6379', 'redis://:pw@redis.example.com:6380/2', 'rediss://default:pw@redis.example.com', 'redis://[::1]:6379', ' redis://localhost ']) {
    t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis', VIGIL_REDIS_URL: url }), `${url.trim()} accepted`);
  }
  t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'memory', VIGIL_REDIS_URL: 'redis://127.0.0.1' }), 'a URL beside an explicit other store is left unused');
  const secret = 'hunter2-s3cret';
  const refusals: [Record<string, string>, RegExp][] = [
    [{ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis' }, /VIGIL_WEBHOOK_RATE_LIMIT_STORE=redis needs VIGIL_REDIS_URL/],
    [{ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis', VIGIL_REDIS_URL: '  ' }, /needs VIGIL_REDIS_URL/],
    [{ VIGIL_REDIS_URL: 'redis://127.0.0.1:6379' }, /VIGIL_REDIS_URL is set but VIGIL_WEBHOOK_RATE_LIMIT_STORE is not/],
    ...[
      `http://:${secret}@redis.example.com`, `redis:${secret}@redis.example.com`, `redis://:${secret}@`, `redis://:${secret}@host:port`,
      `redis://:${secret}@redis.example.com/zero`, `redis://:${secret}@redis.example.com/0/extra`, 'localhost:6379',
    ].map((url): [Record<string, string>, RegExp] => [{ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis', VIGIL_REDIS_URL: url }, /VIGIL_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/]),
    [{ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'postgres://u@127.0.0.1:1/x', VIGIL_REDIS_URL: `ftp://:${secret}@x` }, /VIGIL_REDIS_URL must be/],
  ];
  refusedWithout(t, refusals, secret);
});

t.test('the other deployment settings: accepted values, and a refusal naming the setting for anything else', async (t) => {
  const options = serviceOptions({
    VIGIL_AI_BASE_URL: 'https://ai.example.com/v1', VIGIL_AI_MODEL: 'gpt-x', VIGIL_AI_PRICES: '{"gpt-x": {"input": 1, "output": 2}}',
    VIGIL_OUTBOUND_ALLOW_LOOPBACK: 'on', VIGIL_WORKERS: 'off', VIGIL_AUTH_CACHE_MS: '0',
    VIGIL_CHECK_TICK_SECONDS: '10', VIGIL_CHECK_FAILURES_TO_ALERT: '3', VIGIL_CHECK_ALLOW_PRIVATE: 'off',
  });
  t.match(options.config, { ai: { baseUrl: 'https://ai.example.com/v1', model: 'gpt-x' }, aiPrices: { 'gpt-x': { input: 1, output: 2 } }, outbound: { allowLoopback: true } });
  t.equal(options.runWorkers, false);
  t.equal(options.authCacheMs, 0);
  const defaults = serviceOptions({});
  t.equal(defaults.runWorkers, true, 'workers run unless switched off');
  t.equal(defaults.config.outbound.allowLoopback, false, 'loopback refused unless switched on');
  t.same(defaults.config.outbound.allowedNetworks, [], 'no network allowed unless listed');
  t.same(serviceOptions({ VIGIL_OUTBOUND_ALLOWED_NETWORKS: ' 10.20.0.0/16, fd12:3456::/48,192.168.1.7 ' }).config.outbound.allowedNetworks, ['10.20.0.0/16', 'fd12:3456::/48', '192.168.1.7']);
  t.equal(defaults.authCacheMs, undefined);
  const refusals: [Record<string, string>, RegExp][] = [
    [{ VIGIL_AI_BASE_URL: 'ftp://ai.example.com' }, /VIGIL_AI_BASE_URL must be an http\(s\) URL/],
    [{ VIGIL_AI_BASE_URL: 'not a url' }, /VIGIL_AI_BASE_URL/],
    [{ VIGIL_AI_PRICES: '{' }, /VIGIL_AI_PRICES must be JSON/],
    [{ VIGIL_AI_PRICES: '[]' }, /VIGIL_AI_PRICES must be a JSON object/],
    [{ VIGIL_AI_PRICES: '{"m": {"input": -1, "output": 1}}' }, /VIGIL_AI_PRICES: the price of "m"/],
    [{ VIGIL_OUTBOUND_ALLOW_LOOPBACK: 'yes' }, /VIGIL_OUTBOUND_ALLOW_LOOPBACK must be on or off/],
    ...['10.0.0.0/33', 'internal.example', '10.0.0/8', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/-1', '10.0.0.0/ 8'].map((networks): [Record<string, string>, RegExp] => [
      { VIGIL_OUTBOUND_ALLOWED_NETWORKS: `192.168.0.0/16,${networks}` }, /VIGIL_OUTBOUND_ALLOWED_NETWORKS must be comma-separated networks/]),
    [{ VIGIL_WORKERS: 'of' }, /VIGIL_WORKERS must be on or off/],
    [{ VIGIL_AUTH_CACHE_MS: 'two seconds' }, /VIGIL_AUTH_CACHE_MS must be a number of at least 0/],
    [{ VIGIL_AUTH_CACHE_MS: '-1' }, /VIGIL_AUTH_CACHE_MS/],
    [{ VIGIL_CHECK_TICK_SECONDS: 'soon' }, /VIGIL_CHECK_TICK_SECONDS must be a number/],
    [{ VIGIL_CHECK_FAILURES_TO_ALERT: '0' }, /VIGIL_CHECK_FAILURES_TO_ALERT must be a number of at least 1/],
    [{ VIGIL_CHECK_FAILURES_TO_ALERT: '1.5' }, /VIGIL_CHECK_FAILURES_TO_ALERT must be a whole number/],
    [{ VIGIL_CHECK_ALLOW_LOOPBACK: 'maybe' }, /VIGIL_CHECK_ALLOW_LOOPBACK must be on or off/],
  ];
  for (const [env, message] of refusals) t.throws(() => serviceOptions(env), message, JSON.stringify(env));
});

t.test('chat, email and the periodic pass: VIGIL_CHAT_API_URL, VIGIL_SMTP_URL, VIGIL_EMAIL_FROM, VIGIL_NOTIFY_TICK_SECONDS', async (t) => {
  const defaults = serviceOptions({});
  t.same(defaults.config.chat, { apiUrl: 'https://slack.com/api', responseOrigin: 'https://hooks.slack.com' }, 'Slack\'s Web API and response host unless set');
  t.equal(defaults.config.email, undefined, 'no SMTP: the email channel sends nothing');
  const set = serviceOptions({
    VIGIL_CHAT_API_URL: 'https://chat.example.com/api/', VIGIL_SMTP_URL: 'smtp://vigil:pw@mail.example.com:587', VIGIL_EMAIL_FROM: 'Ops <ops@example.com>', VIGIL_NOTIFY_TICK_SECONDS: '10',
  });
  t.same(set.config.chat, { apiUrl: 'https://chat.example.com/api', responseOrigin: 'https://hooks.slack.com' }, 'a trailing / dropped');
  t.same(serviceOptions({ VIGIL_CHAT_RESPONSE_URL: 'https://chat.example.com/hooks/x' }).config.chat?.responseOrigin, 'https://chat.example.com', 'a self-hosted chat\'s response host: its origin');
  t.same(set.config.email, { smtpUrl: 'smtp://vigil:pw@mail.example.com:587', from: 'Ops <ops@example.com>' });
  t.same(serviceOptions({ VIGIL_SMTP_URL: 'smtps://mail.example.com:465' }).config.email, { smtpUrl: 'smtps://mail.example.com:465', from: 'Vigil <vigil@localhost>' });
  const secret = 'smtp-pass-9f8e';
  const refusals: [Record<string, string>, RegExp][] = [
    [{ VIGIL_CHAT_API_URL: 'ftp://chat.example.com' }, /VIGIL_CHAT_API_URL must be an http\(s\) URL/],
    [{ VIGIL_CHAT_API_URL: 'slack' }, /VIGIL_CHAT_API_URL/],
    [{ VIGIL_SMTP_URL: `http://vigil:${secret}@mail.example.com` }, /VIGIL_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/],
    [{ VIGIL_SMTP_URL: 'mail.example.com:25' }, /VIGIL_SMTP_URL/],
    [{ VIGIL_NOTIFY_TICK_SECONDS: 'often' }, /VIGIL_NOTIFY_TICK_SECONDS must be a number of at least 0/],
    [{ VIGIL_NOTIFY_TICK_SECONDS: '-1' }, /VIGIL_NOTIFY_TICK_SECONDS/],
  ];
  refusedWithout(t, refusals, secret);
});

t.test('VIGIL_DATABASE_PREPARED_STATEMENTS: on unless set off', async (t) => {
  t.equal(serviceOptions({}).preparedStatements, true);
  t.equal(serviceOptions({ VIGIL_DATABASE_PREPARED_STATEMENTS: 'off' }).preparedStatements, false);
  t.equal(serviceOptions({ VIGIL_DATABASE_PREPARED_STATEMENTS: 'on' }).preparedStatements, true);
  t.throws(() => serviceOptions({ VIGIL_DATABASE_PREPARED_STATEMENTS: 'sometimes' }), /VIGIL_DATABASE_PREPARED_STATEMENTS/);
});
