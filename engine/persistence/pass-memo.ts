/**
 * What a batch's first pass (engine/operations/context.ts) has read and may answer again without a query: each
 * statement is a round trip, and a batch of thousands of creates asked the same few things once per row (is this
 * SLI a row of the organization, which position comes next, is the family's lock taken). Only that pass keeps a
 * memo: it runs on one transaction with no savepoint, so nothing it wrote is undone under it, and any refusal or
 * failure ends it (the second pass, with savepoints, asks the database every time).
 *
 * Kept right the way InsertBuffer keeps reads right (store.ts): every statement of the pass goes through the
 * buffer's executor, and one that may write (anything but a `select`) drops what is held for every table it
 * names; a held insert drops the table's rows (a position is carried forward instead).
 */
import type { Row } from '../descriptor.ts';

interface Entry {
  table: string;
  /** the organization's rows by id, once asked for twice since the table was last written */
  rows?: Map<string, Row>;
  /** lookups since the table was last written: the first goes to the database alone, the second loads the rows */
  asked: number;
  /** how many rows were held for the table: a load that began before the last one is not kept */
  held: number;
  /** what the next position of a positioned family is: one past the highest stored */
  next?: { field: string; value: number };
  /**
   * Every row of the organization in the table (read once, then each held row as it is written), to know that a
   * lookup by key finds nothing without asking; with its lookups since the table was last written by a statement.
   */
  present?: Row[];
  presentAsked: number;
  /** `present` indexed by the columns of a lookup: their values as text, for rows whose values there are all strings */
  keys?: Map<string, { columns: string[]; values: Set<string>; other: boolean }>;
}

/** The key of a row's values in `columns` when they are all strings (null: another value, which a lookup cannot rule out). */
const keyOf = (row: Row, columns: string[]): string | null => {
  const values = columns.map((c) => row[c] ?? null);
  if (values.some((v) => v !== null && typeof v !== 'string')) return null;
  return values.some((v) => v === null) ? '' : JSON.stringify(values);
};

/** A `select` that writes nothing (one that only locks its rows, `for update`, is a read too). */
const isRead = (sql: string) => /^\s*select\b/i.test(sql) && !/\b(insert|update|delete)\b/i.test(sql.replace(/\bfor\s+(no\s+key\s+)?update\b/gi, ''));

export class PassMemo {
  readonly #entries = new Map<string, Entry>();
  readonly #locks = new Set<string>();

  #key = (table: string, organizationId: string) => `${table}\n${organizationId}`;

  #entry(table: string, organizationId: string): Entry {
    const key = this.#key(table, organizationId);
    let entry = this.#entries.get(key);
    if (!entry) this.#entries.set(key, (entry = { table, asked: 0, held: 0, presentAsked: 0 }));
    return entry;
  }

  /** A statement about to run: one that may write forgets what is held for the tables it names. */
  statement(sql: string): void {
    if (isRead(sql)) return;
    for (const [key, entry] of this.#entries) if (sql.includes(entry.table)) this.#entries.delete(key);
  }

  /** Forgets what is held for `table` (a row was held for it that is no family's, such as an audit entry). */
  forget(table: string): void {
    for (const [key, entry] of this.#entries) if (entry.table === table) this.#entries.delete(key);
  }

  /** A row held to be inserted into `table`: its rows are read again when next asked; the next position moves past it. */
  held(table: string, row: Row, positionField: string | undefined): void {
    const entry = this.#entries.get(this.#key(table, String(row.organization_id)));
    if (!entry) return;
    entry.rows = undefined;
    entry.asked = 0;
    entry.held++;
    const position = positionField === undefined ? NaN : Number(row[positionField]);
    if (entry.next && entry.next.field === positionField && Number.isInteger(position) && row[positionField] !== null) entry.next.value = Math.max(entry.next.value, position + 1);
    else entry.next = undefined;
  }

  /**
   * The organization's rows of `table` by id, from memory; `load` reads them all on the second lookup since the
   * table was last written. `undefined`: ask the database (the first lookup, which may well be the only one).
   */
  async rows(table: string, organizationId: string, load: () => Promise<Row[]>): Promise<Map<string, Row> | undefined> {
    const entry = this.#entry(table, organizationId);
    if (entry.rows) return entry.rows;
    if (entry.asked++ === 0) return undefined;
    const held = entry.held;
    const rows = new Map((await load()).map((r) => [String(r.id), r]));
    // kept only if nothing was written or held for the table while it loaded
    if (this.#entries.get(this.#key(table, organizationId)) === entry && entry.held === held) entry.rows = rows;
    return rows;
  }

  /** Rows held for `table` were written: they are among its rows now. */
  flushed(table: string, rows: Row[]): void {
    for (const row of rows) {
      const entry = this.#entries.get(this.#key(table, String(row.organization_id)));
      if (!entry?.present) continue;
      entry.present.push(row);
      for (const index of entry.keys?.values() ?? []) {
        const key = keyOf(row, index.columns);
        if (key === null) index.other = true;
        else if (key !== '') index.values.add(key);
      }
    }
  }

  /**
   * Whether no row of the organization in `table` has these string values in these columns (a lookup by id or
   * natural key), known without a query; false when unsure. `load` reads every row, on the second lookup since the
   * table was last written by a statement. The rows held and not yet written are the caller's to rule out.
   */
  async surelyAbsent(table: string, organizationId: string, where: Row, load: () => Promise<Row[]>): Promise<boolean> {
    const columns = Object.keys(where).sort();
    if (columns.length === 0 || columns.some((c) => typeof where[c] !== 'string')) return false;
    const entry = this.#entry(table, organizationId);
    if (!entry.present) {
      if (entry.presentAsked++ === 0) return false;
      const rows = await load();
      if (this.#entries.get(this.#key(table, organizationId)) !== entry) return false;
      entry.present = rows;
    }
    const signature = columns.join('\n');
    entry.keys ??= new Map();
    let index = entry.keys.get(signature);
    if (!index) {
      index = { columns, values: new Set(), other: false };
      for (const row of entry.present) {
        const key = keyOf(row, columns);
        if (key === null) index.other = true;
        else if (key !== '') index.values.add(key);
      }
      entry.keys.set(signature, index);
    }
    return !index.other && !index.values.has(JSON.stringify(columns.map((c) => where[c])));
  }

  /** The next position of a positioned family, when known since the table was last written. */
  nextPosition(table: string, organizationId: string, field: string): number | undefined {
    const next = this.#entries.get(this.#key(table, organizationId))?.next;
    return next?.field === field ? next.value : undefined;
  }

  /** The next position as just read from the database. */
  knowNextPosition(table: string, organizationId: string, field: string, value: number): void {
    this.#entry(table, organizationId).next = { field, value };
  }

  /** Whether the transaction already holds this advisory lock (taken again it would change nothing); marks it held. */
  lockHeld(key: string): boolean {
    if (this.#locks.has(key)) return true;
    this.#locks.add(key);
    return false;
  }
}
