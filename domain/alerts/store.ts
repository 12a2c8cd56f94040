/**
 * The alert pipeline's SQL: every statement a delivery runs, and nothing it decides (rules.ts decides, pipeline.ts
 * acts). Inside the transaction everything goes through the write batcher, so a read sees the held writes.
 */
import { prepared } from '../../engine/persistence/sql.ts';
import { parseTimestamp, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { AlertEvent, AlertSeverity } from './event.ts';
import type { Actor, Effect } from './outcomes.ts';
import { monthSpend } from '../ai/spend.ts';
import type { AlertState, StormWindow } from './rules.ts';
import type { WriteBatcher } from './write-batcher.ts';

export interface AlertRow {
  id: string;
  status: AlertState;
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

/** What closing or reopening an incident reads of it, and announces. */
export interface IncidentRow {
  status: 'open' | 'closed';
  title: string;
  severity: string;
  opened_at: Date;
  storm_id: string | null;
}

/** The storm decision's inputs: the storm of the latest alert raised inside the window, and how many were raised. */
export interface StormState {
  storm: { id: string } | null;
  raised: number;
}

/** The sender's links as the column holds them (null: none sent). */
const linksJson = (e: AlertEvent) => (e.links && Object.keys(e.links).length ? JSON.stringify(e.links) : null);

/**
 * Repeats of alerts already firing (products re-send an alert until it resolves) change nothing
 * but the product's details and the count: one statement refreshes them all, no policy read, no transaction.
 * An alert whose fingerprint appears twice in the delivery goes the full way, so its events keep their order.
 */
export async function refreshRepeats(sql: Sql, organizationId: string, events: readonly AlertEvent[], now: Date): Promise<Map<string, string>> {
  const seen = new Map<string, number>();
  for (const e of events) seen.set(e.fingerprint, (seen.get(e.fingerprint) ?? 0) + 1);
  const candidates = events.filter((e) => e.status === 'firing' && seen.get(e.fingerprint) === 1);
  if (candidates.length === 0) return new Map();
  const set = `title = v.title, service = v.service, severity = coalesce(a.severity_override, v.severity), summary = v.summary, labels = v.labels, url = v.url,
               links = v.links, external_id = v.external_id, last_received_at = ?, occurrences = a.occurrences + 1, updated_at = ?`;
  if (candidates.length === 1) {
    // the common delivery, one alert: plain parameters are cheaper for PostgreSQL than a JSON recordset
    const e = candidates[0]!;
    const rows = await sql(
      prepared(`update alerts a set ${set}
         from (select ?::text as title, ?::text as service, ?::text as severity, ?::text as summary, ?::jsonb as labels,
                      ?::text as url, ?::jsonb as links, ?::text as external_id) v
        where a.organization_id = ? and a.fingerprint = ? and a.status = 'firing'
        returning a.fingerprint, a.id`),
      [now, now, e.title, e.service ?? null, e.severity, e.summary ?? null, JSON.stringify(e.labels), e.url ?? null, linksJson(e), e.external_id ?? null,
        organizationId, e.fingerprint],
    );
    return new Map(rows.map((r) => [String(r.fingerprint), String(r.id)]));
  }
  const values = candidates.map((e) => ({
    fingerprint: e.fingerprint, title: e.title, service: e.service ?? null, severity: e.severity, summary: e.summary ?? null,
    labels: e.labels, url: e.url ?? null, links: e.links ?? null, external_id: e.external_id ?? null,
  }));
  const rows = await sql(
    `update alerts a set ${set}
       from jsonb_to_recordset(?::jsonb) as v(fingerprint text, title text, service text, severity text, summary text,
                                             labels jsonb, url text, links jsonb, external_id text)
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
 * hold thousands). Parameters: AlertStore.#stormParams.
 */
const STORM_STATE = `(select a.storm_id from alerts a where a.organization_id = ? and a.raised_at > ? and a.storm_id is not null and a.id <> ?
                        order by a.raised_at desc limit 1) as storm,
                     (select count(*)::int from (select 1 from alerts where organization_id = ? and raised_at > ? and id <> ? limit ?) r) as raised`;

function stormState(row: Record<string, unknown> | undefined): StormState {
  return { storm: row?.storm ? { id: String(row.storm) } : null, raised: Number(row?.raised ?? 0) };
}

const ALERT_COLUMNS = 'id, status, severity, severity_override, title, resolved_at, chat_thread, storm_id, incident_id, muted_by, raised_at, acknowledged_at';

/** One delivery's statements, in its transaction: one organization, one instant, one storm window. */
export class AlertStore {
  readonly #batch: WriteBatcher;
  readonly #org: string;
  readonly #now: Date;
  readonly #window: StormWindow;
  #stormLocked = false;

  constructor(batch: WriteBatcher, organizationId: string, now: Date, window: StormWindow) {
    this.#batch = batch;
    this.#org = organizationId;
    this.#now = now;
    this.#window = window;
  }

  get #sql(): Sql {
    return this.#batch.sql;
  }

  /** The alert of a fingerprint, row-locked until the transaction ends (concurrent deliveries of it queue up). */
  async lock(fingerprint: string): Promise<AlertRow | null> {
    const [row] = await this.#sql(prepared(`select ${ALERT_COLUMNS} from alerts where organization_id = ? and fingerprint = ? for update`), [this.#org, fingerprint]);
    return row ? alertRow(row) : null;
  }

  /**
   * The alert of an id, row-locked, with what its source last said of it as an event of `status` (a person's action
   * runs the step that event would): null when the organization has no such alert.
   */
  async lockById(id: string, status: AlertEvent['status']): Promise<{ alert: AlertRow; event: AlertEvent } | null> {
    const [row] = await this.#sql(
      prepared(`select ${ALERT_COLUMNS}, fingerprint, source, service, summary, labels, url, links, external_id, started_at from alerts where organization_id = ? and id = ? for update`),
      [this.#org, id],
    );
    if (!row) return null;
    const event: AlertEvent = {
      fingerprint: String(row.fingerprint), status, title: String(row.title), source: row.source as AlertEvent['source'], severity: row.severity as AlertEvent['severity'],
      labels: (typeof row.labels === 'string' ? JSON.parse(row.labels) : row.labels) ?? {},
      started_at: (parseTimestamp(row.started_at) as Date).toISOString(),
      ...(row.links ? { links: (typeof row.links === 'string' ? JSON.parse(row.links) : row.links) as Record<string, string> } : {}),
    };
    for (const field of ['service', 'summary', 'url', 'external_id'] as const) {
      if (row[field] !== null && row[field] !== undefined) event[field] = String(row[field]);
    }
    return { alert: alertRow(row), event };
  }

  /**
   * Inserts the alert unless its fingerprint is known (a concurrent creator's insert makes this one wait, then
   * find nothing inserted: null). `withStorm`: the first storm check comes back with the insert.
   */
  async create(id: string, event: AlertEvent, status: 'firing' | 'acknowledged', withStorm: boolean): Promise<{ alert: AlertRow; storm?: StormState } | null> {
    const started = event.started_at ? new Date(event.started_at) : this.#now;
    const insert = `insert into alerts (id, organization_id, fingerprint, source, title, service, severity, summary, labels, url, links, external_id,
                                        status, started_at, last_received_at, occurrences, chat_thread, created_at, updated_at)
                    values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?, ?, ?, 1, false, ?, ?)
                    on conflict (organization_id, fingerprint) do nothing returning ${ALERT_COLUMNS}`;
    const params = [id, this.#org, event.fingerprint, event.source, event.title, event.service ?? null, event.severity, event.summary ?? null,
      JSON.stringify(event.labels), event.url ?? null, linksJson(event), event.external_id ?? null, status,
      Number.isNaN(started.getTime()) ? this.#now : started, this.#now, this.#now, this.#now];
    const [inserted] = withStorm
      ? await this.#sql(prepared(`with created as (${insert}) select created.*, ${STORM_STATE} from created`), [...params, ...this.#stormParams(id)])
      : await this.#sql(prepared(insert), params);
    if (!inserted) return null;
    return { alert: alertRow(inserted), ...(withStorm ? { storm: stormState(inserted) } : {}) };
  }

  /** STORM_STATE. Only committed alerts count: under the storm lock that is every other raise. */
  async stormState(alertId: string): Promise<StormState> {
    const [row] = await this.#sql(prepared(`select ${STORM_STATE}`), this.#stormParams(alertId));
    return stormState(row);
  }

  #stormParams(alertId: string): unknown[] {
    const { since, threshold } = this.#window;
    return [this.#org, since, alertId, this.#org, since, alertId, threshold];
  }

  /** Storm counts are exact: raising alerts of one organization take turns (until the transaction ends). */
  async lockStorms(): Promise<void> {
    if (this.#stormLocked) return;
    await this.#sql('select pg_advisory_xact_lock(hashtext(?))', [`${this.#org}:alert-storms`]);
    this.#stormLocked = true;
  }

  /** A new storm of every other alert raised inside the window: its id on them, its row; answers those grouped. */
  async formStorm(stormId: string, alertId: string): Promise<{ grouped: string[]; adoptedIncident: string | null }> {
    const grouped = await this.#sql('update alerts set storm_id = ? where organization_id = ? and raised_at > ? and id <> ? returning id, incident_id', [stormId, this.#org, this.#window.since, alertId]);
    const adopted = (grouped.find((g) => g.incident_id)?.incident_id as string | undefined) ?? null;
    await this.#sql('insert into alert_storms (id, organization_id, started_at, incident_id) values (?, ?, ?, ?)', [stormId, this.#org, this.#now, adopted]);
    return { grouped: grouped.map((g) => String(g.id)), adoptedIncident: adopted };
  }

  /** The id of an investigation requested for the alert after `since`, if any. */
  async recentInvestigation(alertId: string, since: Date): Promise<unknown> {
    const [recent] = await this.#sql('select id from investigations where organization_id = ? and alert_id = ? and requested_at > ? limit 1', [this.#org, alertId, since]);
    return recent?.id;
  }

  monthSpend(since: Date): Promise<number> {
    return monthSpend(this.#sql, this.#org, since);
  }

  /** An automatic investigation's row (held: its job is enqueued in the same transaction). */
  requestInvestigation(id: string, alertId: string, stormId: string | null): void {
    this.#batch.defer(
      `insert into investigations (id, organization_id, alert_id, storm_id, trigger, status, requested_at) values (?, ?, ?, ?, 'automatic', 'requested', ?)`,
      [id, this.#org, alertId, stormId, this.#now],
    );
  }

  /** The storm's open incident, under the storm's row lock: two alerts joining at once open one incident between them. */
  async stormIncident(stormId: string): Promise<string | null> {
    const [storm] = await this.#sql(
      `select i.id from alert_storms st left join incidents i on i.id = st.incident_id and i.status = 'open' where st.id = ? for update of st`, [stormId]);
    return storm?.id ? String(storm.id) : null;
  }

  async incidentOpen(incidentId: string): Promise<boolean> {
    const [open] = await this.#sql(`select id from incidents where id = ? and status = 'open'`, [incidentId]);
    return open !== undefined;
  }

  async openIncident(id: string, title: string, severity: AlertSeverity, stormId: string | null): Promise<void> {
    await this.#sql(
      `insert into incidents (id, organization_id, title, severity, status, opened_at, storm_id) values (?, ?, ?, ?, 'open', ?, ?)`,
      [id, this.#org, title, severity, this.#now, stormId],
    );
    if (stormId) await this.#sql('update alert_storms set incident_id = ? where id = ?', [id, stormId]);
  }

  /** The incident if still open, row-locked: two last alerts resolving at once see each other. */
  async lockOpenIncident(incidentId: string): Promise<IncidentRow | null> {
    const incident = await this.lockIncident(incidentId);
    return incident?.status === 'open' ? incident : null;
  }

  /** The organization's incident, row-locked. */
  async lockIncident(incidentId: string): Promise<IncidentRow | null> {
    const [incident] = await this.#sql(`select status, title, severity, opened_at, storm_id from incidents where id = ? and organization_id = ? for update`, [incidentId, this.#org]);
    if (!incident) return null;
    return {
      status: incident.status === 'closed' ? 'closed' : 'open', title: String(incident.title), severity: String(incident.severity),
      opened_at: parseTimestamp(incident.opened_at) as Date, storm_id: (incident.storm_id as string | null) ?? null,
    };
  }

  /** Whether another alert of the incident still fires (or is acknowledged). */
  async incidentStillFiring(incidentId: string, alertId: string): Promise<boolean> {
    const [firing] = await this.#sql(`select 1 from alerts where incident_id = ? and id <> ? and status in ('firing', 'acknowledged') limit 1`, [incidentId, alertId]);
    return firing !== undefined;
  }

  /** `by`: the person whose action closed it (null: its alerts' sources did). */
  async closeIncident(incidentId: string, by: Actor | null): Promise<void> {
    await this.#sql(`update incidents set status = 'closed', closed_at = ?, resolved_by = ?::jsonb where id = ?`, [this.#now, by ? JSON.stringify(by) : null, incidentId]);
  }

  /** Open again (reopen_incident): closed_at, who closed it and its acknowledgement cleared (it needs someone again). */
  async reopenIncident(incidentId: string): Promise<void> {
    await this.#sql(`update incidents set status = 'open', closed_at = null, resolved_by = null, acknowledged_at = null, acknowledged_by = null where id = ?`, [incidentId]);
  }

  /** The alert's new state (held); firing deliveries also refresh what the product says about it. */
  save(alert: AlertRow, event: AlertEvent, created: boolean): void {
    if (event.status === 'resolved' || created) return this.saveState(alert);
    const [stateSql, state] = this.#state(alert);
    this.#batch.defer(
      `update alerts set ${stateSql}, title = ?, service = ?, summary = ?, labels = ?::jsonb, url = ?, links = ?::jsonb, external_id = ?,
              last_received_at = ?, occurrences = occurrences + ? where id = ?`,
      [...state, event.title, event.service ?? null, event.summary ?? null, JSON.stringify(event.labels), event.url ?? null, linksJson(event),
        event.external_id ?? null, this.#now, event.status === 'firing' ? 1 : 0, alert.id],
    );
  }

  /** The alert's new state alone (held): a resolve, a new alert, or a person's action (the product said nothing new). */
  saveState(alert: AlertRow): void {
    const [stateSql, state] = this.#state(alert);
    this.#batch.defer(`update alerts set ${stateSql} where id = ?`, [...state, alert.id]);
  }

  #state(alert: AlertRow): [string, unknown[]] {
    return [
      'status = ?, severity = ?, severity_override = ?, raised_at = ?, acknowledged_at = ?, resolved_at = ?, chat_thread = ?, muted_by = ?, storm_id = ?, incident_id = ?, updated_at = ?',
      [alert.status, alert.severity, alert.severity_override, alert.raised_at, alert.acknowledged_at, alert.resolved_at, alert.chat_thread, alert.muted_by, alert.storm_id, alert.incident_id, this.#now],
    ];
  }

  /** The effects and every held write, sent. */
  async finish(effects: readonly Effect[]): Promise<void> {
    if (effects.length > 0) {
      const values = effects.map(() => '(?, ?, ?, ?, ?::jsonb)').join(', ');
      this.#batch.defer(`insert into alert_effects (organization_id, alert_id, at, kind, detail) values ${values}`,
        effects.flatMap((e) => [this.#org, e.alertId, this.#now, e.kind, JSON.stringify(e.detail)]));
    }
    await this.#batch.flush();
  }
}
