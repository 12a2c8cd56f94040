/**
 * The README cannot go stale (issue 20): a `vigil serve` started the way a user starts it (bootstrap on, on an empty
 * database) prints what the README's first-start block shows, and the README's quick-start block, run with bash and
 * curl against that server with the values it printed, answers what is written under each command.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { scratchDatabase } from '../helpers/harness.ts';
import { bodyDifferences, differences, markedBlock, parseSample, steps } from './samples.ts';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));
const SAMPLE_URL = 'http://127.0.0.1:8080';
const VARIABLES = ['VIGIL', 'KEY', 'TOKEN', 'ADMIN'] as const;

interface Started {
  url: string;
  printed: string[];
  stop(): Promise<void>;
}

/** `vigil serve` as `npm start` runs it, on a free port and an empty database; resolves once it printed `lines` lines. */
async function firstStart(lines: number): Promise<Started> {
  const scratch = await scratchDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'on',
    DATABASE_URL: scratch?.url ?? '', DATA_DIR: 'memory://',
  };
  // what a newcomer has not set: the first start mints and prints the operator token, and names its own address
  delete env.VIGIL_ADMIN_TOKEN;
  delete env.PUBLIC_URL;
  // what a person reads goes to stderr (stdout is the JSON log stream, silent here)
  const child = spawn(process.execPath, [VIGIL, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await scratch?.drop();
  };
  let out = '';
  const printed = await new Promise<string[]>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`the first start printed fewer lines than the README shows:\n${out}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk;
      const got = out.split('\n');
      if (got.length > lines) {
        clearTimeout(guard);
        resolve(got.slice(0, lines));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(guard);
      reject(new Error(`vigil serve exited (${code}) before printing what the README shows:\n${out}`));
    });
  });
  const url = /serving at (\S+)/.exec(printed[0] ?? '')?.[1];
  if (!url) throw new Error(`the first line is not "Vigil is serving at <url>": ${printed[0]}`);
  return { url, printed, stop };
}

/** A printed or documented line with the values that differ per start replaced. */
const normalized = (line: string, url: string) => line
  .replaceAll(url, SAMPLE_URL)
  .replace(/\b(vigil_(?:op|ak|wh)_)[A-Za-z0-9_-]+/g, '$1…')
  .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');

const printedValue = (printed: string[], pattern: RegExp) => printed.map((l) => pattern.exec(l)?.[1]).find(Boolean);

t.test('the sample matcher refuses a stale sample', async (t) => {
  // the comparison the README test relies on: it must see a changed value, a missing field and an extra one
  t.same(differences({ a: 1, id: 'x' }, parseSample('{"a":1,"id":"…"}')), []);
  t.match(differences({ a: 2, id: 'x' }, parseSample('{"a":1,"id":"…"}')), [/\$\.a: expected 1, got 2/]);
  t.match(differences({ id: 'x' }, parseSample('{"a":1,…}')), [/\$\.a: missing/]);
  t.match(differences({ a: 1, b: 2 }, parseSample('{"a":1}')), [/\$\.b: not in the sample/]);
  t.same(differences({ a: 1, b: 2 }, parseSample('{"a":1,…}')), []);
  t.match(differences({ data: [1] }, parseSample('{"data":[1,2]}')), [/expected 2 elements/]);
  t.same(bodyDifferences('x 1\ny 2\n', 'y 2\nx 1'), []);
  t.equal(bodyDifferences('x 1\n', 'x 2').length, 1);
});

t.test('the README quick start answers what the README says', async (t) => {
  const firstStartBlock = markedBlock(README, 'first-start');
  const quickStart = markedBlock(README, 'quick-start');
  if (!firstStartBlock || !quickStart) {
    t.fail('README.md marks its blocks with <!-- first-start --> and <!-- quick-start --> before their fences');
    return;
  }
  const curl = spawnSync('curl', ['--version']);
  if (curl.error || curl.status !== 0) {
    t.fail('curl is needed to run the README quick start (.ci/run installs it)');
    return;
  }

  const documented = firstStartBlock.split('\n');
  const server = await firstStart(documented.length);
  t.teardown(server.stop);

  t.same(server.printed.map((l) => normalized(l, server.url)), documented.map((l) => normalized(l, server.url)),
    'the first start prints what the README shows');

  const values: Record<(typeof VARIABLES)[number], string | undefined> = {
    VIGIL: server.url,
    KEY: printedValue(server.printed, /api:admin key[^:]*: (vigil_ak_\S+)/),
    TOKEN: printedValue(server.printed, /\/(vigil_wh_[^/\s]+)$/),
    ADMIN: printedValue(server.printed, /Operator token[^:]*: (\S+)/),
  };
  for (const [name, value] of Object.entries(values)) t.ok(value, `the first start prints ${name}`);

  // the block sets the four variables to placeholders; the test sets them to what this start printed instead
  const lines = quickStart.split('\n');
  for (const name of VARIABLES) t.ok(lines.some((l) => l.startsWith(`${name}=`)), `the quick start sets ${name}`);
  const block = lines.filter((l) => !VARIABLES.some((name) => l.startsWith(`${name}=`))).join('\n');
  const { steps: found, rest } = steps(block);
  t.ok(found.length >= 5, 'the quick start has its commands, each with a sample answer');
  t.same(rest, [], 'every command is followed by its sample answer');

  // each curl's status goes to stderr, so $(curl …) captures stay clean; markers separate the steps on both streams
  const script = [
    'set -euo pipefail',
    'curl() { command curl -w \'%{stderr}\\n@@status %{http_code}\\n\' "$@"; }',
    ...VARIABLES.map((name) => `${name}='${values[name]}'`),
    ...found.flatMap((step, i) => [`printf '\\n@@step ${i}\\n'; printf '\\n@@step ${i}\\n' >&2`, ...step.commands]),
    `printf '\\n@@step end\\n'; printf '\\n@@step end\\n' >&2`,
  ].join('\n');
  const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
  t.equal(run.status, 0, `the quick start runs to its end (bash exit ${run.status})`, { stderr: run.stderr });

  const outputs = run.stdout.split(/\n@@step \S+\n/).slice(1);
  const errors = run.stderr.split(/\n@@step \S+\n/).slice(1);
  found.forEach((step, i) => {
    const command = step.commands.filter((l) => l.trim() && !l.startsWith('#')).join('\n');
    const statuses = [...(errors[i] ?? '').matchAll(/@@status (\d{3})/g)].map((m) => Number(m[1]));
    t.equal(statuses.at(-1), step.status, `status of: ${command.split('\n')[0]}`);
    const sample = step.sample.replaceAll(SAMPLE_URL, server.url);
    t.same(bodyDifferences(outputs[i] ?? '', sample), [], `answer of: ${command.split('\n')[0]}`, { answer: outputs[i] });
  });
});
