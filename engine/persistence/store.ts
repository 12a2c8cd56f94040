/**
 * Row access for family tables: plain parameterised SQL through MikroORM's connection (the hot path of
 * every request; the ORM's entity layer costs several times more per row and gives nothing here).
 * Rows travel as plain objects (`Row`): field values plus `id`, `organization_id`, `created_at`,
 * `updated_at` and `row_version`. Every query is scoped to one organization.
 */
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { columnFor, planFields } from '../fields.ts';
import { tableName } from './entities.ts';
import { PassMemo } from './pass-memo.ts';
import { selectPage, type KeyColumn, type PageWindow } from './keyset.ts';
import { prepared, type SqlExecutor } from './sql.ts';

export type { SqlExecutor } from './sql.ts';

const SYSTEM_COLUMNS = ['id', 'organization_id', 'row_version', 'created_at', 'updated_at'];
const quote = (name: string) => `"${name}"`;

interface Shape {
  table: string;
  columns: string[];
  selectList: string;
  json: Set<string>;
  timestamps: Set<string>;
}

/** Raw rows carry timestamptz as text ("2026-03-01 12:00:00.5+00"); the engine works with Dates. */
export function parseTimestamp(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const iso = value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00');
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? value : date;
}

/** A json column of a raw row: one driver answers it parsed, another as text. */
export function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** A stored timestamp (a Date, or PostgreSQL's text form) as ISO-8601 text, as answers carry it; null stays null. */
export function iso(value: unknown): string | null {
  return value === null || value === undefined ? null : new Date(parseTimestamp(value) as Date | string).toISOString();
}

const shapes = new WeakMap<FamilyDescriptor, Shape>();

function shapeOf(family: FamilyDescriptor): Shape {
  let shape = shapes.get(family);
  if (!shape) {
    const stored = planFields(family).stored;
    const columns = [...SYSTEM_COLUMNS, ...stored.filter((c) => !SYSTEM_COLUMNS.includes(c))];
    const json = new Set(stored.filter((c) => columnFor(family.fields[c]!).columnType === 'jsonb'));
    const timestamps = new Set(['created_at', 'updated_at', ...stored.filter((c) => columnFor(family.fields[c]!).columnType === 'timestamptz')]);
    shape = { table: quote(tableName(family)), columns, selectList: columns.map(quote).join(', '), json, timestamps };
    shapes.set(family, shape);
  }
  return shape;
}

function toRow(shape: Shape, record: Record<string, unknown>): Row {
  const row: Row = {};
  for (const column of shape.columns) row[column] = shape.timestamps.has(column) ? parseTimestamp(record[column] ?? null) : (record[column] ?? null);
  return row;
}

/** A value as a parameter: JSON columns are sent as JSON text (an array would otherwise become a SQL array). */
function param(shape: Shape, column: string, value: unknown): unknown {
  if (value === undefined) return null;
  return shape.json.has(column) && value !== null ? JSON.stringify(value) : value;
}

function placeholder(shape: Shape, column: string): string {
  return shape.json.has(column) ? '?::jsonb' : '?';
}

/** `where` supports equality, `null`, and `{ $in: [...] }` on scalar columns. */
function whereClause(shape: Shape, organizationId: string, where: Row = {}): { sql: string; params: unknown[] } {
  const parts = ['"organization_id" = ?'];
  const params: unknown[] = [organizationId];
  for (const [column, value] of Object.entries(where)) {
    if (!shape.columns.includes(column)) throw new Error(`unknown column ${column}`);
    if (value === null) parts.push(`${quote(column)} is null`);
    else if (value && typeof value === 'object' && '$in' in value) {
      const list = (value as { $in: unknown[] }).$in;
      parts.push(list.length ? `${quote(column)} in (${list.map(() => '?').join(', ')})` : 'false');
      params.push(...list);
    } else if (value && typeof value === 'object' && '$gt' in value) {
      parts.push(`${quote(column)} > ${placeholder(shape, column)}`);
      params.push(param(shape, column, (value as { $gt: unknown }).$gt));
    } else {
      parts.push(`${quote(column)} = ${placeholder(shape, column)}`);
      params.push(param(shape, column, value));
    }
  }
  return { sql: parts.join(' and '), params };
}

/** A row of another table written with a family write (store.writeAlone): the audit entry. */
export interface InsertedRow {
  table: string;
  columns: string[];
  params: unknown[];
}

export type AloneWrite =
  | { op: 'insert'; row: Row }
  | { op: 'update'; existing: Row; changes: Row; now: Date }
  | { op: 'delete'; existing: Row };

function insertValues(shape: Shape, row: Row): { columns: string; params: unknown[] } {
  return { columns: shape.columns.map((c) => placeholder(shape, c)).join(', '), params: shape.columns.map((c) => param(shape, c, row[c])) };
}

function insertStatement(family: FamilyDescriptor, row: Row): { sql: string; params: unknown[] } {
  const shape = shapeOf(family);
  const { columns, params } = insertValues(shape, row);
  return { sql: `insert into ${shape.table} (${shape.selectList}) values (${columns})`, params };
}

/** The `set` of an update: the changed columns, the next version and `updated_at`; and the row it leaves. */
function updateSet(shape: Shape, existing: Row, changes: Row, now: Date): { sql: string; params: unknown[]; row: Row } {
  const next: Row = { ...changes, row_version: Number(existing.row_version) + 1, updated_at: now };
  const columns = Object.keys(next).filter((c) => shape.columns.includes(c) && !['id', 'organization_id', 'created_at'].includes(c));
  return {
    sql: columns.map((c) => `${quote(c)} = ${placeholder(shape, c)}`).join(', '),
    params: columns.map((c) => param(shape, c, next[c])),
    row: { ...existing, ...next },
  };
}

function updateStatement(family: FamilyDescriptor, existing: Row, changes: Row, now: Date): { sql: string; params: unknown[]; row: Row } {
  const shape = shapeOf(family);
  const set = updateSet(shape, existing, changes, now);
  return { sql: `update ${shape.table} set ${set.sql} where "organization_id" = ? and "id" = ?`, params: [...set.params, existing.organization_id, existing.id], row: set.row };
}

export interface ListOptions {
  where?: Row;
  orderBy?: Record<string, 'asc' | 'desc'>;
  limit?: number;
}

/**
 * Inserts held back to be written as multi-row statements (a batch's first pass, engine/operations/context.ts):
 * `add` takes a row and its audit entry; `executor` wraps a transaction's executor so that a statement naming a
 * table with held rows writes them first (a read sees every earlier write), and `flush` writes what is left.
 */
export class InsertBuffer {
  #pending: { table: string; columns: string; placeholders: string; params: unknown[] }[] = [];
  #tables = new Set<string>();
  /** the family rows held, by table: a read that none of them can answer need not wait for them */
  #held = new Map<string, Row[]>();
  #execute: SqlExecutor;
  /** what the pass has read and may answer again (pass-memo.ts): every statement and held row goes by it */
  readonly memo = new PassMemo();
  constructor(execute: SqlExecutor) {
    this.#execute = execute;
  }

  add(family: FamilyDescriptor, row: Row, also: InsertedRow): void {
    const shape = shapeOf(family);
    const { columns, params } = insertValues(shape, row);
    const held = this.#held.get(shape.table.slice(1, -1));
    if (held) held.push(row);
    else this.#held.set(shape.table.slice(1, -1), [row]);
    this.#pending.push({ table: shape.table, columns: shape.selectList, placeholders: columns, params });
    this.#pending.push({ table: also.table, columns: also.columns.join(', '), placeholders: also.columns.map(() => '?').join(', '), params: also.params });
    this.#tables.add(shape.table.slice(1, -1)).add(also.table);
    this.memo.held(shape.table.slice(1, -1), row, family.positioned?.field);
    this.memo.forget(also.table);
  }

  /** Whether a statement may read or write a table with held rows (by its name anywhere in the text: never too few). */
  touches(sql: string): boolean {
    for (const table of this.#tables) if (sql.includes(table)) return true;
    return false;
  }

  /** Writes the held rows, a statement per table (in the order each table was first held), each within PostgreSQL's parameter limit. */
  async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    this.#tables.clear();
    for (const [table, rows] of this.#held) this.memo.flushed(table, rows);
    this.#held.clear();
    const byTable = new Map<string, typeof pending>();
    for (const p of pending) {
      const rows = byTable.get(p.table);
      if (rows) rows.push(p);
      else byTable.set(p.table, [p]);
    }
    for (const [table, rows] of byTable) {
      const size = Math.max(1, Math.floor(30_000 / Math.max(1, rows[0]!.params.length)));
      for (let at = 0; at < rows.length; at += size) {
        const chunk = rows.slice(at, at + size);
        await this.#execute(`insert into ${table} (${chunk[0]!.columns}) values ${chunk.map((r) => `(${r.placeholders})`).join(', ')}`, chunk.flatMap((r) => r.params));
      }
    }
  }

  /**
   * Whether a row held for `table` may be one that `where` (equalities, as FamilyStore.list takes them) selects:
   * false only when every held row differs from it in a plain value (a string, number or boolean; null against a
   * value), which the database compares as JavaScript does. Anything else (a list, a date, an operator) may match.
   */
  mayHold(table: string, where: Row): boolean {
    const held = this.#held.get(table);
    if (!held) return false;
    const plain = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
    const differ = (a: unknown, b: unknown) => plain(a) && plain(b) && a !== b && (a === null || b === null || typeof a === typeof b);
    const entries = Object.entries(where);
    return held.some((row) => entries.every(([column, value]) => !differ(row[column] ?? null, value)));
  }

  /** The executor for a read of one table that no held row can answer (mayHold): it goes now, without writing them. */
  reader(): SqlExecutor {
    return (sql, params) => {
      this.memo.statement(sql);
      return this.#execute(sql, params);
    };
  }

  /** The executor, writing the held rows before any statement that names their tables. */
  executor(): SqlExecutor {
    return async (sql, params) => {
      this.memo.statement(sql);
      if (this.touches(sql)) await this.flush();
      return this.#execute(sql, params);
    };
  }
}

export class FamilyStore {
  readonly execute: SqlExecutor;
  readonly #buffer: InsertBuffer | undefined;
  /** `buffer`: inserts written alone are held there (a batch's first pass), `execute` being its executor. */
  constructor(execute: SqlExecutor, buffer?: InsertBuffer) {
    this.execute = execute;
    this.#buffer = buffer;
  }

  /**
   * How a read of one table goes: in a batch's first pass, without first writing the held rows when none of them
   * can be among the rows it selects (a lookup by id or natural key, asked once per row of a batch that creates
   * hundreds of that family's rows: each would otherwise write the one row held before it).
   */
  #readerOf(shape: Shape, where: Row): SqlExecutor {
    return this.#buffer && !this.#buffer.mayHold(shape.table.slice(1, -1), where) ? this.#buffer.reader() : this.execute;
  }

  /**
   * In a batch's first pass: whether a lookup by string values (an id, a natural key) surely finds no row, neither
   * held nor stored, known without a query (pass-memo.ts).
   */
  async #surelyNone(family: FamilyDescriptor, organizationId: string, where: Row): Promise<boolean> {
    const buffer = this.#buffer;
    if (!buffer) return false;
    // text columns only (a family's id is text): PostgreSQL compares text as JavaScript compares strings, not so a
    // timestamp, a uuid or JSON given as text
    if (!Object.keys(where).every((c) => c === 'id' || (family.fields[c] !== undefined && columnFor(family.fields[c]!).columnType === 'text'))) return false;
    const table = shapeOf(family).table.slice(1, -1);
    if (buffer.mayHold(table, where)) return false;
    return buffer.memo.surelyAbsent(table, organizationId, where, () => this.list(family, organizationId));
  }

  async list(family: FamilyDescriptor, organizationId: string, options: ListOptions = {}): Promise<Row[]> {
    const shape = shapeOf(family);
    if (options.where && (await this.#surelyNone(family, organizationId, options.where))) return [];
    const { sql, params } = whereClause(shape, organizationId, options.where);
    // creation order breaks ties, then the id, so lists are stable
    const orderBy: Record<string, 'asc' | 'desc'> = { ...options.orderBy };
    orderBy.created_at ??= 'asc';
    orderBy.id ??= 'asc';
    const order = Object.entries(orderBy)
      .map(([column, direction]) => `${quote(column)} ${direction === 'desc' ? 'desc nulls last' : 'asc nulls first'}`)
      .join(', ');
    const limit = options.limit !== undefined ? ` limit ${Math.max(0, Math.floor(options.limit))}` : '';
    const records = await this.#readerOf(shape, options.where ?? {})(`select ${shape.selectList} from ${shape.table} where ${sql} order by ${order}${limit}`, params);
    return records.map((r: Record<string, unknown>) => toRow(shape, r));
  }

  /**
   * The organization's rows of `family` whose id is among `ids`, in no particular order; with `activeField`, only
   * those where it is null (not archived). In a batch's first pass, a family asked about again is read once and
   * answered from memory until it is written (pass-memo.ts).
   */
  async byIds(family: FamilyDescriptor, organizationId: string, ids: readonly unknown[], activeField?: string): Promise<Row[]> {
    if (ids.length === 0) return [];
    const memo = this.#buffer?.memo;
    const all = memo && ids.every((id) => typeof id === 'string') ? await memo.rows(shapeOf(family).table.slice(1, -1), organizationId, () => this.list(family, organizationId)) : undefined;
    if (!all) return this.list(family, organizationId, { where: activeField ? { id: { $in: [...ids] }, [activeField]: null } : { id: { $in: [...ids] } } });
    const found: Row[] = [];
    for (const id of new Set(ids as string[])) {
      const row = all.get(id);
      if (row && (!activeField || row[activeField] === null)) found.push(row);
    }
    return found;
  }

  /** The position a new row of a positioned family takes: one past the highest stored, 1 for the first. */
  async nextPosition(family: FamilyDescriptor, organizationId: string, field: string): Promise<number> {
    const memo = this.#buffer?.memo;
    const table = shapeOf(family).table.slice(1, -1);
    const known = memo?.nextPosition(table, organizationId, field);
    if (known !== undefined) return known;
    const [last] = await this.list(family, organizationId, { orderBy: { [field]: 'desc' }, limit: 1 });
    const next = last ? Number(last[field]) + 1 : 1;
    memo?.knowNextPosition(table, organizationId, field, next);
    return next;
  }

  /** One keyset page of the organization's rows in `keys` order (the last key unique), and the key values to go on from. */
  async page(family: FamilyDescriptor, organizationId: string, options: { where?: Row; keys: readonly KeyColumn[]; window: PageWindow }): Promise<{ rows: Row[]; next: unknown[] | null }> {
    const shape = shapeOf(family);
    const { sql, params } = whereClause(shape, organizationId, options.where);
    for (const key of options.keys) if (!shape.columns.includes(key.column)) throw new Error(`unknown column ${key.column}`);
    const page = await selectPage(this.execute, { select: shape.selectList, from: shape.table, where: sql, params, keys: options.keys }, options.window);
    return { rows: page.records.map((r) => toRow(shape, r)), next: page.next };
  }

  async get(family: FamilyDescriptor, organizationId: string, id: string, lock = false): Promise<Row | null> {
    // no stored id holds U+0000 (PostgreSQL text cannot): such an id, from any transport, names no row
    if (id.includes('\u0000')) return null;
    const shape = shapeOf(family);
    if (await this.#surelyNone(family, organizationId, { id })) return null;
    const [record] = await this.#readerOf(shape, { id })(
      prepared(`select ${shape.selectList} from ${shape.table} where "organization_id" = ? and "id" = ?${lock ? ' for update' : ''}`),
      [organizationId, id],
    );
    return record ? toRow(shape, record) : null;
  }

  async insert(family: FamilyDescriptor, organizationId: string, values: Row, now: Date): Promise<Row> {
    const row = this.inserted(family, organizationId, values, now);
    const { sql, params } = insertStatement(family, row);
    await this.execute(prepared(sql), params);
    return row;
  }

  /** The row as `insert` stores it: the values with the system columns set. */
  inserted(family: FamilyDescriptor, organizationId: string, values: Row, now: Date): Row {
    return toRow(shapeOf(family), { ...values, organization_id: organizationId, row_version: 1, created_at: now, updated_at: now });
  }

  /** Writes only the columns that differ, bumps the version and `updated_at`. */
  async update(family: FamilyDescriptor, existing: Row, changes: Row, now: Date): Promise<Row> {
    const { sql, params, row } = updateStatement(family, existing, changes, now);
    await this.execute(prepared(sql), params);
    return row;
  }

  /** The row as `update` leaves it. */
  updated(family: FamilyDescriptor, existing: Row, changes: Row, now: Date): Row {
    return updateSet(shapeOf(family), existing, changes, now).row;
  }

  /**
   * One statement, so no transaction around it: the write, and `also` (the audit entry) inserted with it when it
   * happens. An update or delete happens only if the row is still at `existing`'s version (`stale` otherwise: it
   * changed or went since it was read). `gate`, a statement run first in the same statement (an idempotency
   * key's claim), lets the write happen only when it returns a row (`gated` otherwise).
   */
  async writeAlone(family: FamilyDescriptor, write: AloneWrite, also: InsertedRow, gate?: { sql: string; params: unknown[] }): Promise<'written' | 'stale' | 'gated'> {
    if (this.#buffer && write.op === 'insert' && !gate) {
      // held, to go with others in one statement: a failure (a unique index) fails the batch's first pass
      this.#buffer.add(family, write.row, also);
      return 'written';
    }
    const shape = shapeOf(family);
    const gated = gate ? ' and exists (select 1 from gate)' : '';
    let step: { sql: string; params: unknown[] };
    if (write.op === 'insert') {
      const { columns, params } = insertValues(shape, write.row);
      step = { sql: `insert into ${shape.table} (${shape.selectList}) select ${columns}${gate ? ' where exists (select 1 from gate)' : ''}`, params };
    } else {
      const version = Number(write.existing.row_version);
      const where = `where "organization_id" = ? and "id" = ? and "row_version" = ?${gated}`;
      const key = [write.existing.organization_id, write.existing.id, version];
      if (write.op === 'delete') step = { sql: `delete from ${shape.table} ${where}`, params: key };
      else {
        const set = updateSet(shape, write.existing, write.changes, write.now);
        step = { sql: `update ${shape.table} set ${set.sql} ${where}`, params: [...set.params, ...key] };
      }
    }
    const sql = `with ${gate ? `gate as (${gate.sql}), ` : ''}written as (${step.sql} returning 1),
      also as (insert into ${also.table} (${also.columns.join(', ')}) select ${also.columns.map(() => '?').join(', ')} from written)
      select (select count(*) from written)::int as written${gate ? ', (select count(*) from gate)::int as gate' : ''}`;
    const [result] = await this.execute(prepared(sql), [...(gate?.params ?? []), ...step.params, ...also.params]);
    if (gate && !result?.gate) return 'gated';
    return result?.written ? 'written' : 'stale';
  }

  async remove(family: FamilyDescriptor, existing: Row): Promise<void> {
    await this.execute(prepared(`delete from ${shapeOf(family).table} where "organization_id" = ? and "id" = ?`), [existing.organization_id, existing.id]);
  }

  /** Whether another organization's row holds this value (deployment-unique fields). */
  async takenElsewhere(family: FamilyDescriptor, organizationId: string, column: string, value: unknown): Promise<boolean> {
    const shape = shapeOf(family);
    const rows = await this.execute(`select 1 from ${shape.table} where ${quote(column)} = ${placeholder(shape, column)} and "organization_id" <> ? limit 1`, [
      param(shape, column, value),
      organizationId,
    ]);
    return rows.length > 0;
  }

  /** Whether another organization's list in `column` (a jsonb array) holds `value`. */
  async heldInListElsewhere(family: FamilyDescriptor, organizationId: string, column: string, value: unknown): Promise<boolean> {
    const shape = shapeOf(family);
    const rows = await this.execute(`select 1 from ${shape.table} where ${quote(column)} @> ?::jsonb and "organization_id" <> ? limit 1`, [JSON.stringify([value]), organizationId]);
    return rows.length > 0;
  }

  /** A transaction-scoped lock per organization and family, for natural keys no index can hold. */
  async lockFamily(family: FamilyDescriptor, organizationId: string): Promise<void> {
    const key = `${organizationId}:${family.name}`;
    // a batch's first pass (one transaction, no savepoint) holds the lock from its first taking to its end
    if (this.#buffer?.memo.lockHeld(key)) return;
    await this.execute(prepared('select pg_advisory_xact_lock(hashtext(?))'), [key]);
  }
}
