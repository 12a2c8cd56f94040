/**
 * Issue 41: a password given in `--url` (or `VIGIL_URL`) is never repeated in a CLI message — operator commands,
 * `plan` and `gate check`, whether the service cannot be reached, the URL is malformed or answers something else.
 */
import { createServer } from 'node:http';
import t from 'tap';
import { runCli, scratchFiles } from '../helpers/cli.ts';

const PASSWORD = 's3cret-pw-0f9e';

// a server that is not Vigil: it answers HTML
const other = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>bad gateway</h1>'));
await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => other.close(() => resolve())));
const port = (other.address() as { port: number }).port;

const file = await (await scratchFiles('vigil-redact-'))('main.vigil.hcl', '');
const commands: [string, string[]][] = [
  ['org list', ['org', 'list']],
  ['plan', ['plan', file]],
  ['gate check', ['gate', 'check', '--service', 'api']],
];
const urls: [string, string][] = [
  ['unreachable', `http://ops:${PASSWORD}@127.0.0.1:1`],
  ['not Vigil', `http://ops:${PASSWORD}@127.0.0.1:${port}`],
  ['not http', `ftp://ops:${PASSWORD}@127.0.0.1:${port}`],
  ['no scheme', `ops:${PASSWORD}@127.0.0.1:${port}`],
];
const env = { VIGIL_ADMIN_TOKEN: 'x'.repeat(40), VIGIL_API_KEY: 'vigil_ak_x' };

t.test('no message repeats the password of --url or VIGIL_URL', async (t) => {
  const runs = await Promise.all(commands.flatMap(([name, args]) => urls.flatMap(([how, url]) => [
    runCli(['--url', url, ...args], env).then((r) => ({ what: `${name} --url ${how}`, r })),
    runCli(args, { ...env, VIGIL_URL: url }).then((r) => ({ what: `${name} VIGIL_URL ${how}`, r })),
  ])));
  for (const { what, r } of runs) {
    t.equal(r.code, 1, `${what}: exit 1`);
    t.ok(r.stderr.length > 0, `${what}: says why`);
    t.notOk(`${r.stdout}${r.stderr}`.includes(PASSWORD), `${what}: the password is not repeated`);
  }
  const reached = runs.find((x) => x.what === 'org list --url unreachable')!;
  t.match(reached.r.stderr, 'http://***@127.0.0.1:1', 'the URL is still shown, its userinfo redacted');
});
