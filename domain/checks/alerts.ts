/**
 * From a run to the alert pipeline: a failure streak fires once it reaches the deployment's
 * `failuresToAlert` (a certificate inside its threshold or expired fires at once: that is no blip), every later
 * failing run re-sends the firing event (the pipeline counts it as a repeat and refreshes the details, as it does
 * for any product that re-sends), and the first passing run after a fire resolves it.
 */
import type { AlertEvent, AlertSeverity, INTERNAL_ALERT_SOURCES } from '../alerts/event.ts';

export interface Streak {
  failures: number;
  alerting: boolean;
}

export interface RunVerdict {
  failing: boolean;
  /** fire without waiting for the streak */
  atOnce: boolean;
}

export function nextStreak(previous: Streak, verdict: RunVerdict, failuresToAlert: number): Streak & { send: 'firing' | 'resolved' | null } {
  if (!verdict.failing) return { failures: 0, alerting: false, send: previous.alerting ? 'resolved' : null };
  const failures = previous.failures + 1;
  if (verdict.atOnce || failures >= failuresToAlert) return { failures, alerting: true, send: 'firing' };
  return { failures, alerting: previous.alerting, send: null };
}

export interface AlertFacts<Kind extends (typeof INTERNAL_ALERT_SOURCES)[number] = (typeof INTERNAL_ALERT_SOURCES)[number]> {
  /** the internal source: a check kind, or `heartbeat` (domain/heartbeats raises its alerts through the same event) */
  kind: Kind;
  checkId: string;
  title: string;
  severity: AlertSeverity;
  summary: string | null;
  service: string | null;
  labels: Record<string, string>;
}

/** One alert per check, kept across fire and resolve cycles (the fingerprint is the check's id). */
export function alertEvent(facts: AlertFacts, status: 'firing' | 'resolved', at: Date): AlertEvent {
  return {
    fingerprint: `${facts.kind}:${facts.checkId}`,
    status,
    title: facts.title,
    source: facts.kind,
    severity: facts.severity,
    labels: facts.labels,
    ...(facts.service ? { service: facts.service } : {}),
    ...(facts.summary ? { summary: facts.summary } : {}),
    ...(status === 'firing' ? { started_at: at.toISOString() } : { ended_at: at.toISOString() }),
  };
}
