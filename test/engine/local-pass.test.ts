/**
 * An instance's own pass (engine/jobs/local-pass.ts): it runs again after each pass, a failing pass is logged and the
 * next one still runs, `stop` ends it (a pass running finishes first), and 0 seconds starts nothing. Counted by calls,
 * never by elapsed time.
 */
import t from 'tap';
import { localPass } from '../../engine/jobs/local-pass.ts';
import type { Services } from '../../engine/services.ts';
import { waitFor } from '../helpers/jobs.ts';

const fakeServices = () => {
  const logged: unknown[] = [];
  return { logged, services: { outage: { noted: () => false }, log: { error: (...args: unknown[]) => void logged.push(args) } } as unknown as Services };
};

t.test('runs pass after pass, survives a failing one, and stops', async (t) => {
  const { services, logged } = fakeServices();
  let calls = 0;
  const pass = localPass('test.pass', async () => {
    calls++;
    if (calls === 2) throw Object.assign(new Error('boom'), { code: 'E_TEST' });
  });
  await pass.start(services, 0.01);
  await waitFor(() => calls >= 4, 'four passes', 10_000);
  t.equal(logged.length, 1, 'the failing pass was logged once');
  t.match(JSON.stringify(logged[0]), /test\.pass/, 'naming the pass');
  await pass.stop(services);
  const stoppedAt = calls;
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(calls, stoppedAt, 'no pass after stop');
});

t.test('0 seconds starts nothing; a second start does not run two timers', async (t) => {
  const { services } = fakeServices();
  let calls = 0;
  const off = localPass('test.off', async () => void calls++);
  await off.start(services, 0);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(calls, 0, 'no pass ran');
  let running = 0;
  let most = 0;
  const watched = localPass('test.watched', async () => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
  });
  await watched.start(services, 0.001);
  await watched.start(services, 0.001);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await watched.stop(services);
  t.equal(most, 1, 'one pass at a time, however often started');
});
