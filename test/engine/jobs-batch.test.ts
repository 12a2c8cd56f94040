/**
 * Batched queues (engine/jobs `batchSize`): the jobs of one fetch run together, a failing one is retried alone
 * while the others complete once, and a group's concurrency bounds how many of it run at once.
 */
import t from 'tap';
import type { JobHandler } from '../../engine/jobs/types.ts';
import { startVigil } from '../helpers/harness.ts';
import { storedJob, waitFor } from '../helpers/jobs.ts';

const runs: { id: string; retryCount: number; data: any }[] = [];
let running = 0;
let most = 0;
const batched: JobHandler = {
  queue: 'test.batched',
  concurrency: 2,
  batchSize: 4,
  groupConcurrency: 2,
  retryLimit: 2,
  async handle(job) {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 30));
    running--;
    runs.push({ id: job.id, retryCount: job.retryCount, data: job.data });
    if ((job.data as any).fail && job.retryCount === 0) throw new Error('first attempt fails');
  },
};
const vigil = await startVigil({ families: [], modules: [], jobs: [batched] });
t.teardown(() => vigil.close());
const services = vigil.running.services;

t.test('a batch: one failing job is retried alone; the others complete once; a group runs at most its limit at once', async (t) => {
  const ids: string[] = [];
  for (let n = 0; n < 8; n++) ids.push((await services.jobs.send('test.batched', { n, fail: n === 3 }, { group: 'one destination' }))!);
  await waitFor(async () => (await Promise.all(ids.map((id) => storedJob(services, id)))).every((j) => j?.state === 'completed'), 'every job completed');
  const attempts = (id: string) => runs.filter((r) => r.id === id).length;
  t.same(ids.map(attempts), [1, 1, 1, 2, 1, 1, 1, 1], 'the failing job twice, every other once');
  // the limit is checked by each fetch; two workers fetching at the same moment may each take 2
  t.ok(most <= 4, `at most 2 of the group per fetch, 2 workers (saw ${most})`);
});
