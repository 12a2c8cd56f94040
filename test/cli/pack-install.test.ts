/**
 * Issue 22: the package people install. `npm pack` (which bundles at prepack) → `npm install -g` into a scratch
 * prefix → the installed `vigil` runs from a folder outside the checkout on Node 24: --help, --version, `vigil serve`
 * on the embedded database answering /healthz and /readyz, and `vigil plan` against it (the HCL reader loads from
 * the installed package); the installed chart worker draws a mail's PNG with its text (resvg's native module and the
 * font package found from dist/). The install takes the dependencies from the local npm cache when it holds them
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
import { decodePng, inkIn } from '../helpers/png.ts';
import { vegaLiteSpec } from '../../engine/charts/chart.ts';

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

  // the weekly mail's pictures: dist/chart-worker.js as installed, asked for a PNG as the service asks it
  const spec = vegaLiteSpec({ title: 'Alert fires by day', description: 'x', x: { field: 'day', title: 'Day' }, y: { field: 'fires', title: 'Fires' }, data: [{ day: 'Mon', fires: 2 }], outerWidth: 600 });
  const worker = join(prefix, 'lib', 'node_modules', 'vigil', 'dist', 'chart-worker.js');
  const script = `import { Worker } from 'node:worker_threads';
const w = new Worker(${JSON.stringify(worker)});
w.on('message', (m) => { process.stdout.write(JSON.stringify(m.png ? { png: Buffer.from(m.png).toString('base64') } : m)); w.terminate(); });
w.postMessage({ id: 1, spec: ${JSON.stringify(spec)}, png: { scale: 2 } });`;
  writeFileSync(join(scratch, 'draw.mjs'), script);
  const drawn = JSON.parse((await run(process.execPath, [join(scratch, 'draw.mjs')], { cwd: folder, env, maxBuffer: 16 * 1024 * 1024 })).stdout) as { png?: string; error?: string };
  t.notOk(drawn.error, 'the installed worker draws a PNG');
  const png = decodePng(Buffer.from(drawn.png ?? '', 'base64'));
  t.equal(png.width, 1200);
  t.ok(inkIn(png, 0, 0, png.width, 40) > 300, 'its title drawn in the font the package ships');
  t.same(readdirSync(folder).sort(), ['data', 'vigil.tf'], 'nothing written outside DATA_DIR but the test\'s own file');
});
