/**
 * Issue 22: the package people install. `npm pack` (which bundles at prepack) → `npm install -g` into a scratch
 * prefix → the installed `vigil` runs from a folder outside the checkout on Node 24: --help, --version, `vigil serve`
 * on the embedded database answering /healthz and /readyz, and `vigil plan` against it (the HCL reader loads from
 * the installed package). The install takes the dependencies from the local npm cache when it holds them
 * (--prefer-offline) and from the npm registry otherwise: on a machine that reaches neither, this test fails.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { client } from '../helpers/harness.ts';
import { serveProcess } from '../helpers/serve-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const run = promisify(execFile);

// packing, installing and a first start take about 75 s on a quiet machine
t.setTimeout(300_000);

const scratch = mkdtempSync(join(tmpdir(), 'vigil-pack-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
// Node 24 (this test's, the `node` package's) first on PATH: npm's engine check and the installed command's
// `#!/usr/bin/env node` both use it, whatever `node` the machine has
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };

t.test('npm pack, npm install -g, and the installed vigil runs outside the checkout', async (t) => {
  const packed = await run('npm', ['pack', '--pack-destination', scratch, '--json'], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const shipped = info!.files.map((f) => f.path);
  t.ok(shipped.includes('dist/vigil.js'), 'the bundle ships');
  t.ok(shipped.includes('bin/vigil.js') && shipped.includes('LICENSE'), 'the launcher and the licence ship');
  t.same(shipped.filter((p) => /^(test|bench|engine|resources|domain|outbound|webhooks|web|export|migrations)\/|\.ts$/.test(p)), [],
    'no tests, benchmarks or TypeScript sources ship');

  const prefix = join(scratch, 'prefix');
  const installed = await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(scratch, info!.filename)],
    { cwd: scratch, env, maxBuffer: 64 * 1024 * 1024 });
  t.notMatch(`${installed.stdout}${installed.stderr}`, /EBADENGINE/, 'no engine warning on Node 24');

  const vigil = join(prefix, 'bin', 'vigil');
  t.ok(existsSync(vigil), 'the vigil command is installed');
  const folder = mkdtempSync(join(scratch, 'elsewhere-'));
  const help = await run(vigil, ['--help'], { cwd: folder, env });
  t.match(help.stdout, /serve\b/, '--help lists serve');
  t.match(help.stdout, /plan\b/, '--help lists plan');
  t.equal((await run(vigil, ['--version'], { cwd: folder, env })).stdout.trim(), VERSION, '--version');

  const dataDir = join(folder, 'data');
  const served = await serveProcess({ DATABASE_URL: '', DATA_DIR: dataDir, VIGIL_BOOTSTRAP: 'on', VIGIL_ADMIN_TOKEN: '', PATH: env.PATH }, { node: vigil, args: [], cwd: folder });
  t.teardown(() => served.stop());
  const health = await client(served.url).get('/healthz');
  t.same([health.status, health.body], [200, { status: 'ok', version: VERSION }], '/healthz from the installed package');
  t.equal((await client(served.url).get('/readyz')).status, 200, '/readyz: migrations ran from the bundle\'s list');

  // vigil plan against it: the export of the first organization is an empty plan
  const key = /api:admin key[^:]*: (vigil_ak_\S+)/.exec(readFileSync(join(dataDir, 'first-start.txt'), 'utf8'))?.[1];
  t.ok(key, 'the first start wrote its key to DATA_DIR/first-start.txt');
  const exported = await client(served.url, key).get('/api/v1/config/export?format=hcl');
  t.equal(exported.status, 200);
  writeFileSync(join(folder, 'vigil.tf'), String(exported.body));
  const plan = await run(vigil, ['plan', 'vigil.tf', '--url', served.url], { cwd: folder, env: { ...env, VIGIL_API_KEY: key! } });
  t.match(plan.stdout, /no change/i, 'vigil plan reads the file and compares it with the organization');
  t.equal(await served.stop(), 0, 'SIGTERM: exit 0');
  t.same(readdirSync(folder).sort(), ['data', 'vigil.tf'], 'nothing written outside DATA_DIR but the test\'s own file');
});
