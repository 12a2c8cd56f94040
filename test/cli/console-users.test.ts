/**
 * `vigil user set-password` and `vigil user sign-in-link`, run as a person would: the password comes from standard
 * input (never an argument), a short one is refused naming the field, and the password set signs in to the console.
 */
import { execFile } from 'node:child_process';
import t from 'tap';
import { OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { browserless } from '../helpers/console.ts';
import { COMPILE_CACHE_ENV } from '../helpers/compile-cache.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

function run(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['bin/vigil.ts', ...args], { env: { ...process.env, ...COMPILE_CACHE_ENV, VIGIL_URL: vigil.url, VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin!.end(stdin);
  });
}

t.test('set-password reads standard input; the password signs in; sign-in-link prints a link', async (t) => {
  const org = await vigil.organization('business');
  const user = (await vigil.operator.post('/api/admin/v1/users', { email: 'cli-person@example.com' })).body;
  await vigil.operator.put(`/api/admin/v1/organizations/${org.id}/members/${user.id}`, { role: 'member' });

  const short = await run(['users', 'set-password', user.id], 'short\n');
  t.equal(short.code, 1);
  t.match(short.stderr, /password: must be at least 12 characters/);
  t.notMatch(short.stderr + short.stdout, 'short', 'the password is not printed');

  const empty = await run(['user', 'set-password', user.id], '');
  t.equal(empty.code, 1);
  t.match(empty.stderr, /no password on standard input/);

  const set = await run(['user', 'set-password', user.id], 'a password from stdin\n');
  t.equal(set.code, 0, set.stderr);
  t.match(set.stdout, /console sessions have ended/);
  t.notMatch(set.stdout, /a password from stdin/);
  t.equal((await browserless(vigil.url).signIn('cli-person@example.com', 'a password from stdin')).status, 303);

  const link = await run(['--json', 'user', 'sign-in-link', user.id], '');
  t.equal(link.code, 0, link.stderr);
  const answer = JSON.parse(link.stdout);
  t.match(answer, { url: new RegExp(`^${vigil.url}/sign-in/vigil_si_`), expires_at: String });
  t.equal((await fetch(answer.url, { redirect: 'manual' })).status, 200, 'the link opens the page to choose a password');
});
