/** Recording one synthetic run for SLO evaluation (the check runner calls this beside updating the check's `last_*`). */
import type { SqlExecutor } from '../../engine/persistence/sql.ts';

export interface SyntheticRun {
  organization_id: string;
  check_id: string;
  at: Date;
  ok: boolean;
  latency_ms: number | null;
  status_code: number | null;
  /** why the run failed, in the runner's words; never a header value or other secret */
  error: string | null;
}

export async function recordSyntheticResult(sql: SqlExecutor, run: SyntheticRun): Promise<void> {
  await sql(
    'insert into synthetic_results (organization_id, check_id, at, ok, latency_ms, status_code, error) values (?, ?, ?, ?, ?, ?, ?)',
    [run.organization_id, run.check_id, run.at, run.ok, run.latency_ms, run.status_code, run.error],
  );
  // the longest SLO window is 90 days: older runs of this check are never read again
  await sql('delete from synthetic_results where organization_id = ? and check_id = ? and at < ?', [run.organization_id, run.check_id, new Date(run.at.getTime() - KEEP_MS)]);
}

const KEEP_MS = 91 * 86_400_000;
