/** Console password hashes (engine/auth/passwords.ts): scrypt with its salt and parameters stored, checked in constant time. */
import t from 'tap';
import { hashPassword, passwordProblem, verifyPassword } from '../../engine/auth/passwords.ts';

t.test('a hash names its parameters and salt; each hash of one password differs; only that password verifies', async (t) => {
  const a = await hashPassword('correct horse battery staple');
  const b = await hashPassword('correct horse battery staple');
  t.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(a, b, 'a fresh salt each time');
  t.notOk(a.includes('correct horse'), 'the password is not in its hash');
  t.ok(await verifyPassword('correct horse battery staple', a));
  t.ok(await verifyPassword('correct horse battery staple', b));
  t.notOk(await verifyPassword('correct horse battery stapler', a));
  t.ok(await verifyPassword('caf\u00e9 au lait please', await hashPassword('cafe\u0301 au lait please')), 'compared in one Unicode normal form');
});

t.test('a malformed or hostile stored value never verifies and never throws', async (t) => {
  for (const stored of [null, undefined, '', 'plain', 'scrypt$1$1$1$x$y', 'scrypt$4294967296$8$1$AAAA$AAAA', 'bcrypt$10$abc', 'scrypt$a$b$c$d$e']) {
    t.equal(await verifyPassword('anything at all', stored), false, String(stored));
  }
});

t.test('what a password must be', async (t) => {
  t.match(passwordProblem('eleven char'), /at least 12/);
  t.equal(passwordProblem('twelve chars'), null);
  t.match(passwordProblem(12345678901234), /string/);
  t.match(passwordProblem('x'.repeat(1025)), /at most 1024/);
  t.match(passwordProblem('with a nul \u0000 inside'), /NUL/);
});
