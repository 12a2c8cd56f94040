/**
 * The ops board's idempotency, the spec's six rules: no key → a new card each time; header beats dedup_key; an
 * SNS notification's MessageId is used automatically (and a SubscriptionConfirmation to the tickets URL is
 * confirmed); first 201, repeats 200 with the same body and duplicate: true and no side effect; key charset and
 * 200 characters, blank refused; scoped to the organization, never expiring. Comments' comment_id likewise.
 */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';
import type { SnsHttp } from '../../../webhooks/sns-trust.ts';

const fetched: string[] = [];
let confirm: () => { status: number } | Error = () => ({ status: 200 });
const http: SnsHttp = async (url) => {
  fetched.push(url);
  const answer = confirm();
  if (answer instanceof Error) throw answer;
  return { ok: answer.status < 300, status: answer.status, text: async () => '<ConfirmSubscriptionResponse/>' };
};

const vigil = await startVigil({ webhooks: { snsHttp: http } });
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});
const DAY = 24 * 60 * 60 * 1000;
const effects = (card: any) => card.effects.map((e: any) => e.kind);

t.test('rule 1: without a key every POST opens a new card', async (t) => {
  const b = await board(vigil);
  const first = await b.open({ title: 'same' });
  const second = await b.open({ title: 'same' });
  t.equal(first.status, 201);
  t.equal(second.status, 201);
  t.not(first.body.id, second.body.id);
  t.equal(first.body.dedup_key, null);
  t.equal((await b.agent.call('list_cards')).body.data.length, 2);
});

t.test('rules 2 and 4: header or dedup_key; the header wins; repeats answer 200 with the same body, duplicate: true, and do nothing', async (t) => {
  const b = await board(vigil);
  const first = await b.open({ title: 'Disk full', dedup_key: 'body-key' }, { 'Idempotency-Key': 'header-key' });
  t.equal(first.status, 201);
  t.equal(first.body.dedup_key, 'header-key', 'the key in effect is the header\'s');
  t.equal(first.body.duplicate, false);

  const repeat = await b.open({ title: 'Disk full', dedup_key: 'body-key' }, { 'Idempotency-Key': 'header-key' });
  t.equal(repeat.status, 200);
  t.same(repeat.body, { ...first.body, duplicate: true }, 'the same body, duplicate: true');
  const changed = await b.open({ title: 'Something else entirely', priority: 'urgent' }, { 'Idempotency-Key': 'header-key' });
  t.same(changed, repeat, 'a repeat with another body is still the first card, unchanged');
  t.equal((await b.card(first.body.key)).title, 'Disk full');

  const bodyKeyed = await b.open({ title: 'by body', dedup_key: 'body-key' });
  t.equal(bodyKeyed.status, 201, 'the body key was never in effect: a new card');
  t.equal(bodyKeyed.body.dedup_key, 'body-key');
  t.same(await b.open({ title: 'by body', dedup_key: 'body-key' }), { status: 200, body: { ...bodyKeyed.body, duplicate: true } });
  t.equal((await b.open({ title: 'x' }, { 'Idempotency-Key': 'body-key' })).status, 200, 'one key space, header or body');

  const cards = (await b.agent.call('list_cards')).body.data;
  t.equal(cards.length, 2, 'two cards, not five');
  t.same(effects(await b.card(first.body.key)), ['notification', 'chat_post'], 'one notification and one chat post');
  const outcomes = (await b.deliveries()).map((d: any) => d.outcome);
  t.same(outcomes, ['duplicate', 'duplicate', 'created', 'duplicate', 'duplicate', 'created']);
});

t.test('rule 5: letters, digits and . _ - : / + = @, at most 200 characters; anything else, blank included, is 422', async (t) => {
  const b = await board(vigil);
  const ok = ['a', 'A-z_0.9:/+=@', 'ci/run:1234+retry=2@eu', 'k'.repeat(200), 'clé-ünïcode', 'arn:aws:sns:us-east-1:123:topic/1'];
  for (const key of ok) {
    t.equal((await b.open({ title: 'k', dedup_key: key })).status, 201, `${key.slice(0, 30)} is accepted`);
    if (/^[\x21-\x7e]+$/.test(key)) t.equal((await b.open({ title: 'k' }, { 'Idempotency-Key': `h-${key}`.slice(0, 200) })).status, 201, 'and as a header');
  }
  const bad: [string, unknown][] = [
    ['blank', ''], ['spaces', '   '], ['a space inside', 'a b'], ['201 characters', 'k'.repeat(201)], ['#', 'a#b'], ['?', 'a?b'],
    ['a quote', "a'b"], ['an emoji', 'key-😀'], ['a newline', 'a\nb'], ['a number', 42], ['an object', { k: 1 }], ['true', true],
  ];
  for (const [name, key] of bad) {
    const answer = await b.open({ title: 'k', dedup_key: key });
    t.equal(answer.status, 422, `dedup_key ${name}: 422`);
    t.equal(answer.body.field, 'dedup_key', name);
  }
  for (const [name, key] of [['blank', ''], ['spaces', '   '], ['201 characters', 'k'.repeat(201)], ['a comma', 'a,b'], ['a space', 'a b']] as const) {
    const answer = await b.open({ title: 'k' }, { 'Idempotency-Key': key });
    t.equal(answer.status, 422, `header ${name}: 422`);
    t.equal(answer.body.field, 'Idempotency-Key', name);
  }
  const badHeaderGoodBody = await b.open({ title: 'k', dedup_key: 'fine' }, { 'Idempotency-Key': ' ' });
  t.equal(badHeaderGoodBody.body.field, 'Idempotency-Key', 'a blank header is refused, not skipped for the body key');
  t.equal((await b.open({ title: 'k', dedup_key: null })).status, 201, 'a null dedup_key is no key');
  t.match((await b.deliveries())[1].outcome, /^refused: (dedup_key|Idempotency-Key)$/);
});

t.test('rule 6: keys are scoped to the organization and never expire', async (t) => {
  const a = await board(vigil);
  const b = await board(vigil);
  const inA = await a.open({ title: 'A', dedup_key: 'shared-key' });
  const inB = await b.open({ title: 'B', dedup_key: 'shared-key' });
  t.equal(inA.status, 201);
  t.equal(inB.status, 201, 'another organization\'s key is its own');
  t.not(inA.body.id, inB.body.id);
  vigil.clock.advance(400 * DAY);
  const later = await a.open({ title: 'A again', dedup_key: 'shared-key' });
  t.same(later, { status: 200, body: { ...inA.body, duplicate: true } }, 'still a repeat 400 days later');
  t.equal((await a.open({ title: 'A', dedup_key: 'SHARED-KEY' })).status, 201, 'keys are compared exactly (case matters)');
});

const envelope = (message: unknown, extra: Record<string, unknown> = {}) => ({
  Type: 'Notification', MessageId: 'c7b3a1f2-1d2e-4b8a-9f0e-0a1b2c3d4e5f', TopicArn: 'arn:aws:sns:us-east-1:123456789012:ops-cards',
  Subject: 'ALARM: checkout latency', Message: typeof message === 'string' ? message : JSON.stringify(message), Timestamp: '2026-03-01T12:00:00.000Z',
  SignatureVersion: '1', Signature: 'c2ln', SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem',
  UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe', ...extra,
});
const SNS = { 'user-agent': 'Amazon Simple Notification Service Agent', 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };

t.test('rule 3: an SNS notification\'s MessageId is the key; the card is read from its Message', async (t) => {
  const b = await board(vigil);
  const first = await b.open(envelope({ title: 'Checkout latency', priority: 'high', labels: ['sns'] }), SNS);
  t.equal(first.status, 201);
  t.equal(first.body.dedup_key, 'c7b3a1f2-1d2e-4b8a-9f0e-0a1b2c3d4e5f');
  t.match(await b.card(first.body.key), { title: 'Checkout latency', priority: 'high', labels: ['sns'], dedup_key: 'c7b3a1f2-1d2e-4b8a-9f0e-0a1b2c3d4e5f' });
  const redelivered = await b.open(envelope({ title: 'Checkout latency', priority: 'high' }), SNS);
  t.same(redelivered, { status: 200, body: { ...first.body, duplicate: true } }, 'an SNS redelivery is a repeat');

  const named = await b.open(envelope({ title: 'keyed', dedup_key: 'alarm-42' }, { MessageId: 'another-message-id' }), SNS);
  t.equal(named.body.dedup_key, 'alarm-42', 'a dedup_key in the message wins over the MessageId');
  const header = await b.open(envelope({ title: 'keyed', dedup_key: 'alarm-43' }, { MessageId: 'third-id' }), { ...SNS, 'Idempotency-Key': 'hdr-1' });
  t.equal(header.body.dedup_key, 'hdr-1', 'and the header over both');

  const text = await b.open(envelope('CPU over 90% on web-1\nsince 11:58', { MessageId: 'text-1' }), SNS);
  t.equal(text.status, 201, 'a plain-text message');
  t.match(await b.card(text.body.key), { title: 'ALARM: checkout latency', description: 'CPU over 90% on web-1\nsince 11:58' }, 'Subject is the title, the text the description');
  const noSubject = await b.open(envelope('first line\nsecond', { MessageId: 'text-2', Subject: undefined }), SNS);
  t.equal((await b.card(noSubject.body.key)).title, 'first line', 'without Subject, the first line');
  const refused = await b.open(envelope({ description: 'no title' }, { MessageId: 'text-3' }), SNS);
  t.equal(refused.status, 422);
  t.equal(refused.body.field, 'title', 'the message is checked like a direct body');
  t.equal((await b.open(envelope('', { MessageId: 'text-4' }), SNS)).body.field, 'Message');

  const key = first.body.key;
  const c1 = await b.comment(key, envelope({ body: 'from SNS' }, { MessageId: 'comment-msg-1' }), SNS);
  t.equal(c1.status, 201);
  t.same(await b.comment(key, envelope({ body: 'from SNS' }, { MessageId: 'comment-msg-1' }), SNS), { status: 200, body: { id: c1.body.id, duplicate: true } }, 'a comment through SNS is deduplicated by MessageId');
  t.equal((await b.update(key, envelope({ status: 'done' }, { MessageId: 'update-1' }), SNS)).body.status, 'done', 'an update through SNS');
});

t.test('an SNS SubscriptionConfirmation to the tickets URL is confirmed as on the cloud alert sources', async (t) => {
  const b = await board(vigil);
  const confirmation = {
    Type: 'SubscriptionConfirmation', MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b', Token: 'secret-subscription-token',
    TopicArn: 'arn:aws:sns:us-west-2:123456789012:ops-cards', Message: 'You have chosen to subscribe…',
    SubscribeURL: 'https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-west-2:123456789012:ops-cards&Token=secret-subscription-token',
    Timestamp: '2026-03-01T12:00:00.000Z', SignatureVersion: '1', Signature: 'c2ln', SigningCertURL: 'https://sns.us-west-2.amazonaws.com/x.pem',
  };
  fetched.length = 0;
  const confirmed = await b.open(confirmation, { ...SNS, 'x-amz-sns-message-type': 'SubscriptionConfirmation' });
  t.same(confirmed, { status: 200, body: { status: 'ok' } });
  t.same(fetched, [confirmation.SubscribeURL], 'the SubscribeURL was fetched once');
  t.same((await b.agent.call('list_cards')).body.data, [], 'no card');
  const log = (await b.deliveries())[0];
  t.equal(log.outcome, 'subscription confirmed');
  t.notOk(JSON.stringify(log).includes('secret-subscription-token'), 'the subscription token is not kept in the log');

  fetched.length = 0;
  const elsewhere = await b.open({ ...confirmation, SubscribeURL: 'https://attacker.example.com/confirm' }, SNS);
  t.equal(elsewhere.status, 400);
  t.equal(elsewhere.body.error, 'invalid_confirmation_address');
  t.same(fetched, [], 'never fetched');
  confirm = () => ({ status: 500 });
  const failed = await b.open(confirmation, SNS);
  t.equal(failed.status, 502);
  t.equal(failed.body.error, 'confirmation_failed');
  confirm = () => ({ status: 200 });
  t.same(await b.open({ ...confirmation, Type: 'UnsubscribeConfirmation' }, SNS), { status: 200, body: { status: 'ok' } });
});

t.test('comments: comment_id (or the header) makes a repeat a 200 duplicate with the same id; scoped to the card', async (t) => {
  const b = await board(vigil);
  const one = (await b.open({ title: 'one' })).body.key;
  const two = (await b.open({ title: 'two' })).body.key;
  const first = await b.comment(one, { body: 'hello', comment_id: 'c-1' });
  t.equal(first.status, 201);
  t.same(Object.keys(first.body), ['id']);
  const again = await b.comment(one, { body: 'hello, edited', comment_id: 'c-1' });
  t.same(again, { status: 200, body: { id: first.body.id, duplicate: true } });
  t.equal((await b.comment(two, { body: 'hello', comment_id: 'c-1' })).status, 201, 'another card: its own comment');
  const byHeader = await b.comment(one, { body: 'h', comment_id: 'ignored' }, { 'Idempotency-Key': 'c-2' });
  t.equal(byHeader.status, 201);
  t.same(await b.comment(one, { body: 'h' }, { 'Idempotency-Key': 'c-2' }), { status: 200, body: { id: byHeader.body.id, duplicate: true } }, 'the header wins');
  t.equal((await b.comment(one, { body: 'x', comment_id: '' })).body.field, 'comment_id', 'blank comment_id: 422');
  t.equal((await b.comment(one, { body: 'x', comment_id: 'a b' })).body.field, 'comment_id');
  const card = await b.card(one);
  t.same(card.comments.map((c: any) => [c.body, c.comment_id]), [['hello', 'c-1'], ['h', 'c-2']]);
  t.same(effects(card), ['notification', 'chat_post'], 'comments raise nothing');
  t.same((await b.deliveries()).slice(2, 4).map((d: any) => d.outcome), ['duplicate', 'commented']);
});
