/**
 * A new, empty embedded database without paying PGlite's cluster creation for each one. Creating a cluster (what
 * every `memory://` start does) takes seconds, many more on a busy machine, and was most of what a test file spent
 * starting services. It runs once per PGlite version on this machine, into a template data directory; each test
 * database is a copy of it, which PGlite opens in a fraction of that time. The copy holds the cluster and the empty
 * database the service opens (what a first start on a new DATA_DIR makes before its migrations), no table. A second
 * kind of template also holds a service's tables (schema-template.ts): creating them cost each start about 1.8 s of
 * CPU. Copies live in /dev/shm where there is one, so they cost no disk writes.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

const ROOT = isDirectory('/dev/shm') ? '/dev/shm' : tmpdir();
const version = (JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))), 'utf8')) as { version: string }).version;
const TEMPLATE = join(ROOT, `vigil-pglite-template-${version}`);
/** the database engine/persistence/database.ts opens inside a data directory; were it another, the service would create it */
const DATABASE = 'vigil';
const COPY_PREFIX = 'vigil-pglite-copy-';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

let built: Promise<string> | undefined;

/** The template, built by the first process that needs it; a half-built one never carries its name. */
function template(): Promise<string> {
  built ??= (async () => {
    removeOrphans();
    if (existsSync(TEMPLATE)) return TEMPLATE;
    const building = mkdtempSync(`${TEMPLATE}-building-`);
    const db = new PGlite(building);
    await db.exec(`create database ${DATABASE}`);
    await db.close();
    try {
      renameSync(building, TEMPLATE);
    } catch (error) {
      // another test process finished first: its template is as good as ours
      if (!existsSync(TEMPLATE)) throw error;
      rmSync(building, { recursive: true, force: true });
    }
    return TEMPLATE;
  })();
  return built;
}

/** Copies left by test processes that were killed (a timeout) before they could remove them: /dev/shm is memory. */
function removeOrphans(): void {
  for (const name of readdirSync(ROOT)) {
    const pid = Number(name.startsWith(COPY_PREFIX) ? name.slice(COPY_PREFIX.length).split('-')[0] : NaN);
    if (Number.isInteger(pid) && !running(pid)) rmSync(join(ROOT, name), { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const copies = new Set<string>();
process.once('exit', () => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** How a template with tables is made: `key` names what it holds, `build` makes it in a copy of the empty cluster. */
export interface SchemaTemplate {
  key: string;
  build(dataDir: string): Promise<void>;
}

/** A schema template unused this long is removed when another is built (each is about 50 MB of /dev/shm, which is memory). */
const STALE_MS = 24 * 3600_000;
const withSchema = new Map<string, Promise<string>>();

/** The template `schema` names, built once per machine; touched on every use, so the stale ones can be told apart. */
function schemaTemplate(schema: SchemaTemplate): Promise<string> {
  const dir = `${TEMPLATE}-schema-${schema.key}`;
  let ready = withSchema.get(dir);
  if (!ready) {
    ready = (async () => {
      if (existsSync(dir)) return dir;
      removeStale();
      const building = mkdtempSync(`${dir}-building-`);
      cpSync(await template(), building, { recursive: true });
      try {
        await schema.build(building);
        renameSync(building, dir);
      } catch (error) {
        rmSync(building, { recursive: true, force: true });
        // another test process finished first: its template is as good as ours
        if (!existsSync(dir)) throw error;
      }
      return dir;
    })();
    withSchema.set(dir, ready);
  }
  return ready.then((d) => (utimesSync(d, new Date(), new Date()), d));
}

/** Schema templates no test used for STALE_MS, and half-built ones of processes that died. */
function removeStale(): void {
  for (const name of readdirSync(ROOT)) {
    if (!name.startsWith(`${basename(TEMPLATE)}-schema-`)) continue;
    const path = join(ROOT, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}

/**
 * A data directory holding a new PGlite cluster, empty or (with `schema`) with the tables that template holds;
 * `drop` removes it (and process exit, if not called).
 */
export async function freshDataDir(schema?: SchemaTemplate): Promise<{ dataDir: string; drop(): void }> {
  const source = schema ? await schemaTemplate(schema) : await template();
  const dataDir = mkdtempSync(join(ROOT, `${COPY_PREFIX}${process.pid}-`));
  copies.add(dataDir);
  cpSync(source, dataDir, { recursive: true });
  return {
    dataDir,
    drop: () => {
      copies.delete(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
