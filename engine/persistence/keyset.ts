/**
 * Keyset pages over any table: `order by` a list of columns whose last one is unique, and "the rows after this
 * one" as a condition on those columns' values, so a row created or deleted between two pages shifts nothing
 * (an offset would skip or repeat a row). Null sorts as the smallest value in both directions (`asc nulls first`,
 * `desc nulls last`), the order lists have always had. Values travel as the driver answers them (a timestamp as
 * PostgreSQL's text, microseconds kept), so the next page starts exactly after the last row answered.
 */
import type { SqlExecutor } from './sql.ts';

export interface KeyColumn {
  column: string;
  direction: 'asc' | 'desc';
}

const quote = (name: string) => `"${name}"`;

export function orderSql(keys: readonly KeyColumn[]): string {
  return keys.map((k) => `${quote(k.column)} ${k.direction === 'desc' ? 'desc nulls last' : 'asc nulls first'}`).join(', ');
}

/** `(a > ?) or (a = ? and b > ?) or …`: the rows that sort after `values` (one per key). */
export function afterSql(keys: readonly KeyColumn[], values: readonly unknown[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const alternatives: string[] = [];
  keys.forEach((key, i) => {
    const parts: string[] = [];
    const partParams: unknown[] = [];
    for (let j = 0; j < i; j++) {
      if (values[j] === null) parts.push(`${quote(keys[j]!.column)} is null`);
      else {
        parts.push(`${quote(keys[j]!.column)} = ?`);
        partParams.push(values[j]);
      }
    }
    const column = quote(key.column);
    const value = values[i];
    let after: string;
    if (key.direction === 'asc') after = value === null ? `${column} is not null` : `${column} > ?`;
    else after = value === null ? 'false' : `(${column} < ? or ${column} is null)`;
    if (value !== null) partParams.push(value);
    if (after === 'false') return;
    alternatives.push(`(${[...parts, after].join(' and ')})`);
    params.push(...partParams);
  });
  return { sql: alternatives.length ? `(${alternatives.join(' or ')})` : 'false', params };
}

export interface PageQuery {
  /** the select list */
  select: string;
  /** the table (quoted as needed) */
  from: string;
  /** the rows of the list (scoped to one organization), with its parameters */
  where: string;
  params: unknown[];
  /** the order; its last column must be unique */
  keys: readonly KeyColumn[];
}

export interface PageWindow {
  limit: number;
  /** the key values of the last row of the previous page; null for the first page */
  after: readonly unknown[] | null;
}

export interface PageRecords {
  records: Record<string, unknown>[];
  /** the key values of the last record, when more rows follow it */
  next: unknown[] | null;
}

/** One page: `limit` records after `after`, and whether more follow (one row more is read to know). */
export async function selectPage(execute: SqlExecutor, query: PageQuery, window: PageWindow): Promise<PageRecords> {
  const after = window.after ? afterSql(query.keys, window.after) : null;
  const where = after ? `(${query.where}) and ${after.sql}` : query.where;
  const params = after ? [...query.params, ...after.params] : query.params;
  const limit = Math.max(0, Math.floor(window.limit));
  const rows = await execute(`select ${query.select} from ${query.from} where ${where} order by ${orderSql(query.keys)} limit ${limit + 1}`, params);
  const records = rows.slice(0, limit);
  const last = records.at(-1);
  const next = rows.length > limit && last ? query.keys.map((k) => keyValue(last[k.column])) : null;
  return { records, next };
}

/** A key value as the cursor carries it: JSON (a driver that answers a Date answers it as ISO text). */
function keyValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}
