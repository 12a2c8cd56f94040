/**
 * CI's run-once list (.ci/once.json, applied by .ci/once.ts) stays honest: every listed file exists, names one of
 * the two runs and says why; every test file runs in at least one run; .ci/run runs exactly the runs the list names
 * and takes its files from the list; and no allowed skip waits in a run its file no longer runs in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { AllowedSkip } from '../../.ci/check-skips.ts';
import { allTestFiles, filesFor, readOnceList, RUNS, type RunOnce } from '../../.ci/once.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const once = readOnceList();
const all = allTestFiles();

t.test('every entry names an existing test file, once, a run and why', async (t) => {
  t.ok(once.length > 0, 'the list is read');
  const seen = new Set<string>();
  for (const entry of once) {
    t.ok(existsSync(`${ROOT}/${entry.file}`), `${entry.file} exists`);
    t.ok(all.includes(entry.file), `${entry.file} is a test file tap runs`);
    t.ok(RUNS.includes(entry.run), `${entry.file}: ${entry.run} is a run`);
    t.ok(typeof entry.why === 'string' && entry.why.trim().length >= 20, `${entry.file} says why`);
    t.notOk(seen.has(entry.file), `${entry.file} is listed once`);
    seen.add(entry.file);
  }
});

t.test('every test file runs in a run: twice, or once where the list says', async (t) => {
  const runsOf = (file: string) => RUNS.filter((run) => filesFor(run, all, once).includes(file));
  const listed = new Map(once.map((entry) => [entry.file, entry.run]));
  for (const file of all) t.same(runsOf(file), listed.has(file) ? [listed.get(file)] : [...RUNS], file);
});

t.test('the list is applied: a listed file leaves the other run only', async (t) => {
  const list: RunOnce[] = [{ file: 'b.test.ts', run: 'PostgreSQL', why: 'the same either way' }];
  t.same(filesFor('PGlite', ['a.test.ts', 'b.test.ts'], list), ['a.test.ts']);
  t.same(filesFor('PostgreSQL', ['a.test.ts', 'b.test.ts'], list), ['a.test.ts', 'b.test.ts']);
});

t.test('.ci/run runs the runs the list names, with the files it gives', async (t) => {
  const script = readFileSync(`${ROOT}/.ci/run`, 'utf8');
  const labels = [...script.matchAll(/run_suite (\w+)/g)].map((m) => m[1]);
  t.same([...new Set(labels)].sort(), [...RUNS].sort(), 'run_suite is called for each run, and only those');
  t.match(script, /npm run --silent ci:once -- files "\$label"/, 'each run takes its files from .ci/once.ts');
  t.match(script, /npm test -- "\$\{files\[@\]\}"/, 'and hands them to tap');
  const scripts = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts as Record<string, string>;
  t.equal(scripts['ci:once'], 'node .ci/once.ts');
});

t.test('no allowed skip names a run its file does not run in', async (t) => {
  const allowed = JSON.parse(readFileSync(`${ROOT}/.ci/allowed-skips.json`, 'utf8')) as AllowedSkip[];
  for (const skip of allowed) {
    for (const run of skip.runs) t.ok(filesFor(run as (typeof RUNS)[number], all, once).includes(skip.file), `${skip.file} runs on ${run}`);
  }
});
