/**
 * What the escalation engine records on an alert's effects (its timeline, and through it its incident's):
 * `escalation_started` (or joined, when the incident already escalates for the team), `escalation_step` (a step started:
 * its targets and the people they resolved to, or `empty`), `notified` (a notification attempt: the person, the channel,
 * queued or why not) and `escalation_stopped` (acknowledged, resolved, or every step and repeat done). The alert
 * pipeline lists these kinds among its own (domain/alerts/outcomes.ts); the rows are the alert_effects table's.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';

export const PAGING_EFFECT_KINDS = ['escalation_started', 'escalation_step', 'notified', 'escalation_stopped'] as const;
export type PagingEffectKind = (typeof PAGING_EFFECT_KINDS)[number];

export interface PagingEffect {
  organizationId: string;
  alertId: string;
  kind: PagingEffectKind;
  detail: Record<string, unknown>;
}

/** The alert pipeline's effects table (domain/alerts/entities.ts), written in the caller's transaction. */
const EFFECTS = 'alert_effects';

export async function recordEffects(sql: Sql, at: Date, effects: readonly PagingEffect[]): Promise<void> {
  if (!effects.length) return;
  await sql(
    `insert into ${EFFECTS} (organization_id, alert_id, at, kind, detail) values ${effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ')}`,
    effects.flatMap((e) => [e.organizationId, e.alertId, at, e.kind, JSON.stringify(e.detail)]),
  );
}
