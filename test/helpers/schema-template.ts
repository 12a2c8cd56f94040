/**
 * Test databases that start with their service's tables already made. Creating them (about 150 tables with their
 * indexes, and pg-boss's schema) cost every service a test starts about 1.8 s of CPU on the embedded database, a
 * third of a CI run; now each set of tables is made once per machine into a template, and each test database is a
 * copy: a PGlite data directory copied from a template directory (pglite-template.ts), a PostgreSQL database created
 * `template` one. A template is named by a hash of the exact `create` statements MikroORM makes for the service's
 * entities and of pg-boss's version, so a changed descriptor or entity makes (and uses) a new one; the service is
 * started with `schema: 'present'`. Templates are made by the engine's own code (openDatabase, the schema generator,
 * pg-boss's start), as a service with `schema: 'entities'` makes them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EntitySchema } from '@mikro-orm/core';
import pg from 'pg';
import { openBoss } from '../../engine/jobs/boss.ts';
import { openDatabase } from '../../engine/persistence/database.ts';
import type { SchemaTemplate } from './pglite-template.ts';

const bossVersion = (JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.resolve('pg-boss'))), 'utf8')) as { version: string }).version;

/** The template for these entities: its key, and how to make it in an empty database. */
export async function schemaTemplate(entities: EntitySchema[]): Promise<SchemaTemplate> {
  // the statements need no connection (MikroORM connects on the first query), and they are the same on both databases
  const { MikroORM } = await import('@mikro-orm/pglite');
  const orm = await MikroORM.init({ entities, dbName: 'memory://', discovery: { warnWhenNoEntities: false }, forceUtcTimezone: true });
  const sql = await orm.schema.getCreateSchemaSQL();
  const key = createHash('sha256').update(`${bossVersion}\n${sql}`).digest('hex').slice(0, 16);
  return {
    key,
    async build(target) {
      // a PostgreSQL URL, or a PGlite data directory
      const databaseUrl = target.startsWith('postgres') ? target : undefined;
      const db = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : target, entities, migrations: [] });
      try {
        await db.schema.create();
        const boss = await openBoss(db, databaseUrl);
        await boss.start();
        await boss.stop({ graceful: false, close: true });
      } finally {
        await db.close();
      }
    },
  };
}

const TEMPLATE_PREFIX = 'vigil_template_';
/** A template no test used for this long is dropped when another is made (PostgreSQL keeps databases for ever). */
const STALE_MS = 24 * 3600_000;
const made = new Map<string, Promise<string>>();

async function admin<T>(base: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

const urlOf = (base: string, name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();

/**
 * The name of the PostgreSQL template database for `schema`, made once per server: built under a name of its own,
 * then renamed (a rename cannot be half done), so a database by the template's name is always complete. Its comment
 * holds when a test process last used it.
 */
export function templateDatabase(base: string, schema: SchemaTemplate): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${schema.key}`;
  let ready = made.get(name);
  if (!ready) {
    ready = (async () => {
      const exists = await admin(base, async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);
      if (exists) return name;
      await dropStale(base);
      const building = `vigil_building_${randomBytes(6).toString('hex')}`;
      await admin(base, (c) => c.query(`create database ${building}`));
      try {
        await schema.build(urlOf(base, building));
        await renameWhenClosed(base, building, name);
      } catch (error) {
        await admin(base, (c) => c.query(`drop database if exists ${building} with (force)`));
        // another test process finished first (42P04: the name is taken): its template is as good as ours
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
      return name;
    })().then(async (n) => {
      await admin(base, (c) => c.query(`comment on database ${n} is '${new Date().toISOString()}'`));
      return n;
    });
    made.set(name, ready);
  }
  return ready;
}

/** A rename waits for the build's connections to be gone on the server's side (they close as the client hangs up). */
async function renameWhenClosed(base: string, from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return void (await admin(base, (c) => c.query(`alter database ${from} rename to ${to}`)));
    } catch (error) {
      // 55006: "being accessed by other users"
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function dropStale(base: string): Promise<void> {
  await admin(base, async (c) => {
    const { rows } = await c.query(
      `select d.datname as name, shobj_description(d.oid, 'pg_database') as used from pg_database d where d.datname like $1`, [`${TEMPLATE_PREFIX}%`],
    );
    for (const row of rows) {
      if (Date.now() - Date.parse(row.used ?? '') <= STALE_MS) continue;
      // in use as a template right now: left for another time
      await c.query(`drop database if exists ${row.name}`).catch(() => {});
    }
  });
}
