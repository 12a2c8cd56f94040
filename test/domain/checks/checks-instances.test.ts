/**
 * Two instances on one PostgreSQL database run their scheduling passes at the same time: each due check runs
 * exactly once per interval (the claim takes due rows with FOR UPDATE SKIP LOCKED and moves them on). The
 * embedded database serves one instance, so this runs on PostgreSQL only.
 */
import t from 'tap';
import { runSchedulingPass } from '../../../domain/checks/scheduler.ts';
import { CONFIG, scratchStorage, startVigil } from '../../helpers/harness.ts';
import { httpTarget } from '../../helpers/checks.ts';

const skip = process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL): the embedded database serves one instance';

t.test('each check runs once per interval with two scheduler instances', { skip }, async (t) => {
  const storage = await scratchStorage();
  const checks = { tickSeconds: 0, allowLoopback: true };
  const a = await startVigil({ storage, webhooks: { checks } });
  const b = await startVigil({ storage, webhooks: { checks } });
  const target = await httpTarget();
  t.teardown(async () => {
    await target.close();
    await a.close();
    await b.close();
    await storage.drop();
  });
  const api = await (await a.organization()).key();
  const N = 24;
  for (let i = 0; i < N; i++) {
    const made = await api.post(`${CONFIG}/synthetic_checks`, { name: `check ${i}`, url: `${target.url}/c${i}` });
    t.equal(made.status, 201);
  }
  const round = async () => {
    // both instances see the same time (one clock each, kept in step), and pass three times each at once
    const passes = [a, b, a, b, a, b].map((v) => runSchedulingPass(v.running.services));
    return (await Promise.all(passes)).map((r) => r.ran.length);
  };
  const first = await round();
  t.equal(first.reduce((x, y) => x + y, 0), N, 'N runs in all');
  t.same([...target.hits.values()].filter((n) => n !== 1), [], 'none ran twice');
  t.equal(target.hits.size, N, 'every check ran');
  t.comment(`runs per pass: ${first.join(', ')}`);

  a.clock.advance(60_000);
  b.clock.advance(60_000);
  const second = await round();
  t.equal(second.reduce((x, y) => x + y, 0), N, 'the next interval: N runs again');
  t.same([...target.hits.values()].filter((n) => n !== 2), [], 'each exactly twice');
});
