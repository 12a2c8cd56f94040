/**
 * Crash safety (see test/helpers/crash-load.ts): SIGTERM in the middle of a write load: the process stops accepting,
 * answers what it accepted, exits 0, and after a restart on the same storage every 2xx is there exactly once.
 */
import t from 'tap';
import { check, interrupted } from '../helpers/crash-load.ts';

t.test('SIGTERM mid-load: stops accepting, answers what it accepted, exits 0', async (t) => {
  const { sent, code, found } = await interrupted(t, 'SIGTERM');
  t.equal(code, 0, 'exit code 0');
  check(t, sent, found);
  // a request without an answer was refused at the door (ECONNREFUSED) or sent on a keep-alive connection the
  // closing server had just ended (ECONNRESET): never processed, so never stored
  t.same(sent.filter((s) => s.status === null && found.has(s.key)).map((s) => `${s.key}: ${s.error}`), [], 'no request was processed and left without its answer');
});
