/**
 * Plain SQL with `?` parameters on MikroORM's connection, sent to the driver as native bind parameters
 * (`$1`, `$2`, …). MikroORM's own `execute` inlines every parameter into the SQL text first (escaping each
 * value, a JSON body included) and wraps the call in its logging; on the hot paths that cost more CPU than the
 * database did. Driver errors become MikroORM's typed exceptions (a unique violation, a deadlock, …).
 */
import type { Transaction } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/sql';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { markPrepared } from './prepared.ts';

/** Runs one SQL statement with `?` parameters: inside a transaction, or straight on the connection. */
export type SqlExecutor = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const numberedCache = new Map<string, string>();
const CACHE_LIMIT = 2000;

/** `?` → `$n`, except inside quoted literals and identifiers (statements repeat, so each is converted once). */
export function numbered(sql: string): string {
  const cached = numberedCache.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  if (numberedCache.size >= CACHE_LIMIT) numberedCache.clear();
  numberedCache.set(sql, out);
  return out;
}

/**
 * Marks a statement to be prepared on PostgreSQL (prepared.ts): only one whose best plan does not depend on its
 * parameter values (a lookup or write by key). Returns it unchanged.
 */
export function prepared(sql: string): string {
  markPrepared(numbered(sql));
  return sql;
}

export function sqlExecutor(db: Database, trx?: Transaction): SqlExecutor {
  const connection = db.em.getConnection() as AbstractSqlConnection;
  const driver = db.em.getDriver();
  return async (sql, params) => {
    const client = (trx ?? connection.getClient()) as Kysely<unknown>;
    try {
      const result = await client.executeQuery(CompiledQuery.raw(numbered(sql), params.map((p) => (p === undefined ? null : p))));
      return result.rows as Record<string, unknown>[];
    } catch (error) {
      throw driver.convertException(error as Error);
    }
  };
}

/** A one-row select of scalar subqueries by key (`select (…) as a, (…) as b`; prepared) and how its row is read. */
export interface RowQuery<T> {
  sql: string;
  params: unknown[];
  read(row: Record<string, unknown> | undefined): T;
}

export async function selectRow<T>(sql: SqlExecutor, query: RowQuery<T>): Promise<T> {
  const [row] = await sql(prepared(query.sql), query.params);
  return query.read(row);
}

/** Two one-row selects as one (their column names must differ): to be read alone or paired again. */
export function pairQuery<A, B>(a: RowQuery<A>, b: RowQuery<B>): RowQuery<[A, B]> {
  return { sql: `select * from (${a.sql}) a, (${b.sql}) b`, params: [...a.params, ...b.params], read: (row) => [a.read(row), b.read(row)] };
}

/** Two one-row selects in one round trip (their column names must differ). */
export function selectRows<A, B>(sql: SqlExecutor, a: RowQuery<A>, b: RowQuery<B>): Promise<[A, B]> {
  return selectRow(sql, pairQuery(a, b));
}
