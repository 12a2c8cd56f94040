/**
 * SNS signatures on the tickets endpoint: when the operator names `tickets` in the organization flag
 * `signing_enabled_sources`, every tickets request (open, update, comment, confirmation) must be an SNS message
 * with a valid signature (v1 or v2), else 401 and nothing changes; `true` (which covers the cloud alert sources)
 * does not lock the tickets endpoint, which scripts and agents call directly.
 */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';
import { CERT_URL, fakeAws, impostor, sign, type Envelope } from '../../helpers/sns.ts';

const aws = fakeAws();
const vigil = await startVigil({ webhooks: { snsHttp: aws.http } });
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});

async function signedBoard(flag: unknown) {
  const b = await board(vigil);
  await vigil.operator.patch(`/api/admin/v1/organizations/${b.id}`, { flags: { signing_enabled_sources: flag } });
  return b;
}

let messages = 0;
const notification = (message: Record<string, unknown>): Envelope => ({
  Type: 'Notification', MessageId: `msg-${++messages}`, TopicArn: 'arn:aws:sns:us-east-1:123456789012:ops-cards',
  Message: JSON.stringify(message), Timestamp: '2026-03-01T12:00:00.000Z',
  UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
});
const SNS = { 'user-agent': 'Amazon Simple Notification Service Agent', 'content-type': 'text/plain; charset=UTF-8' };

t.test('with tickets named: signed v1 and v2 messages open, update and comment; the certificate is fetched once', async (t) => {
  const b = await signedBoard(['tickets']);
  aws.fetched.length = 0;
  const opened = await b.open(sign(notification({ title: 'Disk full on db-1', priority: 'urgent' }), '1'), SNS);
  t.equal(opened.status, 201, 'v1');
  const v2 = await b.open(sign(notification({ title: 'Disk full on db-2' }), '2'), SNS);
  t.equal(v2.status, 201, 'v2');
  t.equal((await b.update(opened.body.key, sign(notification({ status: 'in progress' })), SNS)).body.status, 'in_progress', 'a signed update');
  t.equal((await b.comment(opened.body.key, sign(notification({ body: 'cleaning up' })), SNS)).status, 201, 'a signed comment');
  t.same(aws.fetched, [CERT_URL], 'only the certificate was fetched, once');
});

t.test('with tickets named: unsigned, forged and direct requests answer 401 and change nothing', async (t) => {
  const b = await signedBoard(['tickets']);
  const card = sign(notification({ title: 'real' }));
  const key = (await b.open(card, SNS)).body.key;
  const refusals: [string, unknown, string?][] = [
    ['a direct JSON body', { title: 'direct' }],
    ['an unsigned envelope', notification({ title: 'unsigned' })],
    ['a changed message', { ...sign(notification({ title: 'before' })), Message: JSON.stringify({ title: 'after' }) }],
    ['signed by another key', sign(notification({ title: 'impostor' }), '1', impostor.private)],
    ['a certificate on another host', { ...sign(notification({ title: 'elsewhere' })), SigningCertURL: 'https://attacker.example/cert.pem' }],
    ['a direct update', { status: 'done' }, `/${key}`],
    ['a direct comment', { body: 'hi' }, `/${key}/comments`],
  ];
  for (const [name, body, path = ''] of refusals) {
    const answer = await b.raw(path, body, SNS);
    t.equal(answer.status, 401, name);
    t.equal(answer.body.error, 'unauthorized', name);
  }
  const cards = (await b.agent.call('list_cards', { status: 'triage' })).body.data;
  t.same(cards.map((c: any) => c.title), ['real'], 'only the signed card exists, still in triage');
  t.equal((await b.card(key)).comments.length, 0, 'no comment');
  const log = await b.deliveries();
  t.equal(log.filter((d: any) => d.outcome === 'refused: signature').length, refusals.length, 'each refusal logged');

  aws.fetched.length = 0;
  const confirmation = {
    Type: 'SubscriptionConfirmation', MessageId: 'confirm-1', Token: 'subscription-token', TopicArn: 'arn:aws:sns:us-east-1:123456789012:ops-cards',
    Message: 'You have chosen to subscribe…', SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=subscription-token',
    Timestamp: '2026-03-01T12:00:00.000Z',
  };
  t.equal((await b.raw('', { ...confirmation, SignatureVersion: '1', Signature: 'c2ln', SigningCertURL: CERT_URL }, SNS)).status, 401, 'a confirmation with a wrong signature');
  t.notOk(aws.fetched.includes(confirmation.SubscribeURL), 'is not fetched');
  t.same(await b.open(sign(confirmation), SNS), { status: 200, body: { status: 'ok' } }, 'a signed one is confirmed');
  t.ok(aws.fetched.includes(confirmation.SubscribeURL));
});

t.test('true and lists without tickets leave the tickets endpoint open to direct calls', async (t) => {
  for (const flag of [true, ['cloud-alarms', 'metric-dashboard']]) {
    const b = await signedBoard(flag);
    t.equal((await b.open({ title: 'direct' })).status, 201, `flag ${JSON.stringify(flag)}`);
    t.equal((await b.open(notification({ title: 'unsigned SNS' }), SNS)).status, 201, `an unsigned envelope with ${JSON.stringify(flag)}`);
  }
});
