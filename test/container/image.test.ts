/**
 * Issue 22: the real Containerfile, built and run with podman. These machines reach no image registry, so the base is
 * a local stand-in for node:24-bookworm-slim (test/container/base-image.sh: Debian's packages and the `node` package's
 * Node 24, cached under /var/tmp/vigil-base and in podman's store). Checks: /healthz and /readyz, the image's
 * HEALTHCHECK, the first-start credentials in /data/first-start.txt with only a pointer in the logs, a first
 * organization through the operator API, a restart keeping the data, SIGTERM exit 0, the process not root, and
 * PostgreSQL through DATABASE_URL (the PostgreSQL run: a scratch database on the host's server, --network host).
 * Where podman cannot run, the test skips, saying so (.ci/run installs podman, runc and debootstrap).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { client, scratchDatabase } from '../helpers/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONF = fileURLToPath(new URL('./containers.conf', import.meta.url));
const BASE_SCRIPT = fileURLToPath(new URL('./base-image.sh', import.meta.url));
const BASE_IMAGE = 'localhost/vigil-base:bookworm-node24';
const run = promisify(execFile);
// a cold first run makes the base (debootstrap, minutes) and builds without a layer cache: on a busy 2-core machine
t.setTimeout(1_200_000);
const env = { ...process.env, CONTAINERS_CONF: CONF };
const suffix = randomBytes(4).toString('hex');
const IMAGE = `localhost/vigil:test-${suffix}`;

async function podman(args: string[], timeout = 120_000): Promise<string> {
  const { stdout } = await run('podman', args, { env, timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Why podman cannot run here, or null when it can (it runs a container, not only answers `info`). */
async function podmanRefusal(): Promise<string | null> {
  try {
    await podman(['info'], 60_000);
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0]!;
  }
}

/** A port free now, below Linux's ephemeral range so no outgoing connection takes it meanwhile. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

/**
 * Polls /readyz until it answers 200 (no fixed sleep): the seconds it took. The limit is a deadline for a stuck start,
 * not a timing assumption: a first start (every migration) beside a CI run on 2 cores once took over 180 s.
 */
async function ready(url: string, container: string, limitMs = 360_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return (Date.now() - started) / 1000;
    } catch {
      /* not listening yet */
    }
    const state = await podman(['inspect', container, '--format', '{{.State.Status}}']);
    if (state === 'exited') throw new Error(`the container exited before it was ready:\n${await podman(['logs', container]).catch(() => '')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const logs = await podman(['logs', '--tail', '20', container]).catch(() => '');
  throw new Error(`not ready after ${limitMs / 1000} s; the container's last lines:\n${logs}`);
}

/** Stops the container with SIGTERM (45 s grace, as compose.yaml gives) and answers its exit code. */
async function stop(container: string): Promise<number> {
  await podman(['stop', '--time', '45', container], 90_000);
  return Number(await podman(['inspect', container, '--format', '{{.State.ExitCode}}']));
}

const refusal = await podmanRefusal();
const skip = refusal ? `podman cannot run here: ${refusal}` : false;
{
  const cleanup: string[][] = [];
  t.teardown(async () => {
    for (const args of cleanup.reverse()) await podman(args).catch(() => {});
  });

  // the base (debootstrap once, cached), then the real Containerfile on it
  t.before(async () => {
    if (skip) return;
    // Node 24 (this test's) and the npm that runs it go into the base
    const npmCli = realpathSync(process.env.npm_execpath || (await run('sh', ['-c', 'command -v npm'], { env })).stdout.trim());
    const npmDir = dirname(dirname(npmCli)); // <npm>/bin/npm-cli.js
    await run('bash', [BASE_SCRIPT, BASE_IMAGE, process.execPath, npmDir], { env, timeout: 900_000 });
    const started = Date.now();
    await podman(['build', '--format', 'docker', '--build-arg', `BASE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, '-f', 'Containerfile', ROOT], 600_000);
    cleanup.push(['rmi', '--force', IMAGE]);
    t.comment(`image built in ${((Date.now() - started) / 1000).toFixed(1)} s, ${await podman(['image', 'inspect', IMAGE, '--format', '{{.Size}}'])} bytes`);
  });

  t.test('the image on its embedded database: probes, first start, an organization, a restart keeping it, SIGTERM exit 0, not root', { skip }, async (t) => {
    const name = `vigil-test-${suffix}`;
    const volume = `vigil-test-data-${suffix}`;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    cleanup.push(['volume', 'rm', '--force', volume], ['rm', '--force', '--volumes', name]);
    await podman(['run', '-d', '--name', name, '--network', 'host', '-e', `PORT=${port}`, '-v', `${volume}:/data`, IMAGE]);
    t.comment(`ready ${(await ready(url, name)).toFixed(1)} s after podman run (first start: migrations)`);

    const health = await client(url).get('/healthz');
    t.match([health.status, health.body], [200, { status: 'ok', version: /^\d+\.\d+\.\d+/ }], '/healthz');
    t.equal((await client(url).get('/readyz')).status, 200, '/readyz');
    await t.resolves(podman(['healthcheck', 'run', name]), 'the image\'s HEALTHCHECK passes');

    const uid = /^Uid:\s+(\d+)/m.exec(await podman(['exec', name, 'cat', '/proc/1/status']))?.[1];
    t.equal(uid, '10001', 'the service runs as the unprivileged vigil user');

    // the credentials: in the 0600 file on the volume, and only a pointer in the logs
    const file = await podman(['exec', name, 'cat', '/data/first-start.txt']);
    t.equal(await podman(['exec', name, 'stat', '-c', '%a', '/data/first-start.txt']), '600');
    const operator = /Operator token[^:]*: (vigil_op_\S+)/.exec(file)?.[1];
    t.ok(operator, 'the file holds the operator token');
    const logs = await run('podman', ['logs', name], { env }).then((r) => r.stdout + r.stderr);
    t.match(logs, '/data/first-start.txt', 'the logs point at the file');
    t.notMatch(logs, /vigil_(op|ak|wh)_/, 'and show no credential');
    t.match(logs, /"msg":"vigil started"/, 'one structured line at start');

    const created = await client(url, operator).post('/api/admin/v1/organizations', { name: 'Container Co', plan: 'team' });
    t.equal(created.status, 201, 'a first organization through the operator API');
    const id = created.body.id as string;

    t.equal(await stop(name), 0, 'SIGTERM: exit 0');
    t.match(await run('podman', ['logs', name], { env }).then((r) => r.stdout), /"msg":"vigil stopped"/, 'one structured line at stop');
    await podman(['start', name]);
    await ready(url, name);
    const kept = await client(url, operator).get(`/api/admin/v1/organizations/${id}`);
    t.match([kept.status, kept.body], [200, { id, name: 'Container Co' }], 'the restart kept the data on the volume');
    t.equal(await stop(name), 0);
  });

  t.test('the image on PostgreSQL through DATABASE_URL', { skip: skip || (process.env.DATABASE_URL ? false : 'PostgreSQL only (set DATABASE_URL)') }, async (t) => {
    const scratch = (await scratchDatabase())!;
    t.teardown(() => scratch.drop());
    const token = `vigil_op_${randomBytes(16).toString('hex')}`;
    // one key for both containers: it decrypts what the first one sealed
    const secretKey = randomBytes(32).toString('base64');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = async (name: string) => {
      cleanup.push(['rm', '--force', '--volumes', name]);
      await podman(['run', '-d', '--name', name, '--network', 'host', '-e', `PORT=${port}`, '-e', `DATABASE_URL=${scratch.url}`,
        '-e', `VIGIL_ADMIN_TOKEN=${token}`, '-e', `VIGIL_SECRET_KEY=${secretKey}`, '-e', 'VIGIL_BOOTSTRAP=off', IMAGE]);
      await ready(url, name);
    };
    const first = `vigil-test-pg-${suffix}`;
    await start(first);
    const created = await client(url, token).post('/api/admin/v1/organizations', { name: 'Postgres Co' });
    t.equal(created.status, 201, 'an organization, kept in PostgreSQL');
    const logs = await podman(['logs', first]);
    t.match(logs, /"storage":"postgresql"/, 'the start line names the storage');
    t.notOk(logs.includes(new URL(scratch.url).host) && logs.includes('postgres://'), 'and never the database URL');
    t.equal(await stop(first), 0, 'SIGTERM: exit 0');

    // another container, no volume: what it finds is in PostgreSQL
    await start(`vigil-test-pg2-${suffix}`);
    const found = await client(url, token).get(`/api/admin/v1/organizations/${created.body.id}`);
    t.match([found.status, found.body], [200, { name: 'Postgres Co' }], 'a new container on the same database finds it');
    t.equal(await stop(`vigil-test-pg2-${suffix}`), 0);
  });
}
