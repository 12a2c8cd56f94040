/**
 * The alert pipeline: the normalized events of one delivery, in one transaction (a 2xx answer means every
 * consequence is committed). Per event, the alert is found by fingerprint and locked (a row lock: concurrent
 * deliveries of one alert queue up, so 50 of them create one alert and page once), then:
 *
 * - firing, new or back from resolved:
 *   - an in-force mute matches title, source or fingerprint → stored `muted`; no page, no investigation;
 *   - it resolved less than `alert_refire_cooldown_minutes` ago → quiet (`cooldown`): the chat thread is updated,
 *     nobody is paged, no investigation, no outbound rule; 0 turns the cooldown off;
 *   - otherwise it is raised (an alert raised before records the cycle that ended, `cycle_ended`: its raise,
 *     acknowledgement and resolution, which the alert row then forgets): under a per-organization lock (so the count is exact), if a storm is active (an
 *     alert joined it less than `alert_storm_window_seconds` ago) the alert joins it quietly; else if it makes
 *     `alert_storm_threshold` alerts raised within the window, a storm is formed of them and pages once; else
 *     the alert pages and opens a chat thread. A paging alert (or storm) requests an automatic investigation
 *     unless `investigation_paused`, one was requested for the alert within `investigation_cooldown_minutes`, or
 *     the month's AI spend reached `monthly_ai_budget_usd` (a request is a row plus a job on the `investigations`
 *     queue, enqueued in this transaction; domain/ai/investigations.ts runs it); and opens an incident when `auto_open_incidents` and
 *     its severity reaches `incident_severity_floor` (a storm opens one incident for all of its alerts);
 * - firing, already firing → `duplicate` (details refreshed, nothing pages); firing, acknowledged → back to firing
 *   (`unacknowledged`: the pager took the acknowledgement back), nothing pages;
 * - acknowledged (pager) → kept in step; resolved → resolved, and its incident closed when
 *   `auto_close_incidents` and no alert of it still fires; an event that says only the state (`state_only`: an
 *   Events API acknowledge or resolve) changes an alert that exists and keeps its details, and creates none.
 * Every consequence is an effect row on the alert (`EFFECT_KINDS`). Whom a page reaches is the alert routes'
 * decision (domain/paging/routing.ts); which events go out to outbound configs is outbound/alerts.ts's to decide,
 * handed that decision; its deliveries are enqueued in this transaction.
 *
 * A person's actions on alerts and incidents (alert-actions.ts, incident-actions.ts) run through these same steps
 * (`actOnAlerts`): acknowledge as the pager's acknowledgement, un-acknowledge as its un-acknowledge, resolve as a
 * resolved event, reopen as the alert firing again; with the row lock, the announcer and the effects of a delivery,
 * each effect recording `by` (who).
 *
 * This file runs the steps; the decisions are rules.ts's (pure), the SQL store.ts's, and the writes nothing reads
 * back wait in write-batcher.ts to go out together.
 */
import { randomUUID } from 'node:crypto';
import { DeadlockException } from '@mikro-orm/core';
import type { Organization } from '../../engine/auth/caller.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import { pairQuery, selectRows } from '../../engine/persistence/sql.ts';
import type { AlertEvent } from './event.ts';
import { enqueueInvestigation } from '../ai/investigations.ts';
import { AlertAnnouncer } from '../../outbound/alerts.ts';
import { outboundQuery } from '../../outbound/rules.ts';
import { routedEffects, routeFire, routesQuery, type Route, type Routing } from '../paging/routing.ts';
import { startEscalations, wakeEscalations, type PagedTeam } from '../paging/escalations.ts';
import type { Actor, Effect, EffectKind, EventResult, Outcome } from './outcomes.ts';
import { policyQuery, type Policy } from './policy.ts';
import { monthStart } from '../ai/spend.ts';
import {
  acknowledgedPath, actionPath, budgetRefusal, cooldownRefusal, firingPath, formsStorm, inRefireCooldown, incidentTitle, investigationCooldownStart,
  matchingMute, muteEffect, opensIncident, pausedRefusal, shownSeverity, stormWindow, type AlertState, type PersonAction, type Refusal, type StormWindow,
} from './rules.ts';
import { AlertStore, refreshRepeats, type AlertRow, type IncidentRow, type StormState } from './store.ts';
import { WriteBatcher } from './write-batcher.ts';

const DEADLOCK_RETRIES = 3;

/** One delivery's events: all or nothing. Retried on a deadlock (two deliveries locking alerts in turn). */
export async function ingestAlerts(services: Services, organization: Organization, events: readonly AlertEvent[], now: Date): Promise<EventResult[]> {
  const results: EventResult[] = new Array(events.length);
  const repeated = await refreshRepeats(readStore(services).execute, organization.id, events, now);
  const rest: { event: AlertEvent; index: number }[] = [];
  events.forEach((event, index) => {
    const id = repeated.get(event.fingerprint);
    if (id) results[index] = { fingerprint: event.fingerprint, alertId: id, outcome: 'duplicate' };
    else rest.push({ event, index });
  });
  if (rest.length === 0) return results;
  // one lock order for every delivery: by fingerprint (a stable sort keeps one alert's events in order)
  rest.sort((a, b) => (a.event.fingerprint < b.event.fingerprint ? -1 : a.event.fingerprint > b.event.fingerprint ? 1 : 0));
  return pipelineTransaction(services, organization, now, null, async (run) => {
    for (const { event, index } of rest) results[index] = await run.event(event);
    return results;
  });
}

/** What became of a person's action on one alert (rules.ts `actionPath`), and its status before and after. */
export interface ActionResult {
  outcome: 'applied' | 'unchanged' | 'conflict';
  from: AlertState;
  to: AlertState;
}

/** What a person's actions may ask of the pipeline (alert-actions.ts, incident-actions.ts): each the step a source's event would take. */
export interface PersonActions {
  /** the action on one alert of the organization: null when it has none of that id */
  act(alertId: string, action: PersonAction): Promise<ActionResult | null>;
  /** closes the incident if open (its consequences recorded on `alertId`, one of its alerts); false when it was not */
  closeIncident(incidentId: string, alertId: string | null): Promise<boolean>;
  /** opens the incident again if closed; false when it was not */
  reopenIncident(incidentId: string, alertId: string | null): Promise<boolean>;
}

/**
 * A person's actions on alerts and incidents, through the same steps, store, announcer and effects as a source's
 * events, in one transaction (`work` may write its own rows through `store` in it). Every effect records `by`.
 */
export function actOnAlerts<T>(services: Services, organization: Organization, by: Actor, now: Date, work: (actions: PersonActions, store: FamilyStore) => Promise<T>): Promise<T> {
  return pipelineTransaction(services, organization, now, by, work);
}

/**
 * One run of the pipeline: the policy and outbound rules read once, then one transaction (retried on a deadlock, two
 * runs locking alerts in turn) that ends by writing the effects and enqueueing the announcer's deliveries.
 */
async function pipelineTransaction<T>(services: Services, organization: Organization, now: Date, by: Actor | null, work: (run: Ingestion, store: FamilyStore) => Promise<T>): Promise<T> {
  const [policy, [outbound, routes]] = await selectRows(
    readStore(services).execute, policyQuery(services, organization.id, now), pairQuery(outboundQuery(services, organization.id), routesQuery(services, organization.id)),
  );
  for (let attempt = 1; ; attempt++) {
    const started: string[] = [];
    try {
      const committed = await inTransaction(services, async (store) => {
        const announce = new AlertAnnouncer(organization.id, outbound, now);
        const window = stormWindow(policy.settings, now);
        const alerts = new AlertStore(new WriteBatcher(store.execute), organization.id, now, window);
        // an investigation's job commits with its row (the same transaction)
        const escalate = async (alertId: string, incidentId: string | null, teams: readonly PagedTeam[]) => {
          const effects = await startEscalations(services, store.execute, organization.id, alertId, incidentId, teams, now);
          for (const e of effects) if (!e.detail.joined) started.push(String(e.detail.escalation_id));
          return effects;
        };
        const run = new Ingestion(alerts, policy, window, now, (id) => enqueueInvestigation(services, store, id), announce, routes, by, escalate);
        const result = await work(run, store);
        await run.finish();
        await announce.enqueue(services, store);
        return result;
      });
      // a page's first step runs as the page commits, not at the next pass
      wakeEscalations(services, started);
      return committed;
    } catch (error) {
      if (!(error instanceof DeadlockException) || attempt >= DEADLOCK_RETRIES) throw error;
    }
  }
}

/**
 * One delivery's events, in order (or one person's actions): facts from the store, decisions from rules.ts,
 * consequences as effects.
 */
class Ingestion implements PersonActions {
  readonly #store: AlertStore;
  readonly #policy: Policy;
  readonly #window: StormWindow;
  readonly #now: Date;
  readonly #effects: Effect[] = [];
  #spent: number | undefined;
  readonly #enqueue: (investigationId: string) => Promise<void>;
  readonly #announce: AlertAnnouncer;
  /** the organization's enabled alert routes, in order (domain/paging/routing.ts decides whom a fire pages) */
  readonly #routes: readonly Route[];
  /** the person whose action this is (null: a source's events) */
  readonly #by: Actor | null;
  /** starts the escalation of each paged team (domain/paging/escalations.ts), for the alert or its incident */
  readonly #escalate: (alertId: string, incidentId: string | null, paged: readonly PagedTeam[]) => Promise<{ kind: EffectKind; detail: Record<string, unknown> }[]>;

  constructor(
    store: AlertStore, policy: Policy, window: StormWindow, now: Date, enqueue: (investigationId: string) => Promise<void>, announce: AlertAnnouncer, routes: readonly Route[], by: Actor | null,
    escalate: (alertId: string, incidentId: string | null, paged: readonly PagedTeam[]) => Promise<{ kind: EffectKind; detail: Record<string, unknown> }[]>,
  ) {
    this.#store = store;
    this.#policy = policy;
    this.#window = window;
    this.#now = now;
    this.#enqueue = enqueue;
    this.#announce = announce;
    this.#routes = routes;
    this.#by = by;
    this.#escalate = escalate;
  }

  get #settings() {
    return this.#policy.settings;
  }

  #effect(alertId: string, kind: EffectKind, detail: Record<string, unknown> = {}): void {
    this.#effects.push({ alertId, kind, detail: this.#by ? { ...detail, by: this.#by } : detail });
  }

  async event(event: AlertEvent): Promise<EventResult> {
    if (event.state_only) return this.#stateOnly(event);
    const found = event.status === 'resolved' ? await this.#existing(event.fingerprint) : await this.#findOrCreate(event);
    if (!found) return { fingerprint: event.fingerprint, alertId: null, outcome: 'unknown alert' };
    const { alert, created } = found;
    if (event.status !== 'resolved') alert.severity = shownSeverity(alert.severity_override, event); // the product's current view, unless routed
    const outcome = event.status === 'firing' ? await this.#firing(alert, event, created, found.storm)
      : event.status === 'acknowledged' ? this.#acknowledged(alert, created, event)
        : await this.#resolved(alert, event);
    this.#store.save(alert, event, created);
    return { fingerprint: event.fingerprint, alertId: alert.id, outcome };
  }

  /**
   * An event that says only the new state (an Events API acknowledge or resolve): what the source last said of the
   * alert stands for the event, so its details stay; an alert never seen is not created.
   */
  async #stateOnly(sent: AlertEvent): Promise<EventResult> {
    const locked = await this.#store.lock(sent.fingerprint);
    const found = locked ? await this.#store.lockById(locked.id, sent.status) : null;
    if (!found) return { fingerprint: sent.fingerprint, alertId: null, outcome: 'unknown alert' };
    const { alert, event } = found;
    const outcome = event.status === 'acknowledged' ? this.#acknowledged(alert, false, event)
      : event.status === 'resolved' ? await this.#resolved(alert, event)
        : await this.#firing(alert, event, false);
    this.#store.saveState(alert);
    return { fingerprint: sent.fingerprint, alertId: alert.id, outcome };
  }

  async act(alertId: string, action: PersonAction): Promise<ActionResult | null> {
    const found = await this.#store.lockById(alertId, action === 'acknowledge' ? 'acknowledged' : action === 'resolve' ? 'resolved' : 'firing');
    if (!found) return null;
    const { alert, event } = found;
    const from = alert.status;
    const path = actionPath(action, from);
    if (path !== 'apply') return { outcome: path, from, to: from };
    if (action === 'acknowledge') this.#acknowledged(alert, false, event);
    else if (action === 'resolve') await this.#resolved(alert, event);
    // un-acknowledge (acknowledged → firing, as the pager's) and reopen (resolved → fires again: mute, cooldown, storm, page)
    else await this.#firing(alert, event, false);
    this.#store.saveState(alert);
    return { outcome: 'applied', from, to: alert.status };
  }

  async closeIncident(incidentId: string, alertId: string | null): Promise<boolean> {
    const incident = await this.#store.lockOpenIncident(incidentId);
    if (!incident) return false;
    const found = alertId ? await this.#store.lockById(alertId, 'resolved') : null;
    await this.#closeIncident(incidentId, incident, found);
    return true;
  }

  async reopenIncident(incidentId: string, alertId: string | null): Promise<boolean> {
    const incident = await this.#store.lockIncident(incidentId);
    if (!incident || incident.status !== 'closed') return false;
    await this.#store.reopenIncident(incidentId);
    const found = alertId ? await this.#store.lockById(alertId, 'firing') : null;
    if (found) {
      this.#effect(found.alert.id, 'incident_reopened', { incident_id: incidentId });
      this.#announce.incident('incident.opened', {
        id: incidentId, title: incident.title, severity: incident.severity, status: 'open', opened_at: incident.opened_at.toISOString(), closed_at: null, storm_id: incident.storm_id,
      }, found.alert, found.event);
    }
    return true;
  }

  async #existing(fingerprint: string): Promise<{ alert: AlertRow; created: false; storm?: undefined } | null> {
    const alert = await this.#store.lock(fingerprint);
    return alert ? { alert, created: false } : null;
  }

  /**
   * The alert, locked; created first when new (a concurrent creator's insert makes this one wait, then read).
   * A new firing alert no mute silences will be raised: its first storm check comes back with the insert.
   */
  async #findOrCreate(event: AlertEvent): Promise<{ alert: AlertRow; created: boolean; storm?: StormState }> {
    const status = event.status === 'acknowledged' ? 'acknowledged' : 'firing';
    const raising = status === 'firing' && !matchingMute(this.#policy.mutes, event);
    const inserted = await this.#store.create(randomUUID(), event, status, raising);
    if (inserted) return { ...inserted, created: true };
    return { alert: (await this.#store.lock(event.fingerprint))!, created: false };
  }

  async #firing(alert: AlertRow, event: AlertEvent, created: boolean, storm?: StormState): Promise<Outcome> {
    const path = firingPath(alert.status, created);
    if (path === 'duplicate') return 'duplicate';
    if (path === 'unacknowledged') {
      // the pager un-acknowledged it (or reports it triggered again): in step, but it already paged
      alert.status = 'firing';
      alert.acknowledged_at = null;
      if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', this.#announce.chatUpdate('alert.fired', { reason: 'unacknowledged' }));
      this.#announce.chatOnly('unacknowledged', alert, event);
      return 'unacknowledged';
    }
    const routing = routeFire(this.#routes, event);
    alert.severity_override = routing?.severity ?? null;
    alert.severity = shownSeverity(alert.severity_override, event);
    for (const detail of routedEffects(routing)) this.#effect(alert.id, 'routed', detail);
    const mute = matchingMute(this.#policy.mutes, event);
    if (mute) {
      if (alert.status === 'muted' && !created) return 'muted';
      alert.status = 'muted';
      alert.muted_by = mute.id;
      this.#effect(alert.id, 'muted', muteEffect(mute));
      this.#effect(alert.id, 'page_skipped', { reason: 'muted' });
      this.#effect(alert.id, 'investigation_skipped', { reason: 'muted' });
      return 'muted';
    }
    alert.muted_by = null;
    if (inRefireCooldown(alert, this.#settings, this.#now)) {
      alert.status = 'firing';
      alert.resolved_at = null;
      if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', this.#announce.chatUpdate('alert.fired', { reason: 'fired again inside the re-fire cooldown' }));
      this.#announce.chatOnly('quiet_refire', alert, event);
      this.#effect(alert.id, 'page_skipped', { reason: 'refire_cooldown', cooldown_minutes: this.#settings.alert_refire_cooldown_minutes });
      this.#effect(alert.id, 'investigation_skipped', { reason: 'refire_cooldown' });
      return 'cooldown';
    }
    return this.#raise(alert, created ? 'created' : 'fired', event, routing, storm);
  }

  /**
   * The page the pipeline decided on, shaped by the alert's routes and announced as alert.fired; then its chat post.
   * Both effects say what happened: who was reached by which channel, or why no one was (outbound/alerts.ts).
   */
  #page(alert: AlertRow, event: AlertEvent, routing: Routing | null, detail: Record<string, unknown>, storm: { id: string; alerts: number } | null, chat: Record<string, unknown>): void {
    const reach = this.#announce.fired(alert, event, routing, storm);
    const page = this.#announce.page(detail, routing, reach);
    this.#effect(alert.id, page.kind, page.detail);
    this.#effect(alert.id, 'chat_post', this.#announce.chatPost(chat, reach));
    alert.chat_thread = true;
  }

  /** A loud fire: joins or forms a storm, or pages on its own; then investigation and incident. */
  async #raise(alert: AlertRow, outcome: 'created' | 'fired', event: AlertEvent, routing: Routing | null, prefetched?: StormState): Promise<Outcome> {
    // the cycle this raise ends keeps its times (the alert row holds only the latest cycle's): insights measure every cycle
    if (outcome === 'fired' && alert.raised_at) {
      this.#effect(alert.id, 'cycle_ended', { raised_at: alert.raised_at.toISOString(), acknowledged_at: alert.acknowledged_at?.toISOString() ?? null, resolved_at: alert.resolved_at?.toISOString() ?? null });
    }
    alert.status = 'firing';
    alert.resolved_at = null;
    alert.acknowledged_at = null;
    alert.raised_at = this.#now;
    // joining an active storm needs no lock (it writes only this alert); deciding to page or to form one does
    let state = prefetched ?? await this.#store.stormState(alert.id);
    let refusal: Refusal | null = null;
    if (!state.storm) {
      refusal = await this.#investigationRefusal(alert, outcome === 'created');
      await this.#store.lockStorms();
      state = await this.#store.stormState(alert.id);
    }
    const active = state.storm;
    if (active) {
      alert.storm_id = active.id;
      this.#effect(alert.id, 'storm_grouped', { storm_id: active.id });
      this.#effect(alert.id, 'page_skipped', { reason: 'storm', storm_id: active.id });
      this.#effect(alert.id, 'investigation_skipped', { reason: 'storm', storm_id: active.id });
      await this.#incident(alert, active.id, event);
      return 'storm';
    }
    if (formsStorm(state.raised, this.#window)) {
      const stormId = randomUUID();
      const { grouped } = await this.#store.formStorm(stormId, alert.id);
      const size = grouped.length + 1;
      for (const other of grouped) this.#effect(other, 'storm_grouped', { storm_id: stormId, alerts: size });
      alert.storm_id = stormId;
      this.#effect(alert.id, 'storm_grouped', { storm_id: stormId, alerts: size });
      this.#page(alert, event, routing, { reason: 'storm', storm_id: stormId, alerts: size }, { id: stormId, alerts: size }, { reason: 'storm', storm_id: stormId });
      await this.#investigate(alert, stormId, refusal);
      // an incident one of the grouped alerts already opened became the storm's (formStorm)
      await this.#incident(alert, stormId, event);
      await this.#startEscalations(alert, routing);
      return outcome;
    }
    alert.storm_id = null;
    this.#page(alert, event, routing, { reason: outcome === 'created' ? 'alert fired' : 'alert fired again' }, null, {});
    await this.#investigate(alert, null, refusal);
    await this.#incident(alert, null, event);
    await this.#startEscalations(alert, routing);
    return outcome;
  }

  /** The page's escalations: one per paged team, for the alert's incident when it is in one (after #incident decided that). */
  async #startEscalations(alert: AlertRow, routing: Routing | null): Promise<void> {
    if (!routing?.paged.length) return;
    // an incident id left from a closed incident (this fire opened none) is not the page's subject
    const incident = alert.incident_id && (await this.#store.incidentOpen(alert.incident_id)) ? alert.incident_id : null;
    for (const e of await this.#escalate(alert.id, incident, routing.paged)) this.#effect(alert.id, e.kind, e.detail);
  }

  /**
   * Why no automatic investigation may start for this alert (paused, cooldown, budget), or null. Read before the
   * storm lock is taken: nothing it reads depends on the storm decision, and the lock is held for less.
   */
  async #investigationRefusal(alert: AlertRow, created: boolean): Promise<Refusal | null> {
    const s = this.#settings;
    const paused = pausedRefusal(s);
    if (paused) return paused;
    const since = investigationCooldownStart(s, this.#now, created);
    if (since) {
      const recent = await this.#store.recentInvestigation(alert.id, since);
      if (recent) return cooldownRefusal(s, recent);
    }
    if (s.monthly_ai_budget_usd !== null) {
      this.#spent ??= await this.#store.monthSpend(monthStart(this.#now, s.timezone));
      return budgetRefusal(s, this.#spent);
    }
    return null;
  }

  async #investigate(alert: AlertRow, stormId: string | null, refusal: Refusal | null): Promise<void> {
    if (refusal) return this.#effect(alert.id, 'investigation_skipped', refusal);
    const id = randomUUID();
    this.#store.requestInvestigation(id, alert.id, stormId);
    await this.#enqueue(id);
    this.#effect(alert.id, 'investigation_requested', { investigation_id: id, ...(stormId ? { storm_id: stormId } : {}) });
  }

  /** Opens (or, in a storm that has one, joins) an incident when the settings ask for it. */
  async #incident(alert: AlertRow, stormId: string | null, event: AlertEvent): Promise<void> {
    if (!opensIncident(alert.severity, this.#settings)) return;
    if (stormId) {
      const joined = await this.#store.stormIncident(stormId);
      if (joined) {
        alert.incident_id = joined;
        this.#effect(alert.id, 'incident_joined', { incident_id: alert.incident_id, storm_id: stormId });
        return;
      }
    } else if (alert.incident_id && (await this.#store.incidentOpen(alert.incident_id))) {
      return; // still in its open incident
    }
    const id = randomUUID();
    const title = incidentTitle(alert.title, stormId);
    await this.#store.openIncident(id, title, alert.severity, stormId);
    alert.incident_id = id;
    this.#effect(alert.id, 'incident_opened', { incident_id: id, ...(stormId ? { storm_id: stormId } : {}) });
    this.#announce.incident('incident.opened', { id, title, severity: alert.severity, status: 'open', opened_at: this.#now.toISOString(), closed_at: null, storm_id: stormId }, alert, event);
  }

  #acknowledged(alert: AlertRow, created: boolean, event: AlertEvent): Outcome {
    const path = acknowledgedPath(alert.status, created);
    if (path === 'duplicate') return 'duplicate';
    alert.acknowledged_at = this.#now;
    if (path === 'created') return 'acknowledged';
    alert.status = 'acknowledged';
    if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', this.#announce.chatUpdate('alert.acknowledged', { reason: 'acknowledged' }));
    this.#announce.changed('alert.acknowledged', alert, event);
    return 'acknowledged';
  }

  async #resolved(alert: AlertRow, event: AlertEvent): Promise<Outcome> {
    if (alert.status === 'resolved') return 'duplicate';
    alert.status = 'resolved';
    alert.resolved_at = this.#now;
    if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', this.#announce.chatUpdate('alert.resolved', { reason: 'resolved' }));
    this.#announce.changed('alert.resolved', alert, event);
    if (this.#settings.auto_close_incidents && alert.incident_id) {
      const incident = await this.#store.lockOpenIncident(alert.incident_id);
      if (incident && !(await this.#store.incidentStillFiring(alert.incident_id, alert.id))) await this.#closeIncident(alert.incident_id, incident, { alert, event });
    }
    return 'resolved';
  }

  /** Closes the incident (locked open), recorded on the alert whose resolve (or whose person) closed it. */
  async #closeIncident(incidentId: string, incident: IncidentRow, by: { alert: AlertRow; event: AlertEvent } | null): Promise<void> {
    await this.#store.closeIncident(incidentId, this.#by);
    if (!by) return;
    this.#effect(by.alert.id, 'incident_closed', { incident_id: incidentId });
    this.#announce.incident('incident.closed', {
      id: incidentId, title: incident.title, severity: incident.severity, status: 'closed',
      opened_at: incident.opened_at.toISOString(), closed_at: this.#now.toISOString(), storm_id: incident.storm_id,
    }, by.alert, by.event);
  }

  /** The effects and every held write, sent. */
  finish(): Promise<void> {
    return this.#store.finish(this.#effects);
  }
}
