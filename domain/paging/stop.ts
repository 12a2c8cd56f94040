/**
 * Whether an escalation's subject still needs someone: read before each step (escalations.ts) and before each
 * pending notification goes out (dispatch.ts), so a page acknowledged, resolved or muted sends nothing more.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';

export interface EscalationSubject {
  organization_id: string;
  subject_kind: 'alert' | 'incident';
  subject_id: string;
}

/** Why the escalation stops, or null while its subject still needs someone. */
export async function stopReason(sql: Sql, e: EscalationSubject): Promise<string | null> {
  if (e.subject_kind === 'alert') {
    const [alert] = await sql('select status from alerts where organization_id = ? and id = ?', [e.organization_id, e.subject_id]);
    if (!alert) return 'resolved';
    return alert.status === 'firing' ? null : alert.status === 'acknowledged' ? 'acknowledged' : alert.status === 'muted' ? 'muted' : 'resolved';
  }
  const [incident] = await sql(
    `select i.status, i.acknowledged_at, exists (select 1 from alerts a where a.organization_id = i.organization_id and a.incident_id = i.id and a.status = 'firing') as firing,
            exists (select 1 from alerts a where a.organization_id = i.organization_id and a.incident_id = i.id and a.status = 'acknowledged') as acknowledged
       from incidents i where i.organization_id = ? and i.id = ?`,
    [e.organization_id, e.subject_id],
  );
  if (!incident || incident.status === 'closed') return 'resolved';
  if (incident.acknowledged_at) return 'acknowledged';
  if (!incident.firing) return incident.acknowledged ? 'acknowledged' : 'resolved';
  return null;
}
