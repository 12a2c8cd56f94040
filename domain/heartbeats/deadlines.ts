/**
 * The heartbeat deadlines, stored on the family rows (`next_due_at`, read-only there) so that a restart neither
 * loses one nor invents one: a ping moves its row's deadline to now + interval + grace and marks it up; the sweep
 * claims due rows in one statement (`FOR UPDATE SKIP LOCKED`, marking them down as it takes them), so however many
 * instances sweep at once, each missed deadline is claimed by exactly one of them, once. Results are written beside
 * the configuration (never `row_version` or `updated_at`), so the ETag follows the settable fields only.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';

export type HeartbeatStatus = 'new' | 'up' | 'down';

export interface HeartbeatRow {
  organization_id: string;
  id: string;
  name: string;
  service: string | null;
  severity: string;
  interval_seconds: number;
  grace_seconds: number;
  last_ping_at: Date | null;
  next_due_at: Date | null;
}

const q = (name: string) => `"${name}"`;
const WINDOW = 'make_interval(secs => h.interval_seconds + coalesce(h.grace_seconds, 0))';
const COLUMNS = 'h.organization_id, h.id, h.name, h.service, h.severity, h.interval_seconds, h.grace_seconds, h.last_ping_at, h.next_due_at';

function rowOf(r: Record<string, unknown>): HeartbeatRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date));
  return {
    organization_id: String(r.organization_id), id: String(r.id), name: String(r.name), service: (r.service as string | null) ?? null,
    severity: String(r.severity ?? 'critical'), interval_seconds: Number(r.interval_seconds), grace_seconds: Number(r.grace_seconds ?? 0),
    last_ping_at: date(r.last_ping_at), next_due_at: date(r.next_due_at),
  };
}

/** Records a ping on the organization's heartbeat of that name: the row after it and the status before, or null when none has the name. */
export async function recordPing(sql: Sql, table: string, organizationId: string, name: string, now: Date): Promise<{ row: HeartbeatRow; previous: HeartbeatStatus } | null> {
  // the row lock serialises a ping with the sweep and with other pings: only one of them sees `down`
  const rows = await sql(
    `with old as (select id, status from ${q(table)} where organization_id = ? and name = ? for update)
     update ${q(table)} h set last_ping_at = ?::timestamptz, status = 'up', next_due_at = ?::timestamptz + ${WINDOW}
       from old where h.organization_id = ? and h.id = old.id
     returning ${COLUMNS}, old.status as previous`,
    [organizationId, name, now, now, organizationId],
  );
  const r = rows[0];
  return r ? { row: rowOf(r), previous: (r.previous as HeartbeatStatus | null) ?? 'new' } : null;
}

/** A changed interval or grace moves the deadline of a pinged heartbeat (rows whose deadline already matches are not written). */
export async function syncDeadlines(sql: Sql, table: string): Promise<void> {
  await sql(
    `update ${q(table)} h set next_due_at = h.last_ping_at + ${WINDOW}
      where h.last_ping_at is not null and h.next_due_at is distinct from h.last_ping_at + ${WINDOW}`,
    [],
  );
}

/** Claims up to `limit` heartbeats that are up and past their deadline (organizations not disabled), marking them down. */
export async function claimMissed(sql: Sql, table: string, now: Date, limit: number): Promise<HeartbeatRow[]> {
  const rows = await sql(
    `update ${q(table)} h set status = 'down'
      where (h.organization_id, h.id) in (
        select h2.organization_id, h2.id from ${q(table)} h2
          join organizations o on o.id = h2.organization_id and not o.disabled
         where h2.status = 'up' and h2.next_due_at <= ?
         order by h2.next_due_at
         limit ?
         for update of h2 skip locked)
     returning ${COLUMNS}`,
    [now, limit],
  );
  return rows.map(rowOf);
}
