/**
 * Fails CI on a test that did not run unless .ci/allowed-skips.json lists it for this run with its reason.
 * Reads the raw TAP tap keeps of each file's last run (.tap/test-results/<file>.tap): a `# SKIP`/`# TODO`
 * directive on a test point, or a plan of `1..0 # reason` (a file or subtest that skipped itself whole).
 *
 *   node .ci/check-skips.ts <run> [results dir]     run: the label the allow-list entries name (PGlite, PostgreSQL)
 *
 * Prints one line per skip, `allowed` or `NOT ALLOWED`, and exits 1 when any is not allowed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Skip {
  file: string;
  test: string;
  reason: string;
}

export interface AllowedSkip {
  file: string;
  /** the runs where this skip is expected: a skip that is right on PGlite is a failure on PostgreSQL */
  runs: string[];
  /** a regular expression the skip's reason must match */
  reason: string;
  /** why it may skip there, for the reader of the list */
  why: string;
}

const POINT = /^\s*(?:not )?ok \d+(?: - (.*?))?\s+#\s*(SKIP|TODO)\S*\s*(.*)$/i;
const EMPTY_PLAN = /^\s*1\.\.0(?:\s*#\s*(.*))?$/;

/** The skips and todos in one file's TAP. A `1..0` plan is reported by the point that closes it, except at top level. */
export function skipsInTap(file: string, tap: string): Skip[] {
  const skips: Skip[] = [];
  for (const line of tap.split('\n')) {
    const point = POINT.exec(line);
    if (point) {
      skips.push({ file, test: point[1] ?? '', reason: `${point[2]!.toUpperCase() === 'TODO' ? 'todo: ' : ''}${point[3]!.trim()}` });
      continue;
    }
    const plan = EMPTY_PLAN.exec(line);
    if (plan && !/^\s/.test(line)) skips.push({ file, test: '(whole file)', reason: (plan[1] ?? '').trim() });
  }
  return skips;
}

/** Each skip with the allow-list entry that covers it in this run, if any. */
export function judge(skips: Skip[], allowed: AllowedSkip[], run: string): { skip: Skip; allowedBy?: AllowedSkip }[] {
  return skips.map((skip) => ({
    skip,
    allowedBy: allowed.find((a) => a.file === skip.file && a.runs.includes(run) && new RegExp(a.reason).test(skip.reason)),
  }));
}

export function readResults(dir: string): Skip[] {
  const skips: Skip[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.tap')) skips.push(...skipsInTap(relative(dir, full).replace(/\.tap$/, ''), readFileSync(full, 'utf8')));
    }
  };
  walk(dir);
  return skips;
}

if (import.meta.main) {
  const [run, dir = '.tap/test-results'] = process.argv.slice(2);
  if (!run) {
    process.stderr.write('usage: node .ci/check-skips.ts <run> [results dir]\n');
    process.exit(2);
  }
  if (!existsSync(dir)) {
    process.stderr.write(`no test results in ${dir}: did the suite run?\n`);
    process.exit(1);
  }
  const allowed = JSON.parse(readFileSync(new URL('./allowed-skips.json', import.meta.url), 'utf8')) as AllowedSkip[];
  const verdicts = judge(readResults(dir), allowed, run);
  for (const { skip, allowedBy } of verdicts) {
    process.stdout.write(`${allowedBy ? 'allowed' : 'NOT ALLOWED'} skip on ${run}: ${skip.file} › ${skip.test}: ${skip.reason}\n`);
  }
  const refused = verdicts.filter((v) => !v.allowedBy).length;
  if (refused) process.stdout.write(`${refused} skip(s) on ${run} not in .ci/allowed-skips.json: run the service they need, or list them there with the reason\n`);
  process.exit(refused ? 1 : 0);
}
