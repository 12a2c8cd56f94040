/**
 * Writes migrations/index.ts, the static list of the committed migrations the service runs (engine/persistence/
 * database.ts): a bundle has no migrations folder to search, and a search that finds nothing runs nothing, silently.
 * `npm run db:migration` calls it after writing a migration; test/engine/migrations.test.ts fails while the list and
 * the folder disagree.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The committed migrations' folder. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../migrations/', import.meta.url));
const FOLDER = MIGRATIONS_FOLDER;

/** The migration files in the folder, oldest first (their names start with their time). */
export function migrationFiles(folder = FOLDER): string[] {
  return readdirSync(folder).filter((f) => /^Migration\d+.*\.ts$/.test(f)).sort();
}

export function migrationsIndex(files = migrationFiles()): string {
  const names = files.map((f) => f.replace(/\.ts$/, ''));
  return [
    '/** Every committed migration, oldest first: written by `npm run db:migration` (bin/migrations-index.ts); do not edit. */',
    ...names.map((n) => `import { ${n} } from './${n}.ts';`),
    '',
    'export const MIGRATIONS = [',
    ...names.map((n) => `  { name: '${n}', class: ${n} },`),
    '];',
    '',
  ].join('\n');
}

export function writeMigrationsIndex(): void {
  writeFileSync(`${FOLDER}index.ts`, migrationsIndex());
}

if (import.meta.main) writeMigrationsIndex();
