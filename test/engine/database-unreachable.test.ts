/**
 * The one classification of "the database cannot be reached" (engine/persistence/unreachable.ts) and the outage
 * state built on it (outage.ts): pure parts, so unit tests; the behaviour through every transport is
 * test/engine/database-outage.test.ts.
 */
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import t from 'tap';
import { ManualClock } from '../../engine/clock.ts';
import { createLogger } from '../../engine/logger.ts';
import { DatabaseOutage } from '../../engine/persistence/outage.ts';
import { isDatabaseUnreachable } from '../../engine/persistence/unreachable.ts';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import type { Services } from '../../engine/services.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

t.test('what says the database cannot be reached', async (t) => {
  const cases: [string, unknown, boolean][] = [
    ['connection refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), true],
    ['connection reset', coded('ECONNRESET'), true],
    ['a host that does not resolve', coded('ENOTFOUND'), true],
    ['both addresses of localhost refused (AggregateError)', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), true],
    ['admin_shutdown wrapped by MikroORM', new DriverException(coded('57P01', 'terminating connection due to administrator command')), true],
    ['cannot_connect_now (starting up)', coded('57P03'), true],
    ['a connection exception (class 08)', coded('08006'), true],
    ['too many connections', coded('53300'), true],
    ['pg: the connection ended under a query', new Error('Connection terminated unexpectedly'), true],
    ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect'), true],
    ['a client whose connection was lost', new Error('Client has encountered a connection error and is not queryable'), true],
    ['pg-boss re-emitted as a plain object', { message: 'connect ECONNREFUSED 127.0.0.1:5432 (Queue: q, Worker: w)', code: 'ECONNREFUSED' }, true],
    ['a cause two levels down', new Error('outer', { cause: new Error('middle', { cause: coded('ECONNRESET') }) }), true],
    ['a unique violation', new UniqueConstraintViolationException(coded('23505', 'duplicate key')), false],
    ['a syntax error', new DriverException(coded('42601')), false],
    ['a statement timeout (the database answered)', coded('57014'), false],
    ['a plain error', new Error('boom'), false],
    ['a string', 'ECONNREFUSED', false],
    ['nothing', undefined, false],
  ];
  for (const [name, error, expected] of cases) t.equal(isDatabaseUnreachable(error), expected, name);
});

t.test('an outage is logged once when it starts and once when it ends', async (t) => {
  const lines: { level: number; msg: string; err?: { code?: string }; down_ms?: number }[] = [];
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const outage = new DatabaseOutage(createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) }), clock);

  t.equal(outage.unavailable(new Error('boom')), null, 'another error is not an outage');
  outage.reachable();
  t.same(lines, [], 'nothing to say while reachable');

  const answer = outage.unavailable(coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:5432'));
  t.match(answer, { code: 'unavailable', status: 503, headers: { 'Retry-After': '5' } });
  t.same(answer!.toBody(), { error: 'unavailable', message: answer!.message, retry_after: 5 });
  for (let i = 0; i < 5; i++) t.ok(outage.noted(new Error('Connection terminated unexpectedly')));
  t.ok(outage.down);
  clock.advance(42_000);
  outage.reachable();
  outage.reachable();
  t.notOk(outage.down);
  t.same(lines.map((l) => [l.level, l.msg]), [[50, 'database unreachable'], [30, 'database reachable again']]);
  t.equal(lines[0]!.err!.code, 'ECONNREFUSED', 'the code is logged');
  t.notMatch(JSON.stringify(lines), '10.0.0.5', 'the driver message is not');
  t.equal(lines[1]!.down_ms, 42_000, 'the length of the outage, by the injected clock');
});

t.test('a periodic pass is seeded again when an outage ends (a tick cut mid-way cannot queue its successor)', async (t) => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const log = createLogger('silent');
  const outage = new DatabaseOutage(log, clock);
  const sent: { queue: string; singletonKey?: string; startAfter?: number }[] = [];
  let failSends = false;
  const services = {
    outage,
    log,
    jobs: {
      send: async (queue: string, _data: unknown, options: { singletonKey?: string; startAfter?: number }) => {
        if (failSends) throw coded('ECONNREFUSED');
        sent.push({ queue, ...options });
      },
    },
  } as unknown as Services;
  const pass = periodicPass('test.tick', 30, async () => {});
  await pass.seed(services, 30);
  t.same(sent, [{ queue: 'test.tick', singletonKey: 'tick', startAfter: 0 }], 'seeded at start');

  outage.noted(coded('ECONNRESET'));
  outage.reachable();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(sent.length, 2, 'seeded again when the database is back');
  t.match(sent[1], { queue: 'test.tick', singletonKey: 'tick' }, 'under the same key, so a living chain absorbs it');

  failSends = true;
  outage.noted(coded('ECONNRESET'));
  outage.reachable();
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(outage.down, 'a re-seed that fails is a new outage, noted');
  failSends = false;
  outage.reachable();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(sent.length, 3, 'and the next recovery seeds again');

  const off = periodicPass('test.off', 30, async () => {});
  await off.seed(services, 0);
  outage.noted(coded('ECONNRESET'));
  outage.reachable();
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(sent.some((s) => s.queue === 'test.off'), 'a pass that is off is never seeded');
});
