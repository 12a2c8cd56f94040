/**
 * A restart loses no job: jobs sent by an instance that works none (HTTP only) are still there after it
 * closes, and the next instance on the same database (a PGlite data directory on disk, or the same
 * PostgreSQL database) runs each exactly once. pg-boss finds its schema in place on the second start.
 */
import t from 'tap';
import { scratchStorage, startVigil } from '../helpers/harness.ts';
import { recordingHandlers, storedJob, waitFor } from '../helpers/jobs.ts';

const storage = await scratchStorage();
t.teardown(() => storage.drop());

t.test('jobs sent before a restart run once after it', async (t) => {
  const recorder = recordingHandlers(['test.restart']);
  const first = await startVigil({ families: [], modules: [], storage, jobs: recorder.handlers, runWorkers: false });
  const sent = [
    await first.running.services.jobs.send('test.restart', { n: 1 }),
    await first.running.services.jobs.send('test.restart', { n: 2 }, { singletonKey: 'k' }),
  ];
  t.equal(await first.running.services.jobs.send('test.restart', { n: 3 }, { singletonKey: 'k' }), null, 'the key already has a queued job');
  await first.close();
  t.same(recorder.attempts, [], 'an HTTP-only instance works no job');

  const second = await startVigil({ families: [], modules: [], storage, jobs: recorder.handlers });
  t.teardown(() => second.close());
  await waitFor(() => recorder.runs.length >= 2, 'the jobs sent before the restart');
  const marker = await second.running.services.jobs.send('test.restart', { marker: true });
  await waitFor(() => recorder.runs.some((r) => r.id === marker), 'the marker job');
  t.same(
    recorder.runs.filter((r) => r.id !== marker).map((r) => [r.id, r.data]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [[sent[0], { n: 1 }], [sent[1], { n: 2 }]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    'each job ran exactly once, with its data',
  );
  for (const id of sent) t.equal((await storedJob(second.running.services, id!))?.state, 'completed');
});
