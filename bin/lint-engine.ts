/** Fails when a file under engine/ names a registered family in a string: the engine must stay generic. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { families } from '../resources/index.ts';

export function familyNamesInEngine(root = new URL('../engine', import.meta.url).pathname, names = families.map((f) => f.name)): string[] {
  const found: string[] = [];
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const name of names) if (new RegExp(`['"\`]${name}['"\`]`).test(text)) found.push(`${join(root, file)}: ${name}`);
  }
  return found;
}

if (import.meta.main) {
  const found = familyNamesInEngine();
  for (const line of found) process.stderr.write(`engine names a family: ${line}\n`);
  process.exit(found.length ? 1 : 0);
}
