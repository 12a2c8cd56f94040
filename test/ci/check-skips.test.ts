/** CI's skip check (.ci/check-skips.ts): every kind of skip tap writes is found, and only a listed one passes. */
import t from 'tap';
import { judge, skipsInTap, type AllowedSkip } from '../../.ci/check-skips.ts';

const TAP = `TAP version 14
ok 1 - a # SKIP no Redis answers at redis://127.0.0.1:6379
# Subtest: b
    ok 1 - inner # SKIP PostgreSQL only (set DATABASE_URL): one instance
    ok 2 - ran
    1..2
ok 2 - b # time=2.47ms
# Subtest: c
    1..0 # planned nothing
ok 3 - c # SKIP planned nothing
ok 4 - d # TODO later
ok 5 - e # time=1ms
1..5
`;

t.test('every skip, nested or planned away, and every todo is found with its reason', async (t) => {
  t.same(skipsInTap('f.test.ts', TAP), [
    { file: 'f.test.ts', test: 'a', reason: 'no Redis answers at redis://127.0.0.1:6379' },
    { file: 'f.test.ts', test: 'inner', reason: 'PostgreSQL only (set DATABASE_URL): one instance' },
    { file: 'f.test.ts', test: 'c', reason: 'planned nothing' },
    { file: 'f.test.ts', test: 'd', reason: 'todo: later' },
  ]);
  t.same(skipsInTap('g.test.ts', 'TAP version 14\n1..0 # no browser\n'), [{ file: 'g.test.ts', test: '(whole file)', reason: 'no browser' }], 'a file that planned nothing');
});

t.test('a skip passes only when listed for its file, this run and its reason', async (t) => {
  const allowed: AllowedSkip[] = [{ file: 'f.test.ts', runs: ['PGlite'], reason: '^PostgreSQL only', why: 'one instance' }];
  const skips = skipsInTap('f.test.ts', TAP);
  const verdict = (run: string) => judge(skips, allowed, run).map((v) => [v.skip.test, Boolean(v.allowedBy)]);
  t.same(verdict('PGlite'), [['a', false], ['inner', true], ['c', false], ['d', false]]);
  t.same(verdict('PostgreSQL'), [['a', false], ['inner', false], ['c', false], ['d', false]], 'on the run it is not listed for, it fails');
  t.same(judge([{ file: 'other.test.ts', test: 'inner', reason: 'PostgreSQL only' }], allowed, 'PGlite').map((v) => Boolean(v.allowedBy)), [false], 'another file with the same reason fails');
});
