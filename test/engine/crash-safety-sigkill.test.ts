/**
 * Crash safety (see test/helpers/crash-load.ts): SIGKILL in the middle of a write load, then a restart on the same
 * storage: every request that got a 2xx is there exactly once, and a request that got no answer is there at most once.
 */
import t from 'tap';
import { check, interrupted } from '../helpers/crash-load.ts';

t.test('SIGKILL mid-load, restart: every 2xx exactly once, nothing unanswered twice', async (t) => {
  const { sent, found } = await interrupted(t, 'SIGKILL');
  check(t, sent, found);
});
