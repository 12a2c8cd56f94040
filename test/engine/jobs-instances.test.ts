/**
 * Two instances on one PostgreSQL database, each with workers: every job runs exactly once (pg-boss fetches
 * with SKIP LOCKED). The embedded database serves one instance, so this runs on PostgreSQL only.
 */
import t from 'tap';
import type { JobHandler } from '../../engine/jobs/types.ts';
import { scratchStorage, startVigil } from '../helpers/harness.ts';
import { recordingHandlers, storedJob, waitFor, type Run } from '../helpers/jobs.ts';

const skip = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';

t.test('N jobs across two working instances: each handled exactly once', { skip }, async (t) => {
  const runs: Run[] = [];
  const [recording] = recordingHandlers(['test.shared'], { runs }).handlers as [JobHandler];
  // a little work per job and three at a time, so both instances' workers are busy while jobs are queued
  const handler: JobHandler = { ...recording, concurrency: 3, handle: async (job, services) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await recording.handle(job, services);
  } };
  const storage = await scratchStorage();
  const a = await startVigil({ families: [], modules: [], storage, jobs: [handler] });
  const b = await startVigil({ families: [], modules: [], storage, jobs: [handler] });
  try {
    const N = 60;
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push((await (i % 2 ? a : b).running.services.jobs.send('test.shared', { i }))!);
    await waitFor(() => runs.length >= N, `${N} jobs`, 60_000);
    const states = await Promise.all(ids.map(async (id) => (await storedJob(a.running.services, id))?.state));
    t.same(states.filter((s) => s !== 'completed'), [], 'every job is completed: none can run again');

    const counts = new Map<string, number>();
    for (const run of runs) counts.set(run.id, (counts.get(run.id) ?? 0) + 1);
    t.same([...counts.keys()].sort(), [...ids].sort(), 'every job ran');
    t.same([...counts.values()].filter((n) => n !== 1), [], 'none ran twice');
    const byA = runs.filter((r) => r.services === a.running.services).length;
    t.comment(`instance A ran ${byA}, instance B ${N - byA}`);
  } finally {
    await a.close();
    await b.close();
    await storage.drop();
  }
});
