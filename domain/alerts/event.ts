/**
 * The normalized alert event every alert source parser produces (webhooks/sources/) and the checks raise
 * (domain/checks), and the pipeline ingests.
 *
 * One schema, one type: `AlertEvent` is `Static<typeof AlertEventSchema>`, so the pipeline, the tests and any
 * validation read the same definition. Severities are the ones alert routes match on (resources/alert_routes.ts).
 */
import Type, { type Static } from 'typebox';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';

/** The alert sources (URL segments of `POST /webhooks/<source>/<token>`). */
export const ALERT_SOURCES = [
  'metric-dashboard',
  'incident-pager',
  'monitoring-a',
  'monitoring-b',
  'cloud-alarms',
  'cloud-audit',
  'events',
] as const;
export type AlertSource = (typeof ALERT_SOURCES)[number];

/**
 * Sources whose alerts Vigil raises itself, with no product payload to parse: the check scheduler (domain/checks)
 * and the heartbeat deadlines (domain/heartbeats; a ping records a time, it carries no alert).
 */
export const INTERNAL_ALERT_SOURCES = ['synthetic', 'certificate', 'heartbeat'] as const;
/** Every source an alert can have. */
export const ALL_ALERT_SOURCES = [...ALERT_SOURCES, ...INTERNAL_ALERT_SOURCES] as const;

/**
 * What an event says happened to its alert (a source's word for it, mapped): it fires, it resolved, or it was
 * acknowledged in the product. Not the alert's stored state (`ALERT_STATES`, rules.ts), which may also be muted.
 */
export const EVENT_STATUSES = ['firing', 'resolved', 'acknowledged'] as const;

export const AlertEventSchema = Type.Object(
  {
    /** `<source>:<the product's own stable id>`; the same alert in a later delivery gets the same fingerprint. */
    fingerprint: Type.String({ minLength: 1 }),
    status: Type.Enum(EVENT_STATUSES),
    title: Type.String({ minLength: 1 }),
    source: Type.Enum(ALL_ALERT_SOURCES),
    service: Type.Optional(Type.String()),
    severity: Type.Enum(ALERT_SEVERITIES),
    summary: Type.Optional(Type.String()),
    labels: Type.Record(Type.String(), Type.String()),
    url: Type.Optional(Type.String()),
    /** what the sender linked beside the alert, by kind (runbook, dashboard, panel, silence, source), as it sent them */
    links: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** ISO 8601 */
    started_at: Type.Optional(Type.String()),
    /** ISO 8601, only on resolved events */
    ended_at: Type.Optional(Type.String()),
    /** the product's own id of the alert/incident/event, for display and links */
    external_id: Type.Optional(Type.String()),
    /**
     * the event says only the alert's new state (an Events API acknowledge or resolve, which carries no details):
     * it changes an alert that exists, keeps its title, labels and severity, and creates none
     */
    state_only: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
export type AlertEvent = Static<typeof AlertEventSchema>;
export type EventStatus = AlertEvent['status'];
export type AlertSeverity = AlertEvent['severity'];
