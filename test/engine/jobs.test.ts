/**
 * The durable job queue (engine/jobs) through a running service: a job runs once with its data, a send
 * inside a transaction commits or rolls back with it (and does not deadlock the embedded database), a
 * singleton key keeps one queued job, and a failing handler is retried until it succeeds, once.
 */
import t from 'tap';
import { NotNullConstraintViolationException } from '@mikro-orm/core';
import { inTransaction } from '../../engine/operations/context.ts';
import { storedError } from '../../engine/jobs/stored-error.ts';
import { startVigil } from '../helpers/harness.ts';
import { recordingHandlers, storedJob, waitFor } from '../helpers/jobs.ts';

const recorder = recordingHandlers(['test.plain', 'test.flaky'], { fail: (run) => run.queue === 'test.flaky' && run.retryCount === 0 });
const vigil = await startVigil({ families: [], modules: [], jobs: recorder.handlers });
t.teardown(() => vigil.close());
const services = vigil.running.services;
const ranOf = (id: string | null) => recorder.runs.filter((r) => r.id === id);

/** Sends a marker and waits for it: every job of the plain queue sent before it has been fetched by then. */
async function drain(): Promise<void> {
  const marker = await services.jobs.send('test.plain', { marker: true });
  await waitFor(() => ranOf(marker).length === 1, 'the marker job');
}

t.test('a job sent is handled once, with its data', async (t) => {
  const id = await services.jobs.send('test.plain', { incident: 'inc-1', n: 3 });
  t.ok(id, 'send answers the job id');
  await waitFor(() => ranOf(id).length === 1, 'the job');
  await drain();
  t.same(ranOf(id).map((r) => r.data), [{ incident: 'inc-1', n: 3 }], 'handled once with the data sent');
  t.equal((await storedJob(services, id!))?.state, 'completed');
});

t.test('a send inside a transaction rolls back with it, and commits with it', async (t) => {
  let rolledBack: string | null = null;
  await t.rejects(
    inTransaction(services, async (store) => {
      rolledBack = await services.jobs.send('test.plain', { from: 'rolled back' }, { store });
      throw new Error('the operation failed after enqueueing');
    }),
    { message: 'the operation failed after enqueueing' },
  );
  t.ok(rolledBack, 'the send inside the transaction answered an id');
  t.equal(await storedJob(services, rolledBack!), undefined, 'no such job after the rollback');

  // on PGlite (one connection) this completes only because the send joins the open transaction
  const committed = await inTransaction(services, (store) => services.jobs.send('test.plain', { from: 'committed' }, { store }));
  await waitFor(() => ranOf(committed).length === 1, 'the committed job');
  await drain();
  t.same(ranOf(rolledBack), [], 'the rolled-back job never ran');
  t.same(ranOf(committed).map((r) => r.data), [{ from: 'committed' }], 'the committed job ran once');
});

t.test('two sends with one singleton key make one job', async (t) => {
  // both sends in one transaction, so no worker can start the first before the second arrives
  const [first, second] = await inTransaction(services, async (store) => [
    await services.jobs.send('test.plain', { key: 'first' }, { store, singletonKey: 'card-7' }),
    await services.jobs.send('test.plain', { key: 'second' }, { store, singletonKey: 'card-7' }),
  ]);
  t.ok(first, 'the first send queued a job');
  t.equal(second, null, 'the second answered null: the key already has a queued job');
  await waitFor(() => ranOf(first).length === 1, 'the keyed job');
  await drain();
  t.same(recorder.runs.filter((r) => (r.data as { key?: string }).key).map((r) => r.data), [{ key: 'first' }], 'one job ran, with the first data');
  const again = await services.jobs.send('test.plain', { key: 'again' }, { singletonKey: 'card-7' });
  t.ok(again, 'once that job has started, the key takes a new one');
  await waitFor(() => ranOf(again).length === 1, 'the second keyed job');
});

t.test('a handler that throws is retried, then succeeds exactly once', async (t) => {
  const id = await services.jobs.send('test.flaky', { attempt: 'please' });
  await waitFor(async () => (await storedJob(services, id!))?.state === 'completed', 'the flaky job to complete');
  t.same(recorder.attempts.filter((r) => r.id === id).map((r) => r.retryCount), [0, 1], 'the first attempt failed, the retry ran');
  t.equal(ranOf(id).length, 1, 'it succeeded once');
  t.equal((await storedJob(services, id!))?.retry_count, 1);
});

t.test('a job sent wakes its queue\'s workers when it commits, and a backlog drains: they do not wait out their poll', async (t) => {
  // a poll far longer than the deadline below: the job can only run in time if the commit's NOTIFY wakes a worker
  const slow = recordingHandlers(['test.woken']);
  const polling = await startVigil({ families: [], modules: [], jobs: slow.handlers, jobPollSeconds: 300 });
  t.teardown(() => polling.close());
  const { services: s } = polling.running;
  const direct = await s.jobs.send('test.woken', { n: 1 });
  await waitFor(() => slow.runs.some((r) => r.id === direct), 'the job sent outside a transaction', 60_000);
  const inside = await inTransaction(s, (store) => s.jobs.send('test.woken', { n: 2 }, { store }));
  await waitFor(() => slow.runs.some((r) => r.id === inside), 'the job sent inside a transaction, once it committed', 60_000);
  t.same(slow.runs.map((r) => r.data), [{ n: 1 }, { n: 2 }]);
  // a backlog: ten jobs committed together wake the worker once (PostgreSQL folds a transaction's equal
  // notifications into one); a worker that found a job asks again at once instead of waiting out its poll
  const backlog = await inTransaction(s, async (store) => {
    const ids: (string | null)[] = [];
    for (let n = 3; n <= 12; n++) ids.push(await s.jobs.send('test.woken', { n }, { store }));
    return ids;
  });
  await waitFor(() => backlog.every((id) => slow.runs.some((r) => r.id === id)), 'the backlog of ten', 60_000);
  t.equal(slow.runs.length, 12, 'every job of the backlog ran once');
});

t.test('a job that starts later and a retry after its delay run when due: the instance\'s one look wakes their workers, whose own poll is ten minutes', async (t) => {
  // nothing notifies when a delayed job's time comes: without the look for due jobs these would wait the 600-s poll
  const later = recordingHandlers(['test.later', 'test.retried'], { fail: (run) => run.queue === 'test.retried' && run.retryCount === 0 });
  const looking = await startVigil({ families: [], modules: [], jobs: later.handlers, jobBackstopSeconds: 600 });
  t.teardown(() => looking.close());
  const { services: s } = looking.running;
  const delayed = await s.jobs.send('test.later', { n: 1 }, { startAfter: 1 });
  const retried = await s.jobs.send('test.retried', { n: 2 }, { retryDelay: 1 });
  await waitFor(() => later.runs.some((r) => r.id === delayed), 'the delayed job', 120_000);
  await waitFor(() => later.runs.some((r) => r.id === retried), 'the retry', 120_000);
  t.same(later.attempts.filter((r) => r.id === retried).map((r) => r.retryCount), [0, 1], 'the first attempt failed and the retry ran after its delay');
  t.equal(later.runs.filter((r) => r.id === delayed).length, 1, 'the delayed job ran once');
});

t.test('a send to a queue without a handler is refused', async (t) => {
  await t.rejects(services.jobs.send('test.nobody', {}), /No handler works job queue test\.nobody/);
  t.ok(['test.flaky', 'test.plain'].every((q) => services.jobs.queues.includes(q)), 'the queues of the handlers given are known');
});

t.test('what a failed job keeps of its error: the message, but never a driver error\'s SQL and values', async (t) => {
  const own = storedError(new Error('tracker answered 503'));
  t.equal(own.message, 'tracker answered 503');
  t.match(own.stack, /^Error: tracker answered 503\n {4}at /);
  const driver = new NotNullConstraintViolationException(Object.assign(new Error("insert into cards (secret) values ('s3cret-value')"), { code: '23502' }));
  const stored = storedError(driver);
  t.equal(stored.message, 'database error (NotNullConstraintViolationException)');
  t.notMatch(stored.stack, /s3cret-value/);
  t.equal(storedError('a string').message, 'the handler threw a value that is not an Error');
});
