/** From a heartbeat to its one alert (fingerprint `heartbeat:<id>`): the facts a missed deadline fires and a ping resolves. */
import type { AlertSeverity } from '../alerts/event.ts';
import type { AlertFacts } from '../checks/alerts.ts';
import type { HeartbeatRow } from './deadlines.ts';

export function heartbeatFacts(row: HeartbeatRow): AlertFacts {
  const last = row.last_ping_at ? row.last_ping_at.toISOString() : 'never';
  return {
    kind: 'heartbeat',
    checkId: row.id,
    title: `Heartbeat ${row.name} missed`,
    severity: row.severity as AlertSeverity,
    summary: `No ping since ${last}: expected every ${row.interval_seconds} s with ${row.grace_seconds} s of grace${row.next_due_at ? `, due by ${row.next_due_at.toISOString()}` : ''}.`,
    service: row.service,
    labels: { heartbeat: row.name },
  };
}
