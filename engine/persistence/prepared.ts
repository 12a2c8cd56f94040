/**
 * Named prepared statements on PostgreSQL, for the statements marked with `prepared()` (sql.ts): each is parsed
 * once per connection, and PostgreSQL's plan cache may then keep one generic plan for it instead of planning
 * every call. Planning was most of PostgreSQL's CPU on the webhook paths: 0.64 ms of 0.67 for the alert policy
 * read (pg_stat_statements).
 *
 * Only statements whose best plan does not depend on the parameter values are marked: lookups and writes by
 * primary or unique key, scalar subqueries by organization. A generic plan is chosen once, with the statistics
 * of that moment: preparing every statement that repeats made the card dedup lookup (an `in` list on a table that
 * had just grown from empty) keep a plan 20 times slower than planning each call.
 *
 * Each connection keeps at most PREPARED_PER_CONNECTION (a marked text with a variable number of VALUES rows
 * makes one per count); past that a statement is sent unprepared, as before. `preparedStatements: false` turns
 * it off, for a connection pooler in transaction mode that does not follow protocol-level prepared statements
 * (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

const PREPARED_PER_CONNECTION = 256;
const MARKED_LIMIT = 4096;

/** marked statement text (as sent: `$n` parameters) → its statement name */
const marked = new Map<string, string>();

export function markPrepared(text: string): void {
  if (marked.has(text)) return;
  if (marked.size >= MARKED_LIMIT) return; // a runaway generator of texts: the rest go unprepared
  marked.set(text, `vigil_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`);
}

/** A `pg` Client class for the pool: `query(text, values)` of a marked text goes out as a named statement. */
export function preparingClient(base: typeof pg.Client = pg.Client): typeof pg.Client {
  return class PreparingClient extends base {
    readonly #prepared = new Set<string>();

    // every overload of pg's query goes through here; only the plain (text, values) form Kysely uses is changed
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      const name = typeof text === 'string' && Array.isArray(values) && callback === undefined ? marked.get(text) : undefined;
      if (name && (this.#prepared.has(name) || this.#prepared.size < PREPARED_PER_CONNECTION)) {
        this.#prepared.add(name);
        return super.query({ name, text, values });
      }
      return (super.query as (...a: any[]) => any)(...args);
    }
  };
}
