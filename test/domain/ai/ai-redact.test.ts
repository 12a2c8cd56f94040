/**
 * Anonymization (domain/ai/redact.ts): each kind replaced with a stable placeholder, what is left alone, the
 * restore of an answer (secrets stay masked), generated inputs (a seeded property check), and through the client:
 * with anonymization_enabled the provider receives the redacted prompt, without it the prompt as written.
 */
import t from 'tap';
import { complete } from '../../../domain/ai/client.ts';
import { Redactor } from '../../../domain/ai/redact.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { startFakeOpenAi } from '../../helpers/fake-openai.ts';

const redact = (text: string) => new Redactor().redact(text);

t.test('each kind, replaced', async (t) => {
  const cases: [string, string, string][] = [
    ['an e-mail address', 'page alice.smith+oncall@example.co.uk now', 'page [EMAIL_1] now'],
    ['an IPv4 address', 'upstream 10.20.30.40:5432 refused', 'upstream [IP_1]:5432 refused'],
    ['an IPv6 address', 'from 2001:db8:85a3::8a2e:370:7334 and fe80::1', 'from [IP_1] and [IP_2]'],
    ['an IPv4-mapped IPv6 address', 'peer ::ffff:192.168.1.1 closed', 'peer [IP_1] closed'],
    ['a bearer token', 'Authorization: Bearer eyAbc123.def456', 'Authorization: Bearer [SECRET_1]'],
    ['a Vigil API key', 'key vigil_ak_Zx81kLmN0pQrStUv12 leaked', 'key [SECRET_1] leaked'],
    ['a Vigil webhook token in a URL', 'POST /webhooks/tickets/vigil_wh_abcdef0123456789', 'POST /webhooks/tickets/[SECRET_1]'],
    ['an AWS access key id', 'AWS_ACCESS_KEY_ID AKIAIOSFODNN7EXAMPLE', 'AWS_ACCESS_KEY_ID [SECRET_1]'],
    ['an AWS secret key (base64-like)', 'secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'secret [SECRET_1]'],
    ['a long hex string', 'sig 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'sig [SECRET_1]'],
    ['a commit id under its JSON key is evidence', '{"commit_sha": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "x": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1c"}',
      '{"commit_sha": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "x": "[SECRET_1]"}'],
    ['password=', 'dsn host=db password=hunter2 user=app', 'dsn host=db password=[SECRET_1] user=app'],
    ['token= in a query string', 'GET /cb?token=abc&x=1', 'GET /cb?token=[SECRET_1]&x=1'],
    ['a JSON secret', '{"api_key": "k-123", "name": "x"}', '{"api_key": "[SECRET_1]", "name": "x"}'],
    ['a vendor token', 'using sk-proj-AAAAbbbbCCCCdddd1234 and ghp_abcdefghijklmnopqrstuvwxyz0123', 'using [SECRET_1] and [SECRET_2]'],
    ['a JWT', 'cookie eyJhbGciOi.eyJzdWIiOiIx.SflKxwRJSM', 'cookie [SECRET_1]'],
    ['a host name', 'db-primary.prod.internal is slow', '[HOST_1] is slow'],
    ['a host in a URL', 'see https://grafana.example.com:3000/d/abc', 'see https://[HOST_1]:3000/d/abc'],
    ['a cluster service name', 'checkout.payments.svc.cluster.local timed out', '[HOST_1] timed out'],
  ];
  for (const [name, input, expected] of cases) t.equal(redact(input), expected, name);
});

t.test('left alone: file names, versions, times, prose', async (t) => {
  for (const text of [
    'domain/ai/client.ts line 40',
    'version 1.2.3 of package.json',
    'at 12:30:45 UTC, std::vector grew',
    'basic checks passed; the token expired',
    'deploy abc1234 of checkout',
  ]) t.equal(redact(text), text, text);
});

t.test('placeholders are stable: the same value, the same placeholder; case does not make a new host or e-mail', async (t) => {
  const r = new Redactor();
  const first = r.redact('alice@example.com on 10.0.0.1 via api.example.com');
  const second = r.redact('ALICE@example.com again on 10.0.0.1; API.example.com; bob@example.com');
  t.equal(first, '[EMAIL_1] on [IP_1] via [HOST_1]');
  t.equal(second, '[EMAIL_1] again on [IP_1]; [HOST_1]; [EMAIL_2]');
  t.same(r.counts, { SECRET: 0, EMAIL: 2, IP: 1, HOST: 1 });
});

t.test('restore puts e-mail addresses, IPs and hosts back; secrets stay masked', async (t) => {
  const r = new Redactor();
  r.redact('alice@example.com 10.0.0.1 api.example.com password=hunter2');
  t.equal(r.restore('[EMAIL_1] on [IP_1] at [HOST_1] used [SECRET_1]; [EMAIL_9] unknown'), 'alice@example.com on 10.0.0.1 at api.example.com used [SECRET_1]; [EMAIL_9] unknown');
});

t.test('generated inputs: no sensitive value survives, and restore gives the text back (secrets aside)', async (t) => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const word = (n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz') => Array.from({ length: n }, () => pick([...alphabet])).join('');
  const makers = {
    email: () => `${word(5)}.${word(4)}@${word(6)}.${pick(['com', 'io', 'org', 'net'])}`,
    ipv4: () => Array.from({ length: 4 }, () => Math.floor(random() * 256)).join('.'),
    ipv6: () => `2001:db8:${Array.from({ length: 6 }, () => Math.floor(random() * 65536).toString(16)).join(':')}`,
    host: () => `${word(6)}.${word(4)}.${pick(['internal', 'com', 'local', 'dev'])}`,
    token: () => `vigil_ak_${word(24, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
    password: () => `password=${word(12, 'abcdefghijklmnopqrstuvwxyz0123456789!#%')}`,
  };
  const fillers = ['the', 'checkout', 'failed', 'after', 'deploy', 'of', 'version', '1.2.3', 'at', '12:00', '—', 'see'];
  for (let i = 0; i < 300; i++) {
    const values: [keyof typeof makers, string][] = [];
    const parts: string[] = [];
    for (let j = 0; j < 8; j++) {
      if (random() < 0.4) {
        const kind = pick(Object.keys(makers) as (keyof typeof makers)[]);
        const value = makers[kind]();
        values.push([kind, value]);
        parts.push(value);
      } else parts.push(pick(fillers));
    }
    const text = parts.join(' ');
    const r = new Redactor();
    const out = r.redact(text);
    for (const [kind, value] of values) {
      const secret = kind === 'password' ? value.slice('password='.length) : value;
      if (out.includes(secret)) t.fail(`a ${kind} survived: ${JSON.stringify(text)} → ${JSON.stringify(out)}`);
    }
    for (const filler of fillers) if (text.includes(` ${filler} `) && !out.includes(filler)) t.fail(`${filler} was redacted in ${JSON.stringify(text)}`);
    const restored = r.restore(out);
    if (!values.some(([k]) => k === 'token' || k === 'password') && restored !== text) t.fail(`restore changed ${JSON.stringify(text)} → ${JSON.stringify(restored)}`);
  }
  t.pass('300 generated texts');
});

t.test('through the client: redacted before it leaves when anonymization_enabled, the answer restored', async (t) => {
  const ai = await startFakeOpenAi();
  const vigil = await startVigil();
  t.teardown(async () => {
    await vigil.close();
    await ai.close();
  });
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  await api.post(`${CONFIG}/ai_providers`, { name: 'main', provider: 'gateway', base_url: ai.url, model: 'm' });
  const prompt = 'alice@example.com saw 10.1.2.3 fail at db.prod.internal with password=hunter2';
  const ask = () => complete(vigil.running.services, { organization: { id: org.id }, purpose: 'investigation', messages: [{ role: 'user', content: prompt }] }, vigil.clock.now());

  ai.script({ content: 'ask [EMAIL_1] about [HOST_1]' });
  t.equal((await ask()).content, 'ask [EMAIL_1] about [HOST_1]', 'off: placeholders mean nothing and stay');
  t.equal(ai.chats()[0]!.body.messages[0].content, prompt, 'anonymization off: sent as written');

  t.equal((await api.put(`${CONFIG}/ai_settings`, { anonymization_enabled: true })).status, 200);
  ai.script({ content: 'ask [EMAIL_1] about [HOST_1] ([IP_1]); rotate [SECRET_1]' });
  const answer = await ask();
  const sent = ai.chats()[1]!.raw;
  t.equal(ai.chats()[1]!.body.messages[0].content, '[EMAIL_1] saw [IP_1] fail at [HOST_1] with password=[SECRET_1]');
  for (const value of ['alice@example.com', '10.1.2.3', 'db.prod.internal', 'hunter2']) t.notOk(sent.includes(value), `${value} did not leave`);
  t.equal(answer.content, 'ask alice@example.com about db.prod.internal (10.1.2.3); rotate [SECRET_1]', 'the answer restored, the secret still masked');
});
