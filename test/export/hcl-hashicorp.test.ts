/**
 * The export checked by HashiCorp's own HCL (Debian's golang-github-hashicorp-hcl-v2-dev, what Terraform is built
 * on): a small Go checker (test/tools/hclcheck/main.go), built offline into a temporary directory and cached by
 * its source's hash, parses an export of every family with hclsyntax.ParseConfig (0 diagnostics) and finds it
 * unchanged by hclwrite.Format (what `terraform fmt` runs). Skips, saying so, only where Go or the HCL sources are
 * missing (.ci/run installs them; .ci/allowed-skips.json names the case).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { families } from '../../resources/index.ts';
import { seedEveryFamily } from './every-family.ts';

const GOPATH = '/usr/share/gocode';
const SOURCE = new URL('../tools/hclcheck/main.go', import.meta.url).pathname;
const HCL_SOURCES = join(GOPATH, 'src/github.com/hashicorp/hcl/v2/hclwrite');

function goAvailable(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The checker's binary, built once per source version (the build takes a while; the source rarely changes). */
function checker(): string {
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'vigil-hclcheck');
  const binary = join(dir, `hclcheck-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const building = `${binary}.${process.pid}`;
  execFileSync('go', ['build', '-o', building, SOURCE], {
    env: { ...process.env, GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: join(dir, 'gocache'), CGO_ENABLED: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  renameSync(building, binary);
  return binary;
}

function check(binary: string, text: string): Promise<{ diagnostics: string[]; formatted: string; unchanged: boolean }> {
  return new Promise((resolve, reject) => {
    const child = execFile(binary, [], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))));
    child.stdin!.end(text);
  });
}

const missing = !goAvailable() ? 'go is not installed' : !existsSync(HCL_SOURCES) ? `HashiCorp's HCL sources are not in ${GOPATH}` : undefined;
if (missing) {
  t.plan(0, `HashiCorp's HCL checker cannot be built (${missing}): apt-get install -y golang-go golang-github-hashicorp-hcl-v2-dev`);
} else {
  const binary = checker();
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  const org = await vigil.organization('business', { compliance: true });
  const api = await org.key();
  await seedEveryFamily(vigil, api);
  const text = (await api.get(`${CONFIG}/export?format=hcl`)).body as string;

  t.test('an export of every family parses with hclsyntax.ParseConfig with no diagnostics', async (t) => {
    for (const d of families) t.match(text, new RegExp(`resource "vigil_${d.name}" "`), `the export holds a vigil_${d.name} block`);
    const result = await check(binary, text);
    t.same(result.diagnostics, [], '0 diagnostics');
  });

  t.test('hclwrite.Format (terraform fmt) leaves the export unchanged', async (t) => {
    const result = await check(binary, text);
    const ours = text.split('\n');
    const theirs = result.formatted.split('\n');
    const differing = ours.flatMap((line, i) => (line === theirs[i] ? [] : [`line ${i + 1}: ours ${JSON.stringify(line)} / hclwrite ${JSON.stringify(theirs[i])}`]));
    t.same(differing.slice(0, 20), [], 'no line differs');
    t.ok(result.unchanged, 'byte for byte');
  });

  t.test('the checker sees what it is there for', async (t) => {
    t.not((await check(binary, 'resource "a" "b" {\n  x = \n}\n')).diagnostics.length, 0, 'a broken file has diagnostics');
    t.notOk((await check(binary, 'a = 1\nbbb = 2\n')).unchanged, 'an unaligned file is reformatted');
  });
}
