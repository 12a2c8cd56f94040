/**
 * The cloud sources through HTTP: SNS subscription confirmation (only https SNS addresses are fetched; 400 and
 * 502 otherwise) and, when the operator switched checking on, SNS message signatures (v1 and v2) with the
 * certificate fetched through the injected client and cached. Certificates and keys are made by the test.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { CERT_URL, fakeAws, impostor, sign, type Envelope } from '../../helpers/sns.ts';

const fixture = (path: string): Envelope => JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${path}`, import.meta.url), 'utf8'));

const aws = fakeAws();
const fetched = aws.fetched;
const http = aws.http;

const vigil = await startVigil({ webhooks: { snsHttp: http } });
t.teardown(() => vigil.close());

async function organization(flags?: Record<string, unknown>) {
  const org = await vigil.organization();
  if (flags) await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags });
  return { token: org.webhookToken, api: await org.key(['api:admin']) };
}

async function deliver(token: string, body: unknown, source = 'cloud-alarms') {
  // SNS posts JSON as text/plain
  const res = await fetch(`${vigil.url}/webhooks/${source}/${token}`, {
    method: 'POST',
    headers: { 'user-agent': 'Amazon Simple Notification Service Agent', 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': String((body as Envelope).Type ?? '') },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const confirmation = fixture('cloud-alarms/subscription-confirmation.json');
const alarm = fixture('cloud-alarms/alarm.json');

t.test('a SubscriptionConfirmation is confirmed by fetching its SNS SubscribeURL', async (t) => {
  const { token, api } = await organization();
  fetched.length = 0;
  const answer = await deliver(token, confirmation);
  t.same(answer, { status: 200, body: { status: 'ok', processed: 0, total: 0 } });
  t.same(fetched, [confirmation.SubscribeURL], 'the SubscribeURL was fetched, once');
  const log = await api.get(`${CONFIG}/webhook_deliveries?limit=1`);
  t.equal(log.body.data[0].outcome, 'subscription confirmed');
  t.notOk(JSON.stringify(log.body).includes(String(confirmation.Token)), 'the subscription token is not kept in the log');

  fetched.length = 0;
  const audit = await deliver(token, { ...confirmation, TopicArn: 'arn:aws:sns:us-east-1:123456789012:vigil-audit' }, 'cloud-audit');
  t.equal(audit.status, 200, 'the audit source confirms too');
  t.equal(fetched.length, 1);

  fetched.length = 0;
  const unsubscribe = await deliver(token, { ...confirmation, Type: 'UnsubscribeConfirmation' });
  t.equal(unsubscribe.status, 200);
  t.same(fetched, [], 'an unsubscribe confirmation is acknowledged, not fetched');
});

t.test('any other confirmation address is 400 and never fetched', async (t) => {
  const { token } = await organization();
  for (const address of [
    'http://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x',
    'https://sns.us-east-1.amazonaws.com.attacker.example/?Token=x',
    'https://169.254.169.254/latest/meta-data/',
    'https://localhost:8080/admin',
    'file:///etc/passwd',
    'not a url',
  ]) {
    fetched.length = 0;
    const answer = await deliver(token, { ...confirmation, SubscribeURL: address });
    t.equal(answer.status, 400, address);
    t.equal(answer.body.error, 'invalid_confirmation_address');
    t.same(fetched, [], `${address} was not fetched`);
  }
  const { SubscribeURL: _, ...without } = confirmation;
  t.equal((await deliver(token, without)).status, 400, 'a confirmation without an address');
});

t.test('a failed confirmation answers 502', async (t) => {
  const { token, api } = await organization();
  t.teardown(() => (aws.confirm = () => ({ status: 200 })));
  aws.confirm = () => ({ status: 403 });
  const refused = await deliver(token, confirmation);
  t.equal(refused.status, 502);
  t.equal(refused.body.error, 'confirmation_failed');
  t.notOk(refused.body.message.includes(String(confirmation.Token)), 'the token is not echoed');
  aws.confirm = () => new Error('connect ECONNREFUSED');
  t.equal((await deliver(token, confirmation)).status, 502, 'a network error too');
  const log = await api.get(`${CONFIG}/webhook_deliveries?limit=2`);
  t.same(log.body.data.map((d: any) => [d.status, d.outcome]), [[502, 'refused: confirmation failed'], [502, 'refused: confirmation failed']]);
});

t.test('without signature checking, signed and unsigned alarms and direct posts are read', async (t) => {
  const { token } = await organization();
  t.same((await deliver(token, alarm)).body, { status: 'ok', processed: 1, total: 1 }, 'an unsigned envelope');
  const direct = JSON.parse(String(alarm.Message));
  t.same((await deliver(token, direct)).body, { status: 'ok', processed: 1, total: 1 }, 'the alarm itself, without an envelope (raw message delivery)');
});

t.test('with checking on: SNS signatures v1 and v2 are verified; unsigned, forged and direct payloads answer 401', async (t) => {
  const { token, api } = await organization({ signing_enabled_sources: ['cloud-alarms', 'cloud-audit'] });
  fetched.length = 0;
  t.same((await deliver(token, sign(alarm, '1'))).body, { status: 'ok', processed: 1, total: 1 }, 'v1 (SHA1withRSA)');
  t.same((await deliver(token, sign(alarm, '2'))).body, { status: 'ok', processed: 1, total: 1 }, 'v2 (SHA256withRSA)');
  t.same((await deliver(token, sign(fixture('cloud-audit/create-access-key.json'), '2'), 'cloud-audit')).body, { status: 'ok', processed: 1, total: 1 }, 'cloud-audit');
  t.same(fetched, [CERT_URL], 'the certificate was fetched once and cached');

  const refusals: [string, Envelope][] = [
    ['unsigned', (() => { const { Signature: _, ...rest } = alarm; return rest; })()],
    ['the example signature of the fixture', alarm],
    ['a changed message', { ...sign(alarm), Message: String(alarm.Message).replace('ALARM', 'OK') }],
    ['signed by another key', sign(alarm, '1', impostor.private)],
    ['an unknown signature version', { ...sign(alarm), SignatureVersion: '3' }],
    ['a certificate on another host', { ...sign(alarm), SigningCertURL: 'https://attacker.example/cert.pem' }],
    ['the alarm without its envelope', JSON.parse(String(alarm.Message))],
  ];
  fetched.length = 0;
  for (const [name, body] of refusals) {
    const answer = await deliver(token, body);
    t.equal(answer.status, 401, name);
    t.equal(answer.body.error, 'unauthorized');
  }
  t.ok(fetched.every((url) => url.startsWith('https://sns.us-east-1.amazonaws.com/')), 'nothing fetched from another host');
  t.match((await deliver(token, JSON.parse(String(alarm.Message)))).body.message, /SNS topic subscription/);

  // a confirmation must be signed too before its address is fetched
  fetched.length = 0;
  t.equal((await deliver(token, confirmation)).status, 401, 'a confirmation with a wrong signature is refused');
  t.notOk(fetched.includes(String(confirmation.SubscribeURL)), 'and its address is not fetched');
  fetched.length = 0;
  t.equal((await deliver(token, sign(confirmation))).status, 200, 'a signed one is confirmed');
  t.same(fetched, [confirmation.SubscribeURL]);

  const alerts = (await api.get(`${CONFIG}/alerts`)).body.data;
  t.equal(alerts.length, 2, 'only the signed deliveries made alerts (one alarm, one audit event)');
  const log = await api.get(`${CONFIG}/webhook_deliveries?outcome=refused: signature`);
  t.equal(log.body.data.length, refusals.length + 2);
});

t.test('checking is per source: the flag names the sources it covers, true covers all', async (t) => {
  const alarms = await organization({ signing_enabled_sources: ['cloud-alarms'] });
  t.equal((await deliver(alarms.token, alarm)).status, 401);
  t.equal((await deliver(alarms.token, fixture('cloud-audit/create-access-key.json'), 'cloud-audit')).status, 200, 'cloud-audit not named: not checked');
  const all = await organization({ signing_enabled_sources: true });
  t.equal((await deliver(all.token, fixture('cloud-audit/create-access-key.json'), 'cloud-audit')).status, 401);
});
