/**
 * The ops board under concurrent deliveries (run on PostgreSQL too: `DATABASE_URL=… npm test -- <file>`):
 * 50 deliveries of one key make one card, one notification and one chat post; 20 distinct creations get 20
 * distinct, gapless numbers; 20 deliveries of one comment_id make one comment.
 */
import t from 'tap';
import { startVigil } from '../helpers/harness.ts';
import { board, closeBoards } from '../helpers/board.ts';

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
