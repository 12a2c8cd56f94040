/**
 * The schedule rows and the claim. A pass first brings `check_schedules` in step with the family tables (a new
 * check, or one whose configuration changed — a new `row_version` — is due at once), then claims due checks in
 * one statement: `FOR UPDATE SKIP LOCKED` on the due rows, moving `next_run_at` on before the run starts. So
 * with several instances on one PostgreSQL a due check is claimed by exactly one of them per interval; an
 * instance that dies mid-run loses that one run, and the check is due again at its next interval.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';

export type CheckKind = 'synthetic' | 'certificate';

export interface KindTable {
  kind: CheckKind;
  /** the family's table */
  table: string;
  /** the family columns a run needs */
  columns: readonly string[];
  /** SQL for the next due time, from the claim time `?` (the only parameter) and the family row `c` */
  nextRun: string;
}

export interface Claimed {
  check_id: string;
  organization_id: string;
  consecutive_failures: number;
  alerting: boolean;
  row: Record<string, unknown>;
}

const q = (name: string) => `"${name}"`;
const ENABLED = 'coalesce(c.enabled, true)';

/** New and changed checks become due at `now`; answers the schedules whose check is gone or disabled while alerting. */
export async function syncSchedules(sql: Sql, k: KindTable, now: Date): Promise<{ organization_id: string; check_id: string }[]> {
  await sql(
    `insert into check_schedules (kind, organization_id, check_id, next_run_at, seen_version, consecutive_failures, alerting)
     select ?, c.organization_id, c.id, ?, c.row_version, 0, false from ${q(k.table)} c
      where not exists (select 1 from check_schedules s where s.kind = ? and s.organization_id = c.organization_id and s.check_id = c.id)
     on conflict do nothing`,
    [k.kind, now, k.kind],
  );
  await sql(
    `update check_schedules s set next_run_at = ?, seen_version = c.row_version
       from ${q(k.table)} c
      where s.kind = ? and c.organization_id = s.organization_id and c.id = s.check_id and s.seen_version <> c.row_version`,
    [now, k.kind],
  );
  // a deleted check's schedule goes; one still alerting goes once its alert is resolved (by the caller)
  await sql(
    `delete from check_schedules s where s.kind = ? and not s.alerting
        and not exists (select 1 from ${q(k.table)} c where c.organization_id = s.organization_id and c.id = s.check_id)`,
    [k.kind],
  );
  return (await sql(
    `select s.organization_id, s.check_id from check_schedules s
      where s.kind = ? and s.alerting
        and not exists (select 1 from ${q(k.table)} c where c.organization_id = s.organization_id and c.id = s.check_id and ${ENABLED})`,
    [k.kind],
  )) as { organization_id: string; check_id: string }[];
}

/** Claims up to `limit` due, enabled checks of organizations that are not disabled, moving each one's due time on. */
export async function claimDue(sql: Sql, k: KindTable, now: Date, limit: number): Promise<Claimed[]> {
  const rows = await sql(
    `update check_schedules s set next_run_at = ${k.nextRun}
       from ${q(k.table)} c
      where c.organization_id = s.organization_id and c.id = s.check_id and s.kind = ?
        and (s.organization_id, s.check_id) in (
          select s2.organization_id, s2.check_id from check_schedules s2
            join ${q(k.table)} c2 on c2.organization_id = s2.organization_id and c2.id = s2.check_id and coalesce(c2.enabled, true)
            join organizations o on o.id = s2.organization_id and not o.disabled
           where s2.kind = ? and s2.next_run_at <= ?
           order by s2.next_run_at
           limit ?
           for update of s2 skip locked)
      returning s.organization_id, s.check_id, s.consecutive_failures, s.alerting, ${k.columns.map((c) => `c.${q(c)}`).join(', ')}`,
    [now, k.kind, k.kind, now, limit],
  );
  return rows.map((r) => ({
    check_id: String(r.check_id),
    organization_id: String(r.organization_id),
    consecutive_failures: Number(r.consecutive_failures),
    alerting: r.alerting === true,
    row: r,
  }));
}

export async function saveStreak(sql: Sql, kind: CheckKind, organizationId: string, checkId: string, failures: number, alerting: boolean): Promise<void> {
  await sql('update check_schedules set consecutive_failures = ?, alerting = ? where kind = ? and organization_id = ? and check_id = ?', [failures, alerting, kind, organizationId, checkId]);
}

/** A run that could not reach its target is tried again sooner than its interval (certificates: daily). */
export async function retrySooner(sql: Sql, kind: CheckKind, organizationId: string, checkId: string, at: Date): Promise<void> {
  await sql('update check_schedules set next_run_at = least(next_run_at, ?) where kind = ? and organization_id = ? and check_id = ?', [at, kind, organizationId, checkId]);
}
