/**
 * The writes of one delivery that no later statement reads back, held and sent together: before the next
 * statement (so what it reads includes them) or at the end, as one statement. Under load this saves a round trip
 * per held write on the alert path's hot transaction.
 */
import { prepared } from '../../engine/persistence/sql.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';

export class WriteBatcher {
  readonly #execute: Sql;
  readonly #deferred: { sql: string; params: unknown[] }[] = [];

  constructor(execute: Sql) {
    this.#execute = execute;
  }

  /** Every statement but the held writes: those go first, so what it reads includes them. */
  readonly sql: Sql = async (sql, params) => {
    await this.flush();
    return this.#execute(sql, params);
  };

  /** A write no later statement of this delivery depends on seeing, nor writes the same row as another held one. */
  defer(sql: string, params: unknown[]): void {
    this.#deferred.push({ sql, params });
  }

  /** The held writes in one statement (data-modifying WITH clauses all run, on one snapshot). */
  async flush(): Promise<void> {
    if (this.#deferred.length === 0) return;
    const writes = this.#deferred.splice(0);
    // writes by key: prepared (the texts differ only by which writes and how many effect rows)
    if (writes.length === 1) await this.#execute(prepared(writes[0]!.sql), writes[0]!.params);
    else await this.#execute(prepared(`with ${writes.map((w, i) => `w${i} as (${w.sql})`).join(', ')} select 1`), writes.flatMap((w) => w.params));
  }
}
