/**
 * The ops board under concurrent deliveries (run on PostgreSQL too: `DATABASE_URL=… npm test -- <file>`):
 * 50 deliveries of one key make one card, one notification and one chat post; 20 distinct creations get 20
 * distinct, gapless numbers; 20 deliveries of one comment_id make one comment; two card writers (two instances)
 * racing on one organization make one card per key.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';
import { CardWriter, type NewCard } from '../../../domain/board/card-writer.ts';

const vigil = await startVigil();
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});

t.test('50 concurrent deliveries with one key: one card, one notification, one chat post; one 201 and 49 identical 200s', async (t) => {
  const b = await board(vigil);
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => b.open({ title: `storm ${i}` }, { 'Idempotency-Key': 'incident-2026-03-01' })));
  const created = answers.filter((a) => a.status === 201);
  const repeats = answers.filter((a) => a.status === 200);
  t.equal(created.length, 1, 'one 201');
  t.equal(repeats.length, 49, '49 repeats');
  t.ok(repeats.every((r) => JSON.stringify(r.body) === JSON.stringify({ ...created[0]!.body, duplicate: true })), 'every repeat carries the first body');
  const cards = (await b.agent.call('list_cards', { limit: 200 })).body.data;
  t.equal(cards.length, 1, 'one card');
  const card = await b.card(cards[0].key);
  t.same(card.effects.map((e: any) => e.kind), ['notification', 'chat_post'], 'one notification and one chat post');
  t.equal(card.key.endsWith('-1'), true, 'the repeats used up no number');
  t.equal((await b.open({ title: 'next' })).body.key.split('-')[1], '2', 'the next card is number 2: no gaps');
});

t.test('20 concurrent creations with distinct keys (and none) get distinct, gapless numbers', async (t) => {
  const b = await board(vigil);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => b.open({ title: `card ${i}`, ...(i % 2 ? { dedup_key: `k-${i}` } : {}) })));
  t.ok(answers.every((a) => a.status === 201), 'all created');
  const numbers = answers.map((a) => Number(a.body.key.split('-')[1])).sort((x, y) => x - y);
  t.same(numbers, Array.from({ length: 20 }, (_, i) => i + 1), 'numbers 1..20, each once');
  t.equal(new Set(answers.map((a) => a.body.key.split('-')[0])).size, 1, 'one prefix');
});

t.test('20 concurrent comments with one comment_id make one comment', async (t) => {
  const b = await board(vigil);
  const key = (await b.open({ title: 'busy' })).body.key;
  const answers = await Promise.all(Array.from({ length: 20 }, () => b.comment(key, { body: 'same', comment_id: 'retry-me' })));
  t.equal(answers.filter((a) => a.status === 201).length, 1);
  t.equal(answers.filter((a) => a.status === 200 && a.body.duplicate === true).length, 19);
  t.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one id');
  t.equal((await b.card(key)).comments.length, 1);
});

t.test('concurrent updates of one card and creations in two organizations do not interfere', async (t) => {
  const a = await board(vigil, { name: 'Alpha Team' });
  const c = await board(vigil, { name: 'Alpha Team' });
  const both = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : c).open({ title: `t${i}` })));
  t.ok(both.every((x) => x.status === 201));
  const key = both[1]!.body.key;
  const statuses = ['todo', 'in_progress', 'blocked', 'done'];
  const updates = await Promise.all(Array.from({ length: 12 }, (_, i) => a.update(key, { status: statuses[i % 4], labels: [`l${i}`] })));
  t.ok(updates.every((u) => u.status === 200), 'every update answered');
  t.equal((await a.card(key)).effects.filter((e: any) => e.kind === 'updated').length, 12, 'each update recorded once');
});

t.test('two card writers (as two instances have) racing on one organization: one card per key, gapless numbers', async (t) => {
  const b = await board(vigil);
  const services = vigil.running.services;
  const writers = [new CardWriter(services), new CardWriter(services)];
  const card = (i: number, key: string | null): NewCard => ({
    id: randomUUID(), organizationId: b.id, prefix: 'RACE', key, title: `race ${i}`, description: null, priority: 'normal', labels: [],
    service: null, assigneeUserId: null, now: vigil.clock.now(), extraEffects: [], answer: (cardKey) => ({ key: cardKey }),
  });
  // 30 deliveries of one key and 30 distinct ones, spread over both writers
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) => writers[i % 2]!.create(card(i, i < 30 ? 'shared-key' : i % 3 === 0 ? null : `own-${i}`))),
  );
  const shared = results.slice(0, 30);
  t.equal(shared.filter((r) => r.created).length, 1, 'the shared key made one card');
  t.equal(new Set(shared.map((r) => r.answer.key)).size, 1, 'every delivery of the shared key answers that card');
  t.ok(results.slice(30).every((r) => r.created), 'every other delivery made a card');
  const numbers = results.filter((r) => r.created).map((r) => Number(String(r.answer.key).split('-')[1])).sort((x, y) => x - y);
  t.same(numbers, Array.from({ length: 31 }, (_, i) => i + 1), 'numbers 1..31, each once');
  const cards = (await b.agent.call('list_cards', { limit: 200 })).body.data;
  t.equal(cards.length, 31, '31 cards on the board');
  const effects = await Promise.all(cards.map(async (c: any) => (await b.card(c.key)).effects.length));
  t.ok(effects.every((n: number) => n === 2), 'each card has its notification and chat post, once');
});

t.test('a key twice in one batch: one card, and the later delivery gets the first answer marked duplicate', async (t) => {
  const b = await board(vigil);
  // 40 creations in flight at once make batches; the repeated keys land in the same batch or the next
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => b.open({ title: `t${i}` }, { 'Idempotency-Key': `pair-${Math.floor(i / 2)}` })));
  t.equal(answers.filter((a) => a.status === 201).length, 20, 'one 201 per key');
  t.equal(answers.filter((a) => a.status === 200 && a.body.duplicate === true).length, 20, 'one duplicate per key');
  for (let i = 0; i < 40; i += 2) t.equal(answers[i]!.body.id, answers[i + 1]!.body.id, `pair-${i / 2}: one card`);
  const numbers = answers.filter((a) => a.status === 201).map((a) => Number(a.body.key.split('-')[1])).sort((x, y) => x - y);
  t.same(numbers, Array.from({ length: 20 }, (_, i) => i + 1), 'gapless');
});
