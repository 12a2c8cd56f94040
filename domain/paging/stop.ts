/**
 * Whether an escalation's subject still needs someone: read before each step (escalations.ts) and before each
 * pending notification goes out (dispatch.ts), so a page acknowledged, resolved or muted sends nothing more.
 */
import { prepared, type SqlExecutor as Sql } from '../../engine/persistence/sql.ts';

export interface EscalationSubject {
  organization_id: string;
  subject_kind: 'alert' | 'incident';
  subject_id: string;
  /** the alert the caller read with its rows, and its status then (saves the read when it is the subject) */
  alert_id?: string;
  alert_status?: string | null;
}

/** Why an escalation whose subject is an alert of this status stops, or null while it fires (no alert: resolved). */
export function alertStop(status: unknown): string | null {
  return status === 'firing' ? null : status === 'acknowledged' ? 'acknowledged' : status === 'muted' ? 'muted' : 'resolved';
}

/** Why the escalation stops, or null while its subject still needs someone. */
export async function stopReason(sql: Sql, e: EscalationSubject): Promise<string | null> {
  if (e.subject_kind === 'alert') {
    if (e.alert_status !== undefined && e.alert_id === e.subject_id) return alertStop(e.alert_status);
    const [alert] = await sql(prepared('select status from alerts where organization_id = ? and id = ?'), [e.organization_id, e.subject_id]);
    return alertStop(alert?.status);
  }
  const [incident] = await sql(
    prepared(`select i.status, i.acknowledged_at, exists (select 1 from alerts a where a.organization_id = i.organization_id and a.incident_id = i.id and a.status = 'firing') as firing,
            exists (select 1 from alerts a where a.organization_id = i.organization_id and a.incident_id = i.id and a.status = 'acknowledged') as acknowledged
       from incidents i where i.organization_id = ? and i.id = ?`),
    [e.organization_id, e.subject_id],
  );
  if (!incident || incident.status === 'closed') return 'resolved';
  if (incident.acknowledged_at) return 'acknowledged';
  if (!incident.firing) return incident.acknowledged ? 'acknowledged' : 'resolved';
  return null;
}
