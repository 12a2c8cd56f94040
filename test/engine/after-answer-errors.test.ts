/**
 * Errors Koa meets after an answer started become JSON log lines (Koa's default would print a stack on stderr):
 * a client that went away mid-answer at debug, anything else at error, with the route and never the raw path.
 */
import t from 'tap';
import type { Context } from 'koa';
import { afterAnswerErrors } from '../../engine/http/errors.ts';
import { createLogger } from '../../engine/logger.ts';

function capture() {
  const lines: Record<string, any>[] = [];
  const log = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { lines, listen: afterAnswerErrors(log) };
}

const ctx = { state: { route: '/api/v1/config/export' }, path: '/webhooks/metric-dashboard/vigil_wh_secret-token' } as unknown as Context;

t.test('a client that went away: one debug line with its code and route', async (t) => {
  const { lines, listen } = capture();
  for (const code of ['EPIPE', 'ECONNRESET']) listen(Object.assign(new Error(`write ${code}`), { code }), ctx);
  t.same(lines.map((l) => [l.level, l.code, l.route, l.msg]), [
    [20, 'EPIPE', '/api/v1/config/export', 'the client went away before its answer was written'],
    [20, 'ECONNRESET', '/api/v1/config/export', 'the client went away before its answer was written'],
  ]);
});

t.test('any other error: an error line with its class and message, no raw path', async (t) => {
  const { lines, listen } = capture();
  listen(new TypeError('cannot write the body'), ctx);
  t.equal(lines.length, 1);
  t.match(lines[0], { level: 50, msg: 'error after the answer started', route: '/api/v1/config/export', err: { name: 'TypeError', message: 'cannot write the body' } });
  t.notOk(JSON.stringify(lines).includes('vigil_wh_'), 'the raw path, which holds a webhook token, is not logged');
  listen(new Error('without a context'));
  t.equal(lines.length, 2, 'an error without a context is logged too');
});
