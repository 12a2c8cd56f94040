/**
 * The events Vigil publishes to outbound configs; render/envelope.ts writes their one JSON envelope:
 *
 *   { "type": "alert.fired", "version": 1, "id": "<event uuid>", "occurred_at": "<ISO 8601>",
 *     "organization_id": "<uuid>", "data": { … } }
 *
 * `type` is the event kind (resources/outbound_rules.ts EVENT_KINDS), `id` is the event's (the same in every
 * config's copy; the `webhook-id` header is the delivery's), `data` holds one object per kind, built here:
 * `alert` (alert.*), `incident` and `alert` (incident.*), `card` (card.*), `deployment`, `fix_request`.
 * `version` changes only for a change that would break a receiver (a field removed or its meaning changed);
 * new fields may appear in any version.
 */
import { randomUUID } from 'node:crypto';
import type { EVENT_KINDS } from '../resources/outbound_rules.ts';

export type EventKind = (typeof EVENT_KINDS)[number];
/** what is published: the kinds outbound rules select, and `config.changed`, sent only where change_notifications say */
export type PublishedKind = EventKind | 'config.changed';

type Json = Record<string, unknown>;

/** What rule filters compare (services, severities, sources); null when the event carries none. */
export interface EventAttributes {
  service: string | null;
  severity: string | null;
  source: string | null;
}

export interface OutboundEvent {
  type: PublishedKind;
  id: string;
  occurredAt: Date;
  /** the row the event is about (alert, incident, card, deployment, fix request) */
  subjectId: string | null;
  attributes: EventAttributes;
  data: Json;
}


export interface AlertSummary {
  id: string;
  fingerprint: string;
  source: string;
  title: string;
  service: string | null;
  severity: string;
  status: string;
  summary: string | null;
  labels: Record<string, string>;
  url: string | null;
  started_at: string | null;
}

export type AlertKind = 'alert.fired' | 'alert.acknowledged' | 'alert.resolved';

/**
 * alert.fired `{ alert, teams, storm }` (teams: those the alert routes paged; storm: `{ id, alerts }` when this
 * page stands for a storm), alert.acknowledged and alert.resolved `{ alert }`.
 */
export function alertEvent(type: AlertKind, alert: AlertSummary, now: Date, extra: Json = {}): OutboundEvent {
  return {
    type,
    id: randomUUID(),
    occurredAt: now,
    subjectId: alert.id,
    attributes: { service: alert.service, severity: alert.severity, source: alert.source },
    data: { alert, ...extra },
  };
}

export interface IncidentSummary {
  id: string;
  title: string;
  severity: string;
  status: 'open' | 'closed';
  opened_at: string;
  closed_at: string | null;
  storm_id: string | null;
}

/** incident.opened and incident.closed `{ incident, alert }`: the alert that opened it or whose resolve closed it. */
export function incidentEvent(type: 'incident.opened' | 'incident.closed', incident: IncidentSummary, alert: AlertSummary, now: Date): OutboundEvent {
  return {
    type,
    id: randomUUID(),
    occurredAt: now,
    subjectId: incident.id,
    attributes: { service: alert.service, severity: incident.severity, source: alert.source },
    data: { incident, alert },
  };
}

/** card.created and card.updated `{ card, changed }` (`changed`: the fields an update changed). */
export function cardEvent(type: 'card.created' | 'card.updated', card: Json & { id: string; service?: unknown }, source: string | null, now: Date, changed?: string[]): OutboundEvent {
  return {
    type,
    id: randomUUID(),
    occurredAt: now,
    subjectId: card.id,
    attributes: { service: typeof card.service === 'string' ? card.service : null, severity: null, source },
    data: { card, ...(changed ? { changed } : {}) },
  };
}

/** deployment.recorded `{ deployment, action }` (action: created or updated, by its dedup key). */
export function deploymentEvent(deployment: Json & { id: string; service?: unknown; source?: unknown }, action: string, now: Date): OutboundEvent {
  return {
    type: 'deployment.recorded',
    id: randomUUID(),
    occurredAt: now,
    subjectId: deployment.id,
    attributes: { service: typeof deployment.service === 'string' ? deployment.service : null, severity: null, source: typeof deployment.source === 'string' ? deployment.source : null },
    data: { deployment, action },
  };
}

/** One audited configuration change, as change_notifications announce it (outbound/changes.ts). */
export interface ConfigChange {
  family: string;
  row_id: string | null;
  /** the row's natural key (its name), when the family has one */
  row_name: string | null;
  /** create, update, delete, archive, or action:<name> */
  action: string;
  actor: { kind: string; id: string };
  transport: string;
  at: string;
  /** field → { before, after }; secrets only as "(set)", "(changed)" or "(cleared)" */
  changes: Record<string, unknown>;
}

/** config.changed `{ change }`: sent to the outbound config a change notification names, never through outbound rules. */
export function configChangedEvent(change: ConfigChange, now: Date): OutboundEvent {
  return { type: 'config.changed', id: randomUUID(), occurredAt: now, subjectId: change.row_id, attributes: { service: null, severity: null, source: null }, data: { change } };
}

/** fix_request.finished `{ fix_request }`: a fix request reached its end (a pull request, or the reason none was made). */
export function fixRequestEvent(fixRequest: Json & { id: string; service?: unknown }, now: Date): OutboundEvent {
  return {
    type: 'fix_request.finished',
    id: randomUUID(),
    occurredAt: now,
    subjectId: fixRequest.id,
    attributes: { service: typeof fixRequest.service === 'string' ? fixRequest.service : null, severity: null, source: 'fix-requests' },
    data: { fix_request: fixRequest },
  };
}
