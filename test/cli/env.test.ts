/**
 * Issue 20: every environment variable is read and checked once (bin/env.ts). A bad value stops `vigil serve` with
 * one line naming the variable, exit code 1 and no stack; a value that may hold a secret is never repeated.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { readSettings, SettingError } from '../../bin/env.ts';

const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));
const SECRET = 'pw-7c1e9a-never-shown';

/** The refusal `readSettings` throws for `env`, or undefined when it accepts it. */
function refusal(env: NodeJS.ProcessEnv): SettingError | undefined {
  try {
    readSettings(env);
  } catch (error) {
    if (error instanceof SettingError) return error;
    throw error;
  }
  return undefined;
}

/** `vigil serve` with `env` over a quiet default environment, expected to refuse before it serves. */
function serve(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [VIGIL, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: 'memory://', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => void (stdout += chunk));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    // a start that serves ("Vigil is serving at", on stderr) is a failure of the test: stop it rather than leave it running
    if (/serving at/.test(stderr)) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

t.test('vigil serve with a bad variable: one line naming it, exit 1, no stack, no secret', async (t) => {
  const cases: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['HOST', { HOST: '' }],
    ['DATABASE_URL', { DATABASE_URL: `mysql://vigil:${SECRET}@db.example.com/vigil` }],
    ['VIGIL_REDIS_URL', { VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis', VIGIL_REDIS_URL: `http://:${SECRET}@redis.example.com` }],
    ['VIGIL_SMTP_URL', { VIGIL_SMTP_URL: `mail://vigil:${SECRET}@mail.example.com` }],
    ['VIGIL_BOOTSTRAP', { VIGIL_BOOTSTRAP: 'maybe' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    // issue 41: a short operator token would open the back office to guessing
    ['VIGIL_ADMIN_TOKEN', { VIGIL_ADMIN_TOKEN: 'x' }],
    ['VIGIL_ADMIN_TOKEN', { VIGIL_ADMIN_TOKEN: SECRET.padEnd(31, 'x') }],
    // issue 39: a half-configured single sign-on
    ['VIGIL_OIDC_ROLE_MAPPINGS', { VIGIL_OIDC_ISSUER: 'https://login.example.com', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: SECRET, VIGIL_OIDC_ORGANIZATION: 'Acme', VIGIL_OIDC_ROLE_MAPPINGS: 'sre=boss' }],
  ];
  const runs = await Promise.all(cases.map(([, env]) => serve(env)));
  cases.forEach(([variable, env], i) => {
    const { code, stdout, stderr } = runs[i]!;
    const what = JSON.stringify(env).replaceAll(SECRET, '…');
    t.equal(code, 1, `${what}: exit 1`);
    t.notMatch(stderr, /serving at/, `${what}: never serves`);
    t.equal(stdout, '', `${what}: nothing in the log stream`);
    t.match(stderr, variable, `${what}: names ${variable}`);
    t.equal(stderr.trimEnd().split('\n').length, 1, `${what}: one line`);
    t.notMatch(stderr, /\n\s+at |Error:/, `${what}: no stack`);
    t.notOk(stderr.includes(SECRET), `${what}: the secret is not repeated`);
  });
});

t.test('defaults when nothing is set', async (t) => {
  const settings = readSettings({});
  t.match(settings, {
    port: 8080, host: '127.0.0.1', dataDir: './data', bootstrap: true, runWorkers: true, preparedStatements: true, logLevel: 'info', trustedProxies: 0,
    trustPrincipalId: 'vigil-platform', apiRateLimit: { points: 600, durationSeconds: 60 }, rateLimits: { rateLimitStore: 'memory' },
    codeHost: { apiUrl: 'https://api.github.com' }, chat: { apiUrl: 'https://slack.com/api' }, outbound: { allowLoopback: false, allowedNetworks: [] },
  });
  for (const key of ['databaseUrl', 'publicUrl', 'operatorToken', 'secretKey', 'ai', 'aiPrices', 'email', 'authCacheMs'] as const) t.equal(settings[key], undefined, `${key} unset`);
  t.equal(readSettings({ DATABASE_URL: '' }).databaseUrl, undefined, 'an empty DATABASE_URL is the embedded database');
});

t.test('accepted values', async (t) => {
  const settings = readSettings({
    PORT: '0', HOST: '0.0.0.0', PUBLIC_URL: 'https://vigil.example.com', DATABASE_URL: `postgresql://vigil:${SECRET}@db.example.com/vigil`,
    VIGIL_SECRET_KEY: randomBytes(32).toString('base64'), VIGIL_BOOTSTRAP: 'off', LOG_LEVEL: 'debug', VIGIL_TRUST_PRINCIPAL_ID: 'arn:aws:iam::1:role/x',
  });
  t.match(settings, { port: 0, host: '0.0.0.0', publicUrl: 'https://vigil.example.com', bootstrap: false, logLevel: 'debug', trustPrincipalId: 'arn:aws:iam::1:role/x' });
  t.equal(settings.databaseUrl, `postgresql://vigil:${SECRET}@db.example.com/vigil`);
  t.equal(readSettings({ PORT: '65535' }).port, 65535);
  t.equal(readSettings({ VIGIL_TRUSTED_PROXIES: '2' }).trustedProxies, 2);
  t.same(readSettings({}).pushover, { apiUrl: 'https://api.pushover.net', appToken: null }, 'Pushover: its API, no operator token');
  t.same(readSettings({ VIGIL_PUSHOVER_API_URL: 'http://127.0.0.1:9000/', VIGIL_PUSHOVER_APP_TOKEN: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi' }).pushover, { apiUrl: 'http://127.0.0.1:9000', appToken: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi' });
  t.same(readSettings({}).twilio, { apiUrl: 'https://api.twilio.com', accountSid: null, authToken: null, from: null }, 'Twilio: its API, no operator account');
  t.same(readSettings({ VIGIL_TWILIO_API_URL: 'http://127.0.0.1:9001/', VIGIL_TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', VIGIL_TWILIO_AUTH_TOKEN: 'twilio-auth-token-0123', VIGIL_TWILIO_FROM: '+14155552671' }).twilio,
    { apiUrl: 'http://127.0.0.1:9001', accountSid: 'AC0123456789abcdef0123456789abcdef', authToken: 'twilio-auth-token-0123', from: '+14155552671' });
});

t.test('refusals name the variable and never repeat a secret', async (t) => {
  const cases: [string, NodeJS.ProcessEnv][] = [
    ['PORT', { PORT: '-1' }], ['PORT', { PORT: '80.5' }], ['PORT', { PORT: '1e3' }], ['PORT', { PORT: '0x50' }],
    ['HOST', { HOST: '   ' }], ['HOST', { HOST: 'my host' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'vigil.example.com' }], ['PUBLIC_URL', { PUBLIC_URL: `ftp://u:${SECRET}@vigil.example.com` }],
    ['DATABASE_URL', { DATABASE_URL: `${SECRET}` }], ['DATABASE_URL', { DATABASE_URL: `http://u:${SECRET}@db.example.com/x` }],
    ['VIGIL_SECRET_KEY', { VIGIL_SECRET_KEY: SECRET }],
    ['VIGIL_BOOTSTRAP', { VIGIL_BOOTSTRAP: 'no' }], ['VIGIL_WORKERS', { VIGIL_WORKERS: '1' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['VIGIL_TRUSTED_PROXIES', { VIGIL_TRUSTED_PROXIES: '1.5' }], ['VIGIL_TRUSTED_PROXIES', { VIGIL_TRUSTED_PROXIES: '-1' }], ['VIGIL_TRUSTED_PROXIES', { VIGIL_TRUSTED_PROXIES: '11' }],
    ['VIGIL_AI_BASE_URL', { VIGIL_AI_BASE_URL: `file:///${SECRET}` }],
    ['VIGIL_CODE_HOST_API_URL', { VIGIL_CODE_HOST_API_URL: 'ftp://x' }],
    ['VIGIL_CODE_HOST_APP_PRIVATE_KEY', { VIGIL_CODE_HOST_APP_ID: '12' }],
    ['VIGIL_CODE_HOST_APP_PRIVATE_KEY', { VIGIL_CODE_HOST_APP_ID: '12', VIGIL_CODE_HOST_APP_PRIVATE_KEY: SECRET }],
    ['VIGIL_OUTBOUND_ALLOWED_NETWORKS', { VIGIL_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/33' }],
    ['VIGIL_AI_PRICES', { VIGIL_AI_PRICES: '{' }],
    // issue 37: the operator's Pushover account
    ['VIGIL_PUSHOVER_API_URL', { VIGIL_PUSHOVER_API_URL: `ftp://u:${SECRET}@api.pushover.net` }],
    ['VIGIL_PUSHOVER_APP_TOKEN', { VIGIL_PUSHOVER_APP_TOKEN: SECRET }],
    // issue 37: the operator's Twilio account, all three settings or none
    ['VIGIL_TWILIO_API_URL', { VIGIL_TWILIO_API_URL: `ftp://u:${SECRET}@api.twilio.com` }],
    ['VIGIL_TWILIO_ACCOUNT_SID', { VIGIL_TWILIO_ACCOUNT_SID: SECRET }],
    ['VIGIL_TWILIO_FROM', { VIGIL_TWILIO_FROM: SECRET }],
    ['VIGIL_TWILIO_AUTH_TOKEN', { VIGIL_TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', VIGIL_TWILIO_FROM: '+14155552671' }],
  ];
  refusesEach(t, cases);
});

t.test('the code-host app: both id and key or neither, a key that is a key, a trailing / dropped', async (t) => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const settings = readSettings({ VIGIL_CODE_HOST_API_URL: 'https://ghe.example.com/api/v3/', VIGIL_CODE_HOST_APP_ID: '12', VIGIL_CODE_HOST_APP_PRIVATE_KEY: privateKey.replace(/\n/g, '\\n') });
  t.match(settings.codeHost, { apiUrl: 'https://ghe.example.com/api/v3', appId: '12' });
  t.match(refusal({ VIGIL_CODE_HOST_APP_ID: '12' })?.message, /Set both VIGIL_CODE_HOST_APP_ID and VIGIL_CODE_HOST_APP_PRIVATE_KEY, or neither/);
  t.match(refusal({ VIGIL_CODE_HOST_APP_ID: '12', VIGIL_CODE_HOST_APP_PRIVATE_KEY: 'not-a-key' })?.message, /VIGIL_CODE_HOST_APP_PRIVATE_KEY is not a PEM private key/);
});

t.test('OpenID Connect (issue 39): checked at start, named in one sentence, the client secret never repeated', async (t) => {
  const base = { VIGIL_OIDC_ISSUER: 'https://login.example.com/realms/acme', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: SECRET, VIGIL_OIDC_ORGANIZATION: 'Acme' };
  t.equal(readSettings({}).oidc, undefined, 'unset: no single sign-on');
  const read = readSettings({
    ...base, VIGIL_OIDC_ROLE_MAPPINGS: ' sre = member, vigil-admins=org_admin ,cn=ops=viewer', VIGIL_OIDC_DEFAULT_ROLE: 'viewer',
    VIGIL_OIDC_ALLOWED_DOMAINS: 'Example.com, @example.org', VIGIL_OIDC_SCOPES: 'email profile groups',
  }).oidc!;
  t.same([...read.roleMappings], [['sre', 'member'], ['vigil-admins', 'org_admin'], ['cn=ops', 'viewer']], 'mappings read; the last = splits group from role');
  t.equal(read.defaultRole, 'viewer');
  t.same(read.allowedDomains, ['example.com', 'example.org'], 'domains lower-cased, a leading @ dropped');
  t.same(read.scopes, ['openid', 'email', 'profile', 'groups'], 'openid always asked for');
  t.equal(read.groupsClaim, 'groups', 'the groups claim defaults to groups');
  t.equal(read.name, 'login.example.com', 'the link names the issuer\'s host unless VIGIL_OIDC_NAME says otherwise');
  const plain = readSettings(base).oidc!;
  t.equal(plain.defaultRole, null, 'no default role: a person no mapping names is refused');
  t.same(plain.allowedDomains, [], 'no domains: any the provider vouches for');
  t.equal(readSettings({ ...base, VIGIL_OIDC_ISSUER: 'http://127.0.0.1:9000/' }).oidc?.issuer, 'http://127.0.0.1:9000/', 'http on loopback, kept exactly as written');
  const cases: [string, NodeJS.ProcessEnv][] = [
    ['VIGIL_OIDC_CLIENT_ID', { VIGIL_OIDC_CLIENT_ID: 'vigil' }],
    ['VIGIL_OIDC_CLIENT_SECRET', { VIGIL_OIDC_CLIENT_SECRET: SECRET }],
    ['VIGIL_OIDC_ISSUER', { ...base, VIGIL_OIDC_ISSUER: 'http://login.example.com' }],
    ['VIGIL_OIDC_ISSUER', { ...base, VIGIL_OIDC_ISSUER: `https://u:${SECRET}@login.example.com` }],
    ['VIGIL_OIDC_ISSUER', { ...base, VIGIL_OIDC_ISSUER: 'login.example.com' }],
    ['VIGIL_OIDC_CLIENT_SECRET', { ...base, VIGIL_OIDC_CLIENT_SECRET: '' }],
    ['VIGIL_OIDC_ORGANIZATION', { ...base, VIGIL_OIDC_ORGANIZATION: ' ' }],
    ['VIGIL_OIDC_ROLE_MAPPINGS', { ...base, VIGIL_OIDC_ROLE_MAPPINGS: 'sre' }],
    ['VIGIL_OIDC_ROLE_MAPPINGS', { ...base, VIGIL_OIDC_ROLE_MAPPINGS: 'sre=admin' }],
    ['VIGIL_OIDC_ROLE_MAPPINGS', { ...base, VIGIL_OIDC_ROLE_MAPPINGS: 'sre=member,sre=viewer' }],
    ['VIGIL_OIDC_ROLE_MAPPINGS', { ...base, VIGIL_OIDC_ROLE_MAPPINGS: '=member' }],
    ['VIGIL_OIDC_DEFAULT_ROLE', { ...base, VIGIL_OIDC_DEFAULT_ROLE: 'owner' }],
    ['VIGIL_OIDC_ALLOWED_DOMAINS', { ...base, VIGIL_OIDC_ALLOWED_DOMAINS: 'example.com,not a domain' }],
    ['VIGIL_OIDC_SCOPES', { ...base, VIGIL_OIDC_SCOPES: 'openid "email"' }],
  ];
  refusesEach(t, cases);
});

/** Each environment is refused naming its variable, without repeating the secret it holds. */
function refusesEach(t: Test, cases: [string, NodeJS.ProcessEnv][]): void {
  for (const [variable, env] of cases) {
    const what = JSON.stringify(env).replaceAll(SECRET, '…');
    const error = refusal(env);
    t.equal(error?.variable, variable, `${what}: refused, naming ${variable}`);
    t.match(error?.message, variable, `${what}: the message names it`);
    t.notOk(error?.message.includes(SECRET), `${what}: the value is not repeated`);
  }
}
