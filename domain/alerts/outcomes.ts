/** What the alert pipeline records and answers: the effect kinds of an alert, and the outcome of each event. */
import { PAGING_EFFECT_KINDS } from '../paging/effects.ts';

export const EFFECT_KINDS = [
  'routed', 'page', 'page_skipped', 'chat_post', 'chat_thread_update', 'muted', 'storm_grouped',
  'investigation_requested', 'investigation_skipped', 'incident_opened', 'incident_joined', 'incident_closed', 'incident_reopened',
  // a resolved (or muted) alert raised again: the cycle that ended, its raise, acknowledgement and resolution (the insights' timings)
  'cycle_ended',
  // the escalation engine's (domain/paging/effects.ts)
  ...PAGING_EFFECT_KINDS,
] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** Who took a person's action, as the audit log names actors: recorded as `by` on each effect it had. */
export interface Actor {
  kind: string;
  id: string;
}

/** One consequence of an event, stored as an alert_effects row. */
export interface Effect {
  alertId: string;
  kind: EffectKind;
  detail: Record<string, unknown>;
}

/** What became of one event (the delivery log's outcome). */
export type Outcome = 'created' | 'fired' | 'storm' | 'muted' | 'cooldown' | 'duplicate' | 'acknowledged' | 'unacknowledged' | 'resolved' | 'unknown alert';

export interface EventResult {
  fingerprint: string;
  alertId: string | null;
  outcome: Outcome;
}
