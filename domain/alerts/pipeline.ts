/**
 * The alert pipeline: the normalized events of one delivery, in one transaction (a 2xx answer means every
 * consequence is committed). Per event, the alert is found by fingerprint and locked (a row lock: concurrent
 * deliveries of one alert queue up, so 50 of them create one alert and page once), then:
 *
 * - firing, new or back from resolved:
 *   - an in-force mute matches title, source or fingerprint → stored `muted`; no page, no investigation;
 *   - it resolved less than `alert_refire_cooldown_minutes` ago → quiet (`cooldown`): the chat thread is updated,
 *     nobody is paged, no investigation, no outbound rule; 0 turns the cooldown off;
 *   - otherwise it is raised: under a per-organization lock (so the count is exact), if a storm is active (an
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
 *   `auto_close_incidents` and no alert of it still fires.
 * Every consequence is an effect row on the alert (`EFFECT_KINDS`). Whom a page reaches (alert routes) and which
 * events go out to outbound configs is outbound/alerts.ts's to decide; its deliveries are enqueued in
 * this transaction.
 */
import { randomUUID } from 'node:crypto';
import { DeadlockException } from '@mikro-orm/core';
import type { Organization } from '../../engine/auth/caller.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/operations/types.ts';
import { prepared, selectRows } from '../../engine/persistence/sql.ts';
import { parseTimestamp, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { AlertEvent, AlertSeverity } from '../../webhooks/sources/types.ts';
import { enqueueInvestigation } from '../ai/investigations.ts';
import { AlertAnnouncer } from '../../outbound/alerts.ts';
import { outboundQuery } from '../../outbound/rules.ts';
import type { Routing } from '../../outbound/routing.ts';
import { matchingMute, policyQuery, type Policy } from './policy.ts';
import { monthSpend, monthStart } from '../ai/spend.ts';

export const EFFECT_KINDS = [
  'routed', 'page', 'page_skipped', 'chat_post', 'chat_thread_update', 'muted', 'storm_grouped',
  'investigation_requested', 'investigation_skipped', 'incident_opened', 'incident_joined', 'incident_closed',
] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** What became of one event (the delivery log's outcome). */
export type Outcome = 'created' | 'fired' | 'storm' | 'muted' | 'cooldown' | 'duplicate' | 'acknowledged' | 'unacknowledged' | 'resolved' | 'unknown alert';

export interface EventResult {
  fingerprint: string;
  alertId: string | null;
  outcome: Outcome;
}


interface AlertRow {
  id: string;
  status: 'firing' | 'acknowledged' | 'resolved' | 'muted';
  severity: AlertSeverity;
  /** the severity its routes set at its last fire, which repeats and acknowledgements keep */
  severity_override: AlertSeverity | null;
  title: string;
  resolved_at: Date | null;
  chat_thread: boolean;
  storm_id: string | null;
  incident_id: string | null;
  muted_by: string | null;
  raised_at: Date | null;
  acknowledged_at: Date | null;
}

/** The storm decision's inputs (Ingestion.#stormState). */
interface StormState {
  storm: { id: string } | null;
  raised: number;
}

interface Effect {
  alertId: string;
  kind: EffectKind;
  detail: Record<string, unknown>;
}

const SEVERITY_RANK: Record<AlertSeverity, number> = { critical: 4, high: 3, warning: 2, info: 1 };
const MINUTE = 60_000;
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
  const [policy, outbound] = await selectRows(readStore(services).execute, policyQuery(services, organization.id, now), outboundQuery(services, organization.id, true));
  // one lock order for every delivery: by fingerprint (a stable sort keeps one alert's events in order)
  rest.sort((a, b) => (a.event.fingerprint < b.event.fingerprint ? -1 : a.event.fingerprint > b.event.fingerprint ? 1 : 0));
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(services, async (store) => {
        // an investigation's job commits with its row (the same transaction)
        const announce = new AlertAnnouncer(organization.id, outbound, now);
        const run = new Ingestion(store.execute, organization.id, policy, now, (id) => enqueueInvestigation(services, store, id), announce);
        for (const { event, index } of rest) results[index] = await run.event(event);
        await run.finish();
        await announce.enqueue(services, store);
        return results;
      });
    } catch (error) {
      if (!(error instanceof DeadlockException) || attempt >= DEADLOCK_RETRIES) throw error;
    }
  }
}

/**
 * Repeats of alerts already firing (products re-send an alert until it resolves) change nothing
 * but the product's details and the count: one statement refreshes them all, no policy read, no transaction.
 * An alert whose fingerprint appears twice in the delivery goes the full way, so its events keep their order.
 */
async function refreshRepeats(sql: Sql, organizationId: string, events: readonly AlertEvent[], now: Date): Promise<Map<string, string>> {
  const seen = new Map<string, number>();
  for (const e of events) seen.set(e.fingerprint, (seen.get(e.fingerprint) ?? 0) + 1);
  const candidates = events.filter((e) => e.status === 'firing' && seen.get(e.fingerprint) === 1);
  if (candidates.length === 0) return new Map();
  const set = `title = v.title, service = v.service, severity = coalesce(a.severity_override, v.severity), summary = v.summary, labels = v.labels, url = v.url,
               external_id = v.external_id, last_received_at = ?, occurrences = a.occurrences + 1, updated_at = ?`;
  if (candidates.length === 1) {
    // the common delivery, one alert: plain parameters are cheaper for PostgreSQL than a JSON recordset
    const e = candidates[0]!;
    const rows = await sql(
      prepared(`update alerts a set ${set}
         from (select ?::text as title, ?::text as service, ?::text as severity, ?::text as summary, ?::jsonb as labels,
                      ?::text as url, ?::text as external_id) v
        where a.organization_id = ? and a.fingerprint = ? and a.status = 'firing'
        returning a.fingerprint, a.id`),
      [now, now, e.title, e.service ?? null, e.severity, e.summary ?? null, JSON.stringify(e.labels), e.url ?? null, e.external_id ?? null,
        organizationId, e.fingerprint],
    );
    return new Map(rows.map((r) => [String(r.fingerprint), String(r.id)]));
  }
  const values = candidates.map((e) => ({
    fingerprint: e.fingerprint, title: e.title, service: e.service ?? null, severity: e.severity, summary: e.summary ?? null,
    labels: e.labels, url: e.url ?? null, external_id: e.external_id ?? null,
  }));
  const rows = await sql(
    `update alerts a set ${set}
       from jsonb_to_recordset(?::jsonb) as v(fingerprint text, title text, service text, severity text, summary text,
                                             labels jsonb, url text, external_id text)
      where a.organization_id = ? and a.fingerprint = v.fingerprint and a.status = 'firing'
      returning a.fingerprint, a.id`,
    [now, now, JSON.stringify(values), organizationId],
  );
  return new Map(rows.map((r) => [String(r.fingerprint), String(r.id)]));
}

function alertRow(record: Record<string, any>): AlertRow {
  const time = (v: unknown) => (v === null || v === undefined ? null : (parseTimestamp(v) as Date));
  return {
    id: String(record.id), status: record.status, severity: record.severity, severity_override: record.severity_override ?? null, title: String(record.title),
    resolved_at: time(record.resolved_at), chat_thread: record.chat_thread === true, storm_id: record.storm_id ?? null,
    incident_id: record.incident_id ?? null, muted_by: record.muted_by ?? null, raised_at: time(record.raised_at),
    acknowledged_at: time(record.acknowledged_at),
  };
}

/**
 * The storm of the latest alert raised inside the window (a storm lasts while alerts keep joining it), and how
 * many other alerts were raised inside the window, counted up to the threshold (a long storm's window may
 * hold thousands). Parameters: Ingestion.#stormParams.
 */
const STORM_STATE = `(select a.storm_id from alerts a where a.organization_id = ? and a.raised_at > ? and a.storm_id is not null and a.id <> ?
                        order by a.raised_at desc limit 1) as storm,
                     (select count(*)::int from (select 1 from alerts where organization_id = ? and raised_at > ? and id <> ? limit ?) r) as raised`;

function stormState(row: Record<string, unknown> | undefined): StormState {
  return { storm: row?.storm ? { id: String(row.storm) } : null, raised: Number(row?.raised ?? 0) };
}

const ALERT_COLUMNS = 'id, status, severity, severity_override, title, resolved_at, chat_thread, storm_id, incident_id, muted_by, raised_at, acknowledged_at';

class Ingestion {
  readonly #execute: Sql;
  /** writes nothing in this transaction reads back: sent together, before the next statement or at the end */
  readonly #deferred: { sql: string; params: unknown[] }[] = [];
  readonly #org: string;
  readonly #policy: Policy;
  readonly #now: Date;
  readonly #effects: Effect[] = [];
  #stormLocked = false;
  #spent: number | undefined;
  readonly #enqueue: (investigationId: string) => Promise<void>;
  readonly #announce: AlertAnnouncer;

  constructor(sql: Sql, organizationId: string, policy: Policy, now: Date, enqueue: (investigationId: string) => Promise<void>, announce: AlertAnnouncer) {
    this.#execute = sql;
    this.#org = organizationId;
    this.#policy = policy;
    this.#now = now;
    this.#enqueue = enqueue;
    this.#announce = announce;
  }

  get #settings() {
    return this.#policy.settings;
  }

  /** Every statement but the deferred writes: those go first, so what it reads includes them. */
  readonly #sql: Sql = async (sql, params) => {
    await this.#flush();
    return this.#execute(sql, params);
  };

  /** A write no later statement of this delivery depends on seeing, nor writes the same row as another deferred one. */
  #defer(sql: string, params: unknown[]): void {
    this.#deferred.push({ sql, params });
  }

  /** The deferred writes in one statement (data-modifying WITH clauses all run, on one snapshot). */
  async #flush(): Promise<void> {
    if (this.#deferred.length === 0) return;
    const writes = this.#deferred.splice(0);
    // writes by key: prepared (the texts differ only by which writes and how many effect rows)
    if (writes.length === 1) await this.#execute(prepared(writes[0]!.sql), writes[0]!.params);
    else await this.#execute(prepared(`with ${writes.map((w, i) => `w${i} as (${w.sql})`).join(', ')} select 1`), writes.flatMap((w) => w.params));
  }

  #effect(alertId: string, kind: EffectKind, detail: Record<string, unknown> = {}): void {
    this.#effects.push({ alertId, kind, detail });
  }

  async event(event: AlertEvent): Promise<EventResult> {
    const found = event.status === 'resolved' ? await this.#existing(event.fingerprint) : await this.#findOrCreate(event);
    if (!found) return { fingerprint: event.fingerprint, alertId: null, outcome: 'unknown alert' };
    const { alert, created } = found;
    if (event.status !== 'resolved') alert.severity = alert.severity_override ?? event.severity; // the product's current view, unless routed
    const outcome = event.status === 'firing' ? await this.#firing(alert, event, created, found.storm)
      : event.status === 'acknowledged' ? this.#acknowledged(alert, created, event)
        : await this.#resolved(alert, event);
    this.#save(alert, event, created);
    return { fingerprint: event.fingerprint, alertId: alert.id, outcome };
  }

  async #existing(fingerprint: string): Promise<{ alert: AlertRow; created: false; storm?: undefined } | null> {
    const alert = await this.#lock(fingerprint);
    return alert ? { alert, created: false } : null;
  }

  async #lock(fingerprint: string): Promise<AlertRow | null> {
    const [row] = await this.#sql(prepared(`select ${ALERT_COLUMNS} from alerts where organization_id = ? and fingerprint = ? for update`), [this.#org, fingerprint]);
    return row ? alertRow(row) : null;
  }

  /**
   * The alert, locked; created first when new (a concurrent creator's insert makes this one wait, then read).
   * A new firing alert no mute silences will be raised: its first storm check comes back with the insert.
   */
  async #findOrCreate(event: AlertEvent): Promise<{ alert: AlertRow; created: boolean; storm?: StormState }> {
    const id = randomUUID();
    const status = event.status === 'acknowledged' ? 'acknowledged' : 'firing';
    const started = event.started_at ? new Date(event.started_at) : this.#now;
    const insert = `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, summary, labels, url, external_id,
                                        status, started_at, last_received_at, occurrences, chat_thread, created_at, updated_at)
                    values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, 1, false, ?, ?)
                    on conflict (organization_id, fingerprint) do nothing returning ${ALERT_COLUMNS}`;
    const params = [id, this.#org, event.fingerprint, event.source, event.title, event.service ?? null, event.severity, event.summary ?? null,
      JSON.stringify(event.labels), event.url ?? null, event.external_id ?? null, status,
      Number.isNaN(started.getTime()) ? this.#now : started, this.#now, this.#now, this.#now];
    const raising = status === 'firing' && !matchingMute(this.#policy.mutes, event);
    const [inserted] = raising
      ? await this.#sql(prepared(`with created as (${insert}) select created.*, ${STORM_STATE} from created`), [...params, ...this.#stormParams(id)])
      : await this.#sql(prepared(insert), params);
    if (inserted) return { alert: alertRow(inserted), created: true, ...(raising ? { storm: stormState(inserted) } : {}) };
    return { alert: (await this.#lock(event.fingerprint))!, created: false };
  }

  async #firing(alert: AlertRow, event: AlertEvent, created: boolean, storm?: StormState): Promise<Outcome> {
    if (!created && alert.status === 'firing') return 'duplicate';
    if (!created && alert.status === 'acknowledged') {
      // the pager un-acknowledged it (or reports it triggered again): in step, but it already paged
      alert.status = 'firing';
      alert.acknowledged_at = null;
      if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', { reason: 'unacknowledged' });
      this.#announce.chatOnly('unacknowledged', alert, event);
      return 'unacknowledged';
    }
    const routing = this.#announce.route(event);
    alert.severity_override = routing?.severity ?? null;
    alert.severity = alert.severity_override ?? event.severity;
    for (const detail of this.#announce.routedEffects(routing)) this.#effect(alert.id, 'routed', detail);
    const mute = matchingMute(this.#policy.mutes, event);
    if (mute) {
      if (alert.status === 'muted' && !created) return 'muted';
      alert.status = 'muted';
      alert.muted_by = mute.id;
      this.#effect(alert.id, 'muted', { mute_id: mute.id, pattern: mute.pattern });
      this.#effect(alert.id, 'page_skipped', { reason: 'muted' });
      this.#effect(alert.id, 'investigation_skipped', { reason: 'muted' });
      return 'muted';
    }
    const wasResolved = alert.status === 'resolved';
    alert.muted_by = null;
    const cooldown = this.#settings.alert_refire_cooldown_minutes * MINUTE;
    if (wasResolved && alert.resolved_at && cooldown > 0 && this.#now.getTime() - alert.resolved_at.getTime() < cooldown) {
      alert.status = 'firing';
      alert.resolved_at = null;
      if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', { reason: 'fired again inside the re-fire cooldown' });
      this.#announce.chatOnly('quiet_refire', alert, event);
      this.#effect(alert.id, 'page_skipped', { reason: 'refire_cooldown', cooldown_minutes: this.#settings.alert_refire_cooldown_minutes });
      this.#effect(alert.id, 'investigation_skipped', { reason: 'refire_cooldown' });
      return 'cooldown';
    }
    return this.#raise(alert, created ? 'created' : 'fired', event, routing, storm);
  }

  /** The page the pipeline decided on, shaped by the alert's routes; announced as alert.fired. */
  #page(alert: AlertRow, event: AlertEvent, routing: Routing | null, detail: Record<string, unknown>, storm: { id: string; alerts: number } | null): void {
    const page = this.#announce.page(detail, routing);
    this.#effect(alert.id, page.kind, page.detail);
    this.#announce.fired(alert, event, routing, storm);
  }

  /** A loud fire: joins or forms a storm, or pages on its own; then investigation and incident. */
  async #raise(alert: AlertRow, outcome: 'created' | 'fired', event: AlertEvent, routing: Routing | null, prefetched?: StormState): Promise<Outcome> {
    alert.status = 'firing';
    alert.resolved_at = null;
    alert.acknowledged_at = null;
    alert.raised_at = this.#now;
    const threshold = this.#settings.alert_storm_threshold;
    const since = this.#stormWindowStart();
    // joining an active storm needs no lock (it writes only this alert); deciding to page or to form one does
    let state = prefetched ?? await this.#stormState(alert.id);
    let refusal: Record<string, unknown> | null = null;
    if (!state.storm) {
      refusal = await this.#investigationRefusal(alert, outcome === 'created');
      await this.#lockStorms();
      state = await this.#stormState(alert.id);
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
    // counted up to the threshold only: a long storm's window may hold thousands
    if (state.raised + 1 >= threshold) {
      const stormId = randomUUID();
      const grouped = await this.#sql('update alerts set storm_id = ? where organization_id = ? and raised_at > ? and id <> ? returning id, incident_id', [stormId, this.#org, since, alert.id]);
      const size = grouped.length + 1;
      const adopted = (grouped.find((g) => g.incident_id)?.incident_id as string | undefined) ?? null;
      await this.#sql('insert into alert_storms (id, organization_id, started_at, incident_id) values (?, ?, ?, ?)', [stormId, this.#org, this.#now, adopted]);
      for (const other of grouped) this.#effect(String(other.id), 'storm_grouped', { storm_id: stormId, alerts: size });
      alert.storm_id = stormId;
      this.#effect(alert.id, 'storm_grouped', { storm_id: stormId, alerts: size });
      this.#page(alert, event, routing, { reason: 'storm', storm_id: stormId, alerts: size }, { id: stormId, alerts: size });
      this.#effect(alert.id, 'chat_post', { reason: 'storm', storm_id: stormId });
      alert.chat_thread = true;
      await this.#investigate(alert, stormId, refusal);
      // an incident one of the grouped alerts already opened became the storm's (above)
      await this.#incident(alert, stormId, event);
      return outcome;
    }
    alert.storm_id = null;
    this.#page(alert, event, routing, { reason: outcome === 'created' ? 'alert fired' : 'alert fired again' }, null);
    this.#effect(alert.id, 'chat_post', {});
    alert.chat_thread = true;
    await this.#investigate(alert, null, refusal);
    await this.#incident(alert, null, event);
    return outcome;
  }

  /** STORM_STATE. Only committed alerts count: under the storm lock that is every other raise. */
  async #stormState(alertId: string): Promise<StormState> {
    const [row] = await this.#sql(prepared(`select ${STORM_STATE}`), this.#stormParams(alertId));
    return stormState(row);
  }

  #stormWindowStart(): Date {
    return new Date(this.#now.getTime() - this.#settings.alert_storm_window_seconds * 1000);
  }

  #stormParams(alertId: string): unknown[] {
    const since = this.#stormWindowStart();
    return [this.#org, since, alertId, this.#org, since, alertId, this.#settings.alert_storm_threshold];
  }

  /** Storm counts are exact: raising alerts of one organization take turns (until the transaction ends). */
  async #lockStorms(): Promise<void> {
    if (this.#stormLocked) return;
    await this.#sql('select pg_advisory_xact_lock(hashtext(?))', [`${this.#org}:alert-storms`]);
    this.#stormLocked = true;
  }

  /**
   * Why no automatic investigation may start for this alert (paused, cooldown, budget), or null. Read before the
   * storm lock is taken: nothing it reads depends on the storm decision, and the lock is held for less.
   */
  async #investigationRefusal(alert: AlertRow, created: boolean): Promise<Record<string, unknown> | null> {
    const s = this.#settings;
    if (s.investigation_paused) return { reason: 'paused' };
    // a new alert has had no investigation yet
    if (s.investigation_cooldown_minutes > 0 && !created) {
      const since = new Date(this.#now.getTime() - s.investigation_cooldown_minutes * MINUTE);
      const [recent] = await this.#sql('select id from investigations where organization_id = ? and alert_id = ? and requested_at > ? limit 1', [this.#org, alert.id, since]);
      if (recent) return { reason: 'cooldown', investigation_id: recent.id, cooldown_minutes: s.investigation_cooldown_minutes };
    }
    if (s.monthly_ai_budget_usd !== null) {
      this.#spent ??= await monthSpend(this.#sql, this.#org, monthStart(this.#now, s.timezone));
      if (this.#spent >= s.monthly_ai_budget_usd) return { reason: 'budget', spent_usd: this.#spent, budget_usd: s.monthly_ai_budget_usd };
    }
    return null;
  }

  async #investigate(alert: AlertRow, stormId: string | null, refusal: Record<string, unknown> | null): Promise<void> {
    if (refusal) return this.#effect(alert.id, 'investigation_skipped', refusal);
    const id = randomUUID();
    this.#defer(
      `insert into investigations (id, organization_id, alert_id, storm_id, trigger, status, requested_at) values (?, ?, ?, ?, 'automatic', 'requested', ?)`,
      [id, this.#org, alert.id, stormId, this.#now],
    );
    await this.#enqueue(id);
    this.#effect(alert.id, 'investigation_requested', { investigation_id: id, ...(stormId ? { storm_id: stormId } : {}) });
  }

  /** Opens (or, in a storm that has one, joins) an incident when the settings ask for it. */
  async #incident(alert: AlertRow, stormId: string | null, event: AlertEvent): Promise<void> {
    const s = this.#settings;
    if (!s.auto_open_incidents || SEVERITY_RANK[alert.severity] < SEVERITY_RANK[s.incident_severity_floor]) return;
    if (stormId) {
      // the storm's row lock: two alerts joining at once open one incident between them
      const [storm] = await this.#sql(
        `select i.id from alert_storms st left join incidents i on i.id = st.incident_id and i.status = 'open' where st.id = ? for update of st`, [stormId]);
      if (storm?.id) {
        alert.incident_id = String(storm.id);
        this.#effect(alert.id, 'incident_joined', { incident_id: alert.incident_id, storm_id: stormId });
        return;
      }
    } else if (alert.incident_id) {
      const [open] = await this.#sql(`select id from incidents where id = ? and status = 'open'`, [alert.incident_id]);
      if (open) return; // still in its open incident
    }
    const id = randomUUID();
    await this.#sql(
      `insert into incidents (id, organization_id, title, severity, status, opened_at, storm_id) values (?, ?, ?, ?, 'open', ?, ?)`,
      [id, this.#org, stormId ? `Alert storm: ${alert.title} and others` : alert.title, alert.severity, this.#now, stormId],
    );
    if (stormId) await this.#sql('update alert_storms set incident_id = ? where id = ?', [id, stormId]);
    alert.incident_id = id;
    this.#effect(alert.id, 'incident_opened', { incident_id: id, ...(stormId ? { storm_id: stormId } : {}) });
    const title = stormId ? `Alert storm: ${alert.title} and others` : alert.title;
    this.#announce.incident('incident.opened', { id, title, severity: alert.severity, status: 'open', opened_at: this.#now.toISOString(), closed_at: null, storm_id: stormId }, alert, event);
  }

  #acknowledged(alert: AlertRow, created: boolean, event: AlertEvent): Outcome {
    if (created) {
      alert.acknowledged_at = this.#now;
      return 'acknowledged';
    }
    if (alert.status === 'acknowledged' || alert.status === 'resolved') return 'duplicate';
    alert.status = 'acknowledged';
    alert.acknowledged_at = this.#now;
    if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', { reason: 'acknowledged' });
    this.#announce.changed('alert.acknowledged', alert, event);
    return 'acknowledged';
  }

  async #resolved(alert: AlertRow, event: AlertEvent): Promise<Outcome> {
    if (alert.status === 'resolved') return 'duplicate';
    alert.status = 'resolved';
    alert.resolved_at = this.#now;
    if (alert.chat_thread) this.#effect(alert.id, 'chat_thread_update', { reason: 'resolved' });
    this.#announce.changed('alert.resolved', alert, event);
    if (this.#settings.auto_close_incidents && alert.incident_id) {
      // the incident row lock makes two last alerts resolving at once see each other
      const [incident] = await this.#sql(`select id, title, severity, opened_at, storm_id from incidents where id = ? and status = 'open' for update`, [alert.incident_id]);
      if (incident) {
        const [firing] = await this.#sql(
          `select 1 from alerts where incident_id = ? and id <> ? and status in ('firing', 'acknowledged') limit 1`, [alert.incident_id, alert.id]);
        if (!firing) {
          await this.#sql(`update incidents set status = 'closed', closed_at = ? where id = ?`, [this.#now, alert.incident_id]);
          this.#effect(alert.id, 'incident_closed', { incident_id: alert.incident_id });
          this.#announce.incident('incident.closed', {
            id: alert.incident_id, title: String(incident.title), severity: String(incident.severity), status: 'closed',
            opened_at: (parseTimestamp(incident.opened_at) as Date).toISOString(), closed_at: this.#now.toISOString(), storm_id: (incident.storm_id as string | null) ?? null,
          }, alert, event);
        }
      }
    }
    return 'resolved';
  }

  /** The alert's new state; firing deliveries also refresh what the product says about it. */
  #save(alert: AlertRow, event: AlertEvent, created: boolean): void {
    const state = [alert.status, alert.severity, alert.severity_override, alert.raised_at, alert.acknowledged_at, alert.resolved_at, alert.chat_thread, alert.muted_by, alert.storm_id, alert.incident_id, this.#now];
    const stateSql = 'status = ?, severity = ?, severity_override = ?, raised_at = ?, acknowledged_at = ?, resolved_at = ?, chat_thread = ?, muted_by = ?, storm_id = ?, incident_id = ?, updated_at = ?';
    if (event.status === 'resolved' || created) {
      this.#defer(`update alerts set ${stateSql} where id = ?`, [...state, alert.id]);
      return;
    }
    this.#defer(
      `update alerts set ${stateSql}, title = ?, service = ?, summary = ?, labels = ?::jsonb, url = ?, external_id = ?,
              last_received_at = ?, occurrences = occurrences + ? where id = ?`,
      [...state, event.title, event.service ?? null, event.summary ?? null, JSON.stringify(event.labels), event.url ?? null,
        event.external_id ?? null, this.#now, event.status === 'firing' ? 1 : 0, alert.id],
    );
  }

  /** The effects and every deferred write, sent. */
  async finish(): Promise<void> {
    if (this.#effects.length > 0) {
      const values = this.#effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ');
      this.#defer(`insert into alert_effects (organization_id, alert_id, at, kind, detail) values ${values}`,
        this.#effects.flatMap((e) => [this.#org, e.alertId, this.#now, e.kind, JSON.stringify(e.detail)]));
    }
    await this.#flush();
  }
}
