/**
 * The alert pipeline's decisions, as pure functions over an alert, the event and the organization's settings:
 * which way an event goes, mutes, the re-fire cooldown, storms, whether an investigation may start, whether an
 * incident opens or closes. No SQL and no clock reads: pipeline.ts gathers the facts (store.ts) and acts.
 */
import type { AlertEvent, AlertSeverity } from './event.ts';
import type { Mute } from './policy.ts';
import type { Settings } from '../organization/settings.ts';

const MINUTE = 60_000;
const SEVERITY_RANK: Record<AlertSeverity, number> = { critical: 4, high: 3, warning: 2, info: 1 };

/** The state an alert is stored in (`alerts.status`): an event's status (event.ts), or muted when a mute matched it. */
export const ALERT_STATES = ['firing', 'acknowledged', 'resolved', 'muted'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/**
 * The mute in force that silences the alert, if any: an alert mute whose pattern is in its title, source or
 * fingerprint (any case), or a running maintenance window whose services include the alert's service (any case).
 */
export function matchingMute(mutes: readonly Mute[], event: Pick<AlertEvent, 'title' | 'source' | 'fingerprint' | 'service'>): Mute | undefined {
  const haystacks = [event.title, event.source, event.fingerprint].map((s) => s.toLowerCase());
  const service = event.service?.toLowerCase();
  return mutes.find((m) =>
    m.pattern !== undefined ? haystacks.some((h) => h.includes(m.pattern!.toLowerCase())) : service !== undefined && (m.services ?? []).includes(service));
}

/** The `muted` effect's detail: which mute, or which maintenance window, silenced the alert. */
export function muteEffect(mute: Mute): Record<string, unknown> {
  return mute.maintenance !== undefined ? { maintenance_id: mute.id, maintenance: mute.maintenance } : { mute_id: mute.id, pattern: mute.pattern };
}

/** The severity an alert shows: the one its routes set at its last fire (kept by repeats and acknowledgements), else the product's. */
export function shownSeverity(override: AlertSeverity | null, event: Pick<AlertEvent, 'severity'>): AlertSeverity {
  return override ?? event.severity;
}

/**
 * A firing event: already firing → `duplicate` (nothing pages); acknowledged → `unacknowledged` (the pager took
 * the acknowledgement back, it already paged); new, resolved or muted → `raise` (mute, cooldown, storm decide).
 */
export function firingPath(status: AlertState, created: boolean): 'duplicate' | 'unacknowledged' | 'raise' {
  if (created) return 'raise';
  if (status === 'firing') return 'duplicate';
  if (status === 'acknowledged') return 'unacknowledged';
  return 'raise';
}

/** An acknowledgement: a new alert is stored acknowledged; one already acknowledged or resolved is a duplicate. */
export function acknowledgedPath(status: AlertState, created: boolean): 'created' | 'duplicate' | 'acknowledge' {
  if (created) return 'created';
  return status === 'acknowledged' || status === 'resolved' ? 'duplicate' : 'acknowledge';
}

/** A resolved alert fired again less than `alert_refire_cooldown_minutes` after it resolved (0 turns this off). */
export function inRefireCooldown(alert: { status: AlertState; resolved_at: Date | null }, settings: Settings, now: Date): boolean {
  const cooldown = settings.alert_refire_cooldown_minutes * MINUTE;
  return alert.status === 'resolved' && alert.resolved_at !== null && cooldown > 0 && now.getTime() - alert.resolved_at.getTime() < cooldown;
}

export interface StormWindow {
  /** alerts raised after this instant count */
  since: Date;
  threshold: number;
}

export function stormWindow(settings: Settings, now: Date): StormWindow {
  return { since: new Date(now.getTime() - settings.alert_storm_window_seconds * 1000), threshold: settings.alert_storm_threshold };
}

/** With `raised` other alerts inside the window (counted up to the threshold), this one forms a storm. */
export function formsStorm(raised: number, window: StormWindow): boolean {
  return raised + 1 >= window.threshold;
}

export type Refusal = Record<string, unknown>;

/** Paused investigations refuse before anything is read. */
export function pausedRefusal(settings: Settings): Refusal | null {
  return settings.investigation_paused ? { reason: 'paused' } : null;
}

/** Since when an earlier investigation of the alert blocks a new one; null when none can (a new alert, or cooldown 0). */
export function investigationCooldownStart(settings: Settings, now: Date, created: boolean): Date | null {
  return settings.investigation_cooldown_minutes > 0 && !created ? new Date(now.getTime() - settings.investigation_cooldown_minutes * MINUTE) : null;
}

export function cooldownRefusal(settings: Settings, investigationId: unknown): Refusal {
  return { reason: 'cooldown', investigation_id: investigationId, cooldown_minutes: settings.investigation_cooldown_minutes };
}

/** The month's AI spend reached `monthly_ai_budget_usd` (null: no budget). */
export function budgetRefusal(settings: Settings, spent: number): Refusal | null {
  const budget = settings.monthly_ai_budget_usd;
  return budget !== null && spent >= budget ? { reason: 'budget', spent_usd: spent, budget_usd: budget } : null;
}

/** A paging alert opens an incident when `auto_open_incidents` and its severity reaches `incident_severity_floor`. */
export function opensIncident(severity: AlertSeverity, settings: Settings): boolean {
  return settings.auto_open_incidents && SEVERITY_RANK[severity] >= SEVERITY_RANK[settings.incident_severity_floor];
}

export function incidentTitle(alertTitle: string, stormId: string | null): string {
  return stormId ? `Alert storm: ${alertTitle} and others` : alertTitle;
}

/** What a person can do to an alert (through its operations), each the same step a source's event takes. */
export const PERSON_ACTIONS = ['acknowledge', 'unacknowledge', 'resolve', 'reopen'] as const;
export type PersonAction = (typeof PERSON_ACTIONS)[number];

/**
 * Whether a person's action applies to an alert in this state: `unchanged` when the alert is already where the action
 * leads (a repeat: 200, no consequence), `conflict` when it cannot lead there from here (409).
 * acknowledge: firing or muted → acknowledged (resolved: reopen it first); unacknowledge: acknowledged → firing
 * (resolved: nothing to take back); resolve: anything not resolved → resolved; reopen: resolved → fires again.
 */
export function actionPath(action: PersonAction, status: AlertState): 'apply' | 'unchanged' | 'conflict' {
  switch (action) {
    case 'acknowledge':
      return status === 'acknowledged' ? 'unchanged' : status === 'resolved' ? 'conflict' : 'apply';
    case 'unacknowledge':
      return status === 'acknowledged' ? 'apply' : status === 'resolved' ? 'conflict' : 'unchanged';
    case 'resolve':
      return status === 'resolved' ? 'unchanged' : 'apply';
    case 'reopen':
      return status === 'resolved' ? 'apply' : 'unchanged';
  }
}
