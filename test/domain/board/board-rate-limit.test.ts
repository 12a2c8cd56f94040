/** The tickets endpoints' rate limit: 429, the retry seconds in the message and a Retry-After header; logged once a window. */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { board, closeBoards } from '../../helpers/board.ts';

const vigil = await startVigil({ webhooks: { rateLimit: { points: 3, durationSeconds: 60 } } });
t.teardown(async () => {
  await closeBoards();
  await vigil.close();
});

t.test('over the limit: 429 rate_limited, "retry in N seconds", Retry-After: N; the three endpoints share the budget', async (t) => {
  const b = await board(vigil);
  const key = (await b.open({ title: 'one' })).body.key;
  t.equal((await b.update(key, { status: 'todo' })).status, 200);
  t.equal((await b.comment(key, { body: 'x' })).status, 201);
  for (const path of ['', `/${key}`, `/${key}/comments`]) {
    const limited = await b.raw(path, { title: 'x', body: 'x', status: 'done' });
    t.equal(limited.status, 429, `${path || '/'}: 429`);
    t.equal(limited.body.error, 'rate_limited');
    const wait = Number(limited.headers.get('retry-after'));
    t.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After is whole seconds (${wait})`);
    t.match(limited.body.message, new RegExp(`retry in ${wait} seconds`));
  }
  t.equal((await b.card(key)).comments.length, 1, 'nothing was written past the limit');
  t.same((await b.deliveries()).map((d: any) => d.outcome), ['refused: rate limit', 'commented', 'updated', 'created'], 'the first refusal of the window is logged');
  const other = await board(vigil);
  t.equal((await other.open({ title: 'x' })).status, 201, 'another organization has its own budget');
});
