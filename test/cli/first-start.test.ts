/**
 * A first start fit for production (issue 22), through the real `vigil serve` process: the credentials never reach
 * the JSON log stream (stdout) but the 0600 file in DATA_DIR, stderr only points at it; one structured line at
 * start and one at stop; /healthz and /readyz carry the version; `vigil --version` prints it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { client, CONFIG } from '../helpers/harness.ts';
import { serveProcess } from '../helpers/serve-process.ts';

const VERSION = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')).version as string;
const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));
const SECRET_PREFIXES = /vigil_(op|ak|wh)_/;

/** The JSON log lines on stdout; a line that is not JSON fails the test (stdout is the log stream only). */
function logLines(t: { fail(message: string): void }, stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').filter(Boolean).map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      t.fail(`stdout carries a line that is not JSON: ${line.slice(0, 120)}`);
      return {};
    }
  });
}

t.test('vigil --version prints package.json\'s version', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [VIGIL, '--version']);
  t.equal(stdout.trim(), VERSION);
});

t.test('the first start on the embedded database: credentials in DATA_DIR/first-start.txt (0600), never in the logs', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-first-start-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // PostgreSQL or not, this test is about the embedded database's directory
  const env = { DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'info', VIGIL_BOOTSTRAP: 'on', VIGIL_ADMIN_TOKEN: '' };
  const first = await serveProcess(env);
  t.teardown(() => first.stop());

  const file = join(dataDir, 'first-start.txt');
  t.equal(statSync(file).mode & 0o777, 0o600, 'the file is readable by the service\'s user only');
  const text = readFileSync(file, 'utf8');
  const operatorToken = /Operator token[^:]*: (vigil_op_\S+)/.exec(text)?.[1];
  const apiKey = /api:admin key[^:]*: (vigil_ak_\S+)/.exec(text)?.[1];
  const webhookUrl = /metric-dashboard: (\S+)/.exec(text)?.[1];
  const orgId = /First organization (\S+)/.exec(text)?.[1];
  t.ok(operatorToken && apiKey && webhookUrl && orgId, 'it holds the operator token, the key and the webhook URLs');

  // what the file holds works
  t.equal((await client(first.url, operatorToken).get(`/api/admin/v1/organizations/${orgId}`)).status, 200, 'the operator token opens the operator API');
  t.equal((await client(first.url, apiKey).get(`${CONFIG}/alert_mutes`)).status, 200, 'the key opens the configuration API');

  // stderr (not a terminal here) only points at the file
  t.match(first.output.stderr, `Vigil is serving at ${first.url}`);
  t.match(first.output.stderr, file, 'stderr names the file');
  t.notMatch(first.output.stderr, SECRET_PREFIXES, 'stderr shows no credential');

  // probes
  const health = await client(first.url).get('/healthz');
  t.same([health.status, health.body], [200, { status: 'ok', version: VERSION }], '/healthz answers the version');
  const ready = await client(first.url).get('/readyz');
  t.same([ready.status, ready.body], [200, { status: 'ready', version: VERSION }], '/readyz answers ready');

  t.equal(await first.stop(), 0, 'SIGTERM: exit 0');
  const logs = logLines(t, first.output.stdout);
  t.notMatch(first.output.stdout, SECRET_PREFIXES, 'no credential in the JSON log stream');
  for (const secret of [operatorToken!, apiKey!]) t.notOk(first.output.stdout.includes(secret));
  const started = logs.filter((l) => l.msg === 'vigil started');
  t.equal(started.length, 1, 'one line at start');
  t.match(started[0], { event: 'started', version: VERSION, storage: 'pglite', data_dir: dataDir, listen: new URL(first.url).host, public_url: first.url });
  t.match(logs.filter((l) => l.msg === 'vigil stopped'), [{ event: 'stopped', version: VERSION, signal: 'SIGTERM' }], 'one line at stop');

  // a later start mints nothing: the file is left as it was, stderr and stdout name no credential
  const before = readFileSync(file, 'utf8');
  const again = await serveProcess(env);
  t.teardown(() => again.stop());
  t.equal(await again.stop(), 0);
  t.equal(readFileSync(file, 'utf8'), before, 'the file is not rewritten');
  t.notMatch(again.output.stderr, /first-start\.txt|vigil_(op|ak|wh)_/, 'a later start tells nothing more');
  t.notMatch(again.output.stdout, SECRET_PREFIXES);
});

t.test('with nothing kept (DATA_DIR=memory://) the credentials go to stderr in full, and still not to stdout', async (t) => {
  const started = await serveProcess({ DATABASE_URL: '', DATA_DIR: 'memory://', LOG_LEVEL: 'info', VIGIL_BOOTSTRAP: 'on', VIGIL_ADMIN_TOKEN: '' });
  t.teardown(() => started.stop());
  t.match(started.output.stderr, /Operator token[^:]*: vigil_op_/);
  t.match(started.output.stderr, /api:admin key[^:]*: vigil_ak_/);
  t.notOk(existsSync(join('memory:', 'first-start.txt')));
  t.equal(await started.stop(), 0);
  t.notMatch(started.output.stdout, SECRET_PREFIXES, 'the log stream holds none of them');
});
