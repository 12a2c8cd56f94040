/**
 * The test files CI runs in one of its two database runs, not both (.ci/once.json): files whose result does not
 * depend on the database underneath (a `vigil serve` on its own embedded database whatever the run, the package,
 * the image, the docs, checks of the served documents, code that opens no database), and files that need what only
 * PostgreSQL has (two processes on one database), which on PGlite would only skip. Every other file runs in both.
 *
 *   node .ci/once.ts files <run>     the test files of one run (PGlite, PostgreSQL), one a line, for `tap`
 */
import { globSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RUNS = ['PGlite', 'PostgreSQL'] as const;
export type Run = (typeof RUNS)[number];

export interface RunOnce {
  file: string;
  /** the one run it runs in */
  run: Run;
  /** why the other run would test nothing more */
  why: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function readOnceList(): RunOnce[] {
  return JSON.parse(readFileSync(new URL('./once.json', import.meta.url), 'utf8')) as RunOnce[];
}

/** Every test file tap runs with no file named: package.json's tap.include, without tap's default exclusions. */
export function allTestFiles(): string[] {
  const tap = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).tap as { include: string[] };
  const files = tap.include.flatMap((pattern) => globSync(pattern, { cwd: ROOT }));
  return [...new Set(files)].filter((file) => !/(^|\/)(node_modules|dist|fixtures?|tap-snapshots)\//.test(file)).sort();
}

/** The files of one run: every test file except those listed to run once in the other run. */
export function filesFor(run: Run, all: string[] = allTestFiles(), once: RunOnce[] = readOnceList()): string[] {
  const elsewhere = new Set(once.filter((entry) => entry.run !== run).map((entry) => entry.file));
  return all.filter((file) => !elsewhere.has(file));
}

if (import.meta.main) {
  const [command, run] = process.argv.slice(2);
  if (command !== 'files' || !RUNS.includes(run as Run)) {
    process.stderr.write(`usage: node .ci/once.ts files <${RUNS.join('|')}>\n`);
    process.exit(2);
  }
  process.stdout.write(`${filesFor(run as Run).join('\n')}\n`);
}
