/**
 * Fails when code outside engine/ and resources/ reaches a family by its name written as a string: it must import the
 * family's descriptor and use `descriptor.name`, so a renamed or removed family breaks the type check, not a request.
 * Caught: `registry.get('<literal>')`, and a family's name as a constant's value or as the argument of a lookup
 * helper (`family(services, 'slos')`, `table('synthetic_checks')`). Words that merely equal a family's name (the
 * `chat` channel, a payload's `teams` field) are not lookups and pass.
 *
 * And fails when web/ names an operation by a string (`'list_alerts'`): the console imports the operation's handle from
 * the module that exports it, so its input and answer are typed from the operation's schemas and a renamed or removed
 * operation breaks the type check (web/console/operations.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { families } from '../resources/index.ts';
import { modules } from './modules.ts';

const ROOT = new URL('..', import.meta.url).pathname;
/** The folders checked: every folder of ours but engine/ (lint-engine.ts: no names at all) and resources/ (the names' home). */
const FOLDERS = ['bin', 'webhooks', 'domain', 'outbound', 'web', 'export'];

/** Code lines (not comments) of the folders' .ts files that match one of the patterns, as `path:line: text`. */
function matchingLines(root: string, folders: readonly string[], patterns: readonly RegExp[]): string[] {
  const found: string[] = [];
  for (const folder of folders) {
    for (const file of readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const path = join(root, folder, file);
      readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
        const code = line.trimStart();
        if (code.startsWith('*') || code.startsWith('//') || code.startsWith('/*')) return;
        if (patterns.some((p) => p.test(line))) found.push(`${relative(root, path)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  return found;
}

const quoted = (names: readonly string[]) => `(?<quote>['"\`])(?:${names.join('|')})\\k<quote>`;

export function familyNameLookups(root = ROOT, folders = FOLDERS, names = families.map((f) => f.name)): string[] {
  return matchingLines(root, folders, [
    new RegExp(`registry\\.get\\(\\s*['"\`]`),
    new RegExp(`\\b(?:const|let)\\s+\\w+\\s*(?::\\s*\\w+\\s*)?=\\s*${quoted(names)}`),
    new RegExp(`\\b(?:family|table|descriptor|familyOf)\\((?:\\s*services\\s*,)?\\s*${quoted(names)}`),
  ]);
}

/** Every operation the modules register (bin/modules.ts), by name. */
const operationNames = () => modules().flatMap((m) => m.operations ?? []).map((op) => op.name);

/** web/ lines that hold an operation's name as a string literal. */
export function operationNameLiterals(root = ROOT, folders: readonly string[] = ['web'], names = operationNames()): string[] {
  return matchingLines(root, folders, [new RegExp(quoted(names))]);
}

if (import.meta.main) {
  const found = familyNameLookups();
  for (const line of found) process.stderr.write(`a family reached by a name literal (import its descriptor, use .name): ${line}\n`);
  const called = operationNameLiterals();
  for (const line of called) process.stderr.write(`an operation called by its name (import its handle from the module that exports it): ${line}\n`);
  process.exit(found.length || called.length ? 1 : 0);
}
