/**
 * `incident-pager`: PagerDuty v3 webhook subscriptions. One event per request:
 *
 *   { event: { id, event_type, resource_type, occurred_at, agent, client,
 *              data: { id, type: "incident", self, html_url, number, status, incident_key, created_at, title,
 *                      service: { id, summary, … }, assignees, escalation_policy, teams, priority: { summary } | null,
 *                      urgency, conference_bridge, resolve_reason } } }
 *
 * Status, from `event.event_type`:
 *   incident.triggered, incident.reopened, incident.unacknowledged → firing
 *   incident.acknowledged                                           → acknowledged
 *   incident.resolved                                               → resolved
 *   any other incident.* event whose data is the incident (escalated, reassigned, delegated, priority_updated,
 *   conference_bridge.updated, …) → from `data.status`: triggered → firing, acknowledged → acknowledged,
 *   resolved → resolved.
 * Events that are not about an incident's state (`pagey.ping`, service.*, incident.annotated,
 * incident.responder.*, incident.status_update_published, whose data is not the incident) are read as zero
 * alerts, so PagerDuty's test ping and other subscribed types answer 200 without creating anything.
 *
 * Fingerprint: `incident-pager:<data.id>` (the incident id, the same in every event of that incident).
 *
 * Severity: the incident priority when it has one (`P1` → critical, `P2` → high, `P3` → warning,
 * `P4`/`P5` → info; other names through the shared words: "SEV-1", "Critical", …); otherwise the urgency:
 * `high` → high, `low` → warning. Neither → high.
 *
 * Title: `data.title`. Service: `data.service.summary`. URL: `data.html_url`. External id: `data.id`.
 * Labels: incident_number, incident_key, urgency, priority, service_id, escalation_policy, teams, event_type.
 * The conference bridge (which can carry dial-in PINs) is never copied.
 */
import { field, isoTime, isRecord, record, str, text } from '../../engine/payload.ts';
import { alerts, event, fingerprint, id, Labels, objectBody, safe, severityFromWord, unreadable } from './alert-parsing.ts';
import type { AlertSeverity, EventStatus } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { signedWith } from '../signing.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'incident-pager' as const;

const BY_EVENT: Record<string, EventStatus> = {
  'incident.triggered': 'firing',
  'incident.reopened': 'firing',
  'incident.unacknowledged': 'firing',
  'incident.acknowledged': 'acknowledged',
  'incident.resolved': 'resolved',
};
const BY_STATUS: Record<string, EventStatus> = {
  triggered: 'firing',
  acknowledged: 'acknowledged',
  resolved: 'resolved',
};

function severityOf(priority: string | undefined, urgency: string | undefined): AlertSeverity {
  const fromPriority = severityFromWord(priority);
  if (fromPriority) return fromPriority;
  if (urgency === 'high') return 'high';
  if (urgency === 'low') return 'warning';
  return 'high';
}

function parseBody(body: unknown): ParseResult {
  const obj = objectBody(body, 'PagerDuty');
  if (typeof obj === 'string') return unreadable(obj);
  const ev = record(obj, 'event');
  if (!ev) return unreadable('event is missing: expected a PagerDuty v3 webhook `{ "event": { "event_type", "data" } }`');
  const eventType = str(ev, 'event_type', 200);
  if (!eventType) return unreadable('event.event_type is missing');
  if (!eventType.startsWith('incident.')) return alerts([]);
  const data = record(ev, 'data');
  if (!data) return unreadable(`event.data is missing for ${eventType}`);
  const dataType = str(data, 'type');
  if (dataType !== undefined && dataType !== 'incident') return alerts([]);
  if (dataType === undefined && !Object.hasOwn(BY_EVENT, eventType)) return alerts([]);

  const incidentId = id(field(data, 'id'));
  if (!incidentId) return unreadable('event.data.id (the incident id) is missing');
  const dataStatus = str(data, 'status');
  const status = Object.hasOwn(BY_EVENT, eventType) ? BY_EVENT[eventType] : dataStatus !== undefined && Object.hasOwn(BY_STATUS, dataStatus) ? BY_STATUS[dataStatus] : undefined;
  if (!status) return unreadable(`event.data.status must be triggered, acknowledged or resolved for ${eventType}`);

  const service = record(data, 'service');
  const priority = record(data, 'priority');
  const priorityName = priority ? str(priority, 'summary') ?? str(priority, 'name') : undefined;
  const urgency = str(data, 'urgency');
  const policy = record(data, 'escalation_policy');
  const teams = Array.isArray(field(data, 'teams'))
    ? (field(data, 'teams') as unknown[])
        .map((t) => (isRecord(t) ? str(t, 'summary', 100) : undefined))
        .filter((t): t is string => t !== undefined)
        .slice(0, 20)
        .join(',')
    : undefined;

  const labels = new Labels()
    .set('event_type', eventType)
    .set('incident_number', field(data, 'number'))
    .set('incident_key', field(data, 'incident_key'))
    .set('urgency', urgency)
    .set('priority', priorityName)
    .set('service_id', service ? field(service, 'id') : undefined)
    .set('escalation_policy', policy ? field(policy, 'summary') : undefined)
    .set('teams', teams).map;

  const title = str(data, 'title') ?? str(data, 'summary') ?? `PagerDuty incident ${incidentId}`;
  const createdAt = isoTime(field(data, 'created_at'));
  const occurredAt = isoTime(field(ev, 'occurred_at'));

  return alerts([
    event({
      fingerprint: fingerprint(SOURCE, incidentId),
      status,
      title,
      source: SOURCE,
      severity: severityOf(priorityName, urgency),
      service: service ? str(service, 'summary') : undefined,
      summary: text(field(data, 'description'), 4000),
      labels,
      url: str(data, 'html_url', 4096),
      started_at: createdAt,
      ended_at: status === 'resolved' ? occurredAt : undefined,
      external_id: incidentId,
    }),
  ]);
}

export const parse = safe(SOURCE, parseBody);

const product = 'PagerDuty v3 webhook';

export const incidentPager: WebhookSource = {
  segment: SOURCE,
  product,
  // one incident per delivery; 1 MiB leaves room for long descriptions and custom details
  bodyLimit: MiB,
  signing: signedWith('pagerduty-v3', {
    notes: 'X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>, possibly several comma-separated (PagerDuty v3 webhook subscription secret)',
    runbookSigned: true,
  }),
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse }, options),
};
