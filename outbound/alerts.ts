/**
 * What the alert pipeline asks of outbound delivery, for one delivery of alert events (the rules are read once
 * for it: rules.ts). The domain decides *whether* an alert pages (mutes, re-fire cooldown, storms) and *whom*
 * (its routes: domain/paging/routing.ts); this is handed that decision and decides *what goes out*:
 *
 * - a page names the teams it pages (`team_ids`); with routes configured, an alert that no route pages records
 *   `page_skipped` (`no_route`, or `route_does_not_page` when its routes only record it) instead of `page`. An
 *   organization without routes pages as before, naming no team. A page records how it went out — the alert.fired
 *   event's id, the outbound configs its rules chose, whether email takes it — and `notified: false` with
 *   `not_notified` (`no_route`, `no_channel`) when it reached no one; a chat post records `queued`, or why not
 *   (`not_posted`: `chat_not_configured`, `chat_off_for_alerts`). Reads add each delivery's state (`deliveriesOf`);
 * - events: `alert.fired` when the pipeline raises the alert loudly (it pages, or forms a storm: one event for the
 *   whole storm) — whatever the routes decided about the team, since outbound rules have filters of their own;
 *   `alert.acknowledged` and `alert.resolved` for an alert that was announced (one with a chat thread: it fired
 *   loudly once), so muted alerts, alerts that only joined a storm, and quiet re-fires send nothing to outbound rules
 *   (a quiet re-fire or an un-acknowledgement of an announced alert goes to chat alone: `chatOnly`, a reply in its thread);
 *   `incident.opened` and `incident.closed` with the incident.
 */
import type { Services } from '../engine/services.ts';
import { iso, type SqlExecutor as Sql } from '../engine/persistence/store.ts';
import { tableName } from '../engine/persistence/entities.ts';
import { ChatMessageEntity } from './chat/entities.ts';
import { OutboundDeliveryEntity } from './deliveries/entities.ts';
import outboundConfigs from '../resources/outbound_configs.ts';
import type { ALERT_SEVERITIES } from '../resources/alert_routes.ts';
import { alertEvent, incidentEvent, type AlertKind, type AlertSummary, type IncidentSummary } from './events.ts';
import { OutboundBatch, type Reach as EventReach } from './publish.ts';
import type { OrganizationOutbound } from './rules.ts';

/**
 * Whom the domain's routing decided a fire pages (domain/paging/routing.ts), as outbound is handed it: the teams paged
 * and how many routes matched (null: the organization has no enabled route, and the page names no team).
 */
export interface PageDecision {
  paged: { id: string; name: string }[];
  matched: readonly unknown[];
}
type Routing = PageDecision;

type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

const CHAT_MESSAGES = ChatMessageEntity.meta.tableName;
const DELIVERIES = OutboundDeliveryEntity.meta.tableName;
const CONFIGS = `"${tableName(outboundConfigs)}"`;

/** What announcing and routing read of an alert event, as the pipeline passes it (domain/alerts/event.ts has more). */
export interface AlertEvent {
  fingerprint: string;
  source: string;
  title: string;
  service?: string;
  severity: AlertSeverity;
  summary?: string;
  labels: Record<string, string>;
  url?: string;
  started_at?: string;
}

type Detail = Record<string, unknown>;

/** Where an alert.fired event went (publish.ts), with its id: the effects record it, and reads find its deliveries by it. */
export type Reach = EventReach & { eventId: string };

/** The alert as the pipeline holds it while an event is worked. */
export interface AlertState {
  id: string;
  status: string;
  severity: AlertSeverity;
}

export class AlertAnnouncer {
  readonly #outbound: OrganizationOutbound;
  readonly #batch: OutboundBatch;
  readonly #now: Date;

  constructor(organizationId: string, outbound: OrganizationOutbound, now: Date) {
    this.#outbound = outbound;
    this.#batch = new OutboundBatch(organizationId, outbound.rules);
    this.#now = now;
  }

  /**
   * The page the pipeline decided on, as the routes shape it and as it went out (`reach`, what `fired` answered):
   * `page` naming the teams and the channels that carry it (`outbound` config ids, `email`), with `notified: false`
   * and why in `not_notified` (`no_route`: no route names a team; `no_channel`: no outbound rule or email takes alert.fired) when it
   * reached no one — or `page_skipped` when routes matched but none pages.
   */
  page(detail: Detail, routing: Routing | null, reach: Reach): { kind: 'page' | 'page_skipped'; detail: Detail } {
    const { reason: _decided, ...rest } = detail;
    if (routing && routing.paged.length === 0) return { kind: 'page_skipped', detail: { reason: routing.matched.length ? 'route_does_not_page' : 'no_route', ...rest } };
    const teams = routing?.paged ?? [];
    const notified = reach.outbound.length > 0 || reach.email;
    return {
      kind: 'page',
      detail: {
        ...detail, ...(routing ? { team_ids: teams.map((t) => t.id) } : {}), teams, event_id: reach.eventId, outbound: reach.outbound, email: reach.email, notified,
        ...(notified ? {} : { not_notified: teams.length ? 'no_channel' : 'no_route' }),
      },
    };
  }

  /** The chat post of a loud fire, as it went out: queued (`event_id` finds its message), or why not. */
  chatPost(detail: Detail, reach: Reach): Detail {
    return reach.chat ? { ...detail, event_id: reach.eventId, queued: true } : this.#notPosted(detail);
  }

  /** A chat thread update (the event kind it goes out as): queued, or why not, as chatPost. */
  chatUpdate(kind: AlertKind, detail: Detail): Detail {
    return this.#outbound.rules.chatKinds?.has(kind) ? { ...detail, queued: true } : this.#notPosted(detail);
  }

  #notPosted(detail: Detail): Detail {
    return { ...detail, queued: false, not_posted: this.#outbound.rules.chatConnected ? 'chat_off_for_alerts' : 'chat_not_configured' };
  }

  #summary(alert: AlertState, event: AlertEvent): AlertSummary {
    return {
      id: alert.id, fingerprint: event.fingerprint, source: event.source, title: event.title, service: event.service ?? null, severity: alert.severity,
      status: alert.status, summary: event.summary ?? null, labels: event.labels, url: event.url ?? null, started_at: event.started_at ?? null,
    };
  }

  /** alert.fired for a loud raise (`storm`: the storm this page stands for); answers where it went. */
  fired(alert: AlertState, event: AlertEvent, routing: Routing | null, storm: { id: string; alerts: number } | null): Reach {
    const fired = alertEvent('alert.fired', { ...this.#summary(alert, event), status: 'firing' }, this.#now, { teams: routing?.paged ?? [], storm });
    return { ...this.#batch.add(fired), eventId: fired.id };
  }

  /** alert.acknowledged or alert.resolved, for an alert that was announced. */
  changed(type: Exclude<AlertKind, 'alert.fired'>, alert: AlertState & { chat_thread: boolean }, event: AlertEvent): void {
    if (alert.chat_thread) this.#batch.add(alertEvent(type, this.#summary(alert, event), this.#now));
  }

  /**
   * A change only the alert's chat thread hears of, for an alert that was announced: a quiet re-fire inside the
   * cooldown, or an un-acknowledgement (back to firing without paging). An alert.fired event marked with the
   * reason, posted to chat alone: no outbound rule and no email ever sees it.
   */
  chatOnly(reason: 'quiet_refire' | 'unacknowledged', alert: AlertState & { chat_thread: boolean }, event: AlertEvent): void {
    if (alert.chat_thread) this.#batch.addChatOnly(alertEvent('alert.fired', { ...this.#summary(alert, event), status: 'firing' }, this.#now, { [reason]: true }));
  }

  incident(type: 'incident.opened' | 'incident.closed', incident: IncidentSummary, alert: AlertState, event: AlertEvent): void {
    this.#batch.add(incidentEvent(type, incident, this.#summary(alert, event), this.#now));
  }

  /** Enqueues the deliveries in the pipeline's transaction. */
  enqueue(services: Services, store: { execute: Sql }): Promise<void> {
    return this.#batch.enqueue(services, store, this.#now);
  }
}

/** A chat message about an alert or incident, as an incident's timeline shows it. */
export interface ChatMessageNote {
  id: string;
  subject_id: string;
  event_type: string;
  method: string;
  status: string;
  channel: string | null;
  text: string;
  created_at: string;
  sent_at: string | null;
}

/**
 * The chat messages about these alerts and incidents (their subjects), oldest first, at most `limit`: what the domain
 * reads of chat for an incident's timeline, so the chat tables stay outbound's own.
 */
export async function chatMessagesAbout(sql: Sql, organizationId: string, subjectIds: readonly string[], limit: number): Promise<ChatMessageNote[]> {
  if (subjectIds.length === 0) return [];
  const rows = await sql(
    `select id, subject_id, event_type, method, status, coalesce(posted_channel, channel) as channel, text, created_at, sent_at from ${CHAT_MESSAGES}
      where organization_id = ? and subject_id in (${subjectIds.map(() => '?').join(', ')}) order by seq limit ${Math.floor(limit)}`,
    [organizationId, ...subjectIds],
  );
  return rows.map((r) => ({
    id: String(r.id), subject_id: String(r.subject_id), event_type: String(r.event_type), method: String(r.method), status: String(r.status),
    channel: (r.channel as string | null) ?? null, text: String(r.text), created_at: iso(r.created_at)!, sent_at: iso(r.sent_at),
  }));
}

/** One delivery of an event, as an alert's effect shows it: the channel, where to, its state and why it failed. */
export interface EventDelivery {
  channel: 'outbound' | 'chat';
  /** the outbound config's name, or the chat channel */
  to: string | null;
  config_id: string | null;
  /** outbound: pending, sending, retrying, delivered, dead, cancelled; chat: held, pending, …, sent, failed, not_posted */
  status: string;
  error: string | null;
}

/**
 * The deliveries of these events (by event id), outbound configs and chat posts: what the effects that recorded an
 * event id show as delivered or not. Read-only; the tables stay outbound's own.
 */
export async function deliveriesOf(sql: Sql, organizationId: string, eventIds: readonly string[]): Promise<Map<string, EventDelivery[]>> {
  const found = new Map<string, EventDelivery[]>();
  if (eventIds.length === 0) return found;
  const marks = eventIds.map(() => '?').join(', ');
  const rows = await sql(
    `select d.event_id, 'outbound' as channel, c.name as "to", d.config_id, d.status, d.last_error as error, d.seq as seq, 0 as side
       from ${DELIVERIES} d left join ${CONFIGS} c on c.organization_id = d.organization_id and c.id::text = d.config_id
      where d.organization_id = ? and d.event_id in (${marks})
     union all
     select m.event_id, 'chat', coalesce(m.posted_channel, m.channel, m.fallback_channel), null, m.status, m.last_error, m.seq, 1
       from ${CHAT_MESSAGES} m where m.organization_id = ? and m.event_id in (${marks})
     order by side, seq`,
    [organizationId, ...eventIds, organizationId, ...eventIds],
  );
  for (const r of rows) {
    const list = found.get(String(r.event_id)) ?? [];
    list.push({ channel: r.channel as EventDelivery['channel'], to: (r.to as string | null) ?? null, config_id: (r.config_id as string | null) ?? null, status: String(r.status), error: (r.error as string | null) ?? null });
    found.set(String(r.event_id), list);
  }
  return found;
}
