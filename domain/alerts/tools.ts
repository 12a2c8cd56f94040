/**
 * `list_alerts` and `get_alert`: the alerts the pipeline recorded, for agents (and REST:
 * `GET /api/v1/config/alerts`). An alert's effects say why it did or did not page.
 */
import Type, { type Static } from 'typebox';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';
import { iso, jsonValue as json } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { ALL_ALERT_SOURCES as ALERT_SOURCES } from './event.ts';
import { EFFECT_KINDS } from './outcomes.ts';
import { ALERT_STATES } from './rules.ts';
import { literals, time, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields, type PageLimits } from '../../engine/operations/page.ts';
import { atOrAfter, equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { MEMBER, memberColumns, memberOf, namePeople } from './people.ts';
import { deliveriesOf } from '../../outbound/alerts.ts';

export const ALERT = Type.Object({
  id: Type.String(),
  fingerprint: Type.String({ description: 'stable per alert of the source: `<source>:<the product\'s own id>`' }),
  source: literals(ALERT_SOURCES, 'the webhook source it came from, or synthetic / certificate (the check scheduler) / heartbeat (a missed heartbeat)'),
  title: Type.String(),
  service: Type.Union([Type.String(), Type.Null()]),
  severity: literals(ALERT_SEVERITIES, 'critical, high, warning or info'),
  summary: Type.Union([Type.String(), Type.Null()]),
  labels: Type.Record(Type.String(), Type.String()),
  url: Type.Union([Type.String(), Type.Null()], { description: 'the alert in its product' }),
  links: Type.Record(Type.String(), Type.String(), {
    description: 'what the sender linked beside the alert, as sent: runbook, dashboard, panel, silence, source (Grafana\'s and Alertmanager\'s runbook_url annotation, dashboardURL, panelURL, silenceURL, generatorURL); {} when none',
  }),
  external_id: Type.Union([Type.String(), Type.Null()]),
  status: literals(ALERT_STATES, 'firing, acknowledged (in the pager), resolved, or muted (recorded while a mute matched; paged no one)'),
  started_at: Type.String({ format: 'date-time' }),
  raised_at: time('the last time it paged or joined a storm'),
  acknowledged_at: time('when the pager acknowledged it'),
  resolved_at: time('when it resolved'),
  last_received_at: Type.String({ format: 'date-time' }),
  occurrences: Type.Integer({ description: 'firing deliveries received for it, repeats included' }),
  muted_by: Type.Union([Type.String(), Type.Null()], { description: 'the mute, or the running maintenance window, that matched' }),
  storm_id: Type.Union([Type.String(), Type.Null()], { description: 'the storm it was grouped into' }),
  incident_id: Type.Union([Type.String(), Type.Null()]),
  assignee: Type.Union([MEMBER, Type.Null()], { description: 'the member it is assigned to (assign_alert); null: nobody' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Alert = Static<typeof ALERT>;

const EFFECT = Type.Object({
  kind: literals(EFFECT_KINDS, 'routed (a matched alert route and its team), page (team_ids: the teams paged), page_skipped, chat_post, chat_thread_update, muted, storm_grouped, investigation_requested, investigation_skipped, incident_opened, incident_joined, incident_closed, incident_reopened (reopen_incident), cycle_ended (raised again: the ended cycle\'s raised_at, acknowledged_at, resolved_at); a person\'s action adds by: { kind, id } to each effect it caused'),
  at: Type.String({ format: 'date-time' }),
  detail: Type.Record(Type.String(), JSON_VALUE(), {
    description: 'the reason (page_skipped, investigation_skipped) and the ids involved (mute, storm, investigation, incident); a page: teams ({ id, name }), event_id, ' +
      'outbound (the config ids its rules chose), email, notified (false: it reached no one) and not_notified (no_route, no_channel); a chat post or thread update: queued, ' +
      'or not_posted (chat_not_configured, chat_off_for_alerts)',
  }),
  deliveries: Type.Optional(Type.Array(Type.Object({
    channel: literals(['outbound', 'chat'], 'an outbound config or the chat workspace'),
    to: Type.Union([Type.String(), Type.Null()], { description: 'the outbound config\'s name, or the chat channel' }),
    config_id: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({ description: 'outbound: pending, sending, retrying, delivered, dead or cancelled; chat: held, pending, sending, waiting, retrying, sent, failed, not_posted or cancelled' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed, in a sentence' }),
  }), { description: 'for an effect that sent an event (event_id): each delivery of it and its state (a page: its outbound configs; a chat post: its message)' })),
});

const INCIDENT = Type.Object({
  id: Type.String(),
  title: Type.String(),
  severity: Type.String(),
  status: literals(['open', 'closed'], 'open or closed'),
  opened_at: Type.String({ format: 'date-time' }),
  closed_at: time('when it closed'),
});

export const ALERT_COLUMNS = `id, fingerprint, source, title, service, severity, summary, labels, url, links, external_id, status, started_at, raised_at,
  acknowledged_at, resolved_at, last_received_at, occurrences, muted_by, storm_id, incident_id, ${memberColumns('alerts')}, created_at, updated_at`;

/** Newest first by when Vigil first recorded the alert: an order no later change moves a row in, so pages never skip or repeat one. */
/** as every list of records (engine/operations/record-list.ts): 50 by default, at most 200 (docs/api.md) */
export const ALERT_LIST_LIMITS: PageLimits = RECORD_LIST_LIMITS;
/** Newest first by when Vigil first recorded each: an order a change to an alert cannot move it in while someone pages. */
const ALERT_LIST: RecordList = { name: 'alerts', select: `${ALERT_COLUMNS}, seq`, from: 'alerts', keys: NEWEST_FIRST, limits: ALERT_LIST_LIMITS };

export function toAlert(r: Record<string, unknown>): Alert {
  return {
    id: String(r.id), fingerprint: String(r.fingerprint), source: r.source as Alert['source'], title: String(r.title),
    service: (r.service as string | null) ?? null, severity: r.severity as Alert['severity'], summary: (r.summary as string | null) ?? null,
    labels: (json(r.labels) ?? {}) as Record<string, string>, url: (r.url as string | null) ?? null, links: (json(r.links) ?? {}) as Record<string, string>, external_id: (r.external_id as string | null) ?? null,
    status: r.status as Alert['status'], started_at: iso(r.started_at)!, raised_at: iso(r.raised_at), acknowledged_at: iso(r.acknowledged_at),
    resolved_at: iso(r.resolved_at), last_received_at: iso(r.last_received_at)!, occurrences: Number(r.occurrences),
    muted_by: (r.muted_by as string | null) ?? null, storm_id: (r.storm_id as string | null) ?? null,
    incident_id: (r.incident_id as string | null) ?? null, assignee: memberOf(r), created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)!,
  };
}

export const listAlerts = {
  name: 'list_alerts',
  description:
    'The alerts the alert webhooks recorded, newest first (by when Vigil first recorded each). One alert per fingerprint, kept across fire and resolve cycles; ' +
    'status firing, acknowledged, resolved or muted (a muted alert is recorded but paged no one). Paged: pass `next_cursor` back as `cursor` with the same filters. ' +
    'get_alert gives one with its effects.',
  input: Type.Object(
    {
      status: Type.Optional(literals(ALERT_STATES, 'only alerts in this state')),
      source: Type.Optional(literals(ALERT_SOURCES, 'only alerts from this webhook source')),
      service: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only alerts of this service (exact)' })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'only alerts changed at or after this time (ISO 8601)' })),
      ...pageFields(ALERT_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'alerts' },
  answer: { schema: recordPageSchema(ALERT) },
  async run(services, caller, input) {
    const filters = [...equalTo(input, { status: 'status', source: 'source', service: 'service' }), ...atOrAfter(input, 'since', 'updated_at')];
    return { json: await recordPage(services, ALERT_LIST, caller.organization.id, filters, input, (rows) => rows.map(toAlert)) };
  },
} satisfies DomainOperation;

/** The alert as get_alert answers it (effects, incident), read through `sql` (inside a transaction: its store); null when the organization has none of that id or fingerprint. */
export async function readAlert(sql: SqlExecutor, organizationId: string, by: { id: string } | { fingerprint: string }): Promise<Record<string, unknown> | null> {
  const [row] = await sql(`select ${ALERT_COLUMNS} from alerts where organization_id = ? and ${'id' in by ? 'id' : 'fingerprint'} = ?`, [organizationId, 'id' in by ? by.id : by.fingerprint]);
  if (!row) return null;
  const alert = toAlert(row);
  const effects = (await sql('select kind, at, detail from alert_effects where alert_id = ? order by seq', [alert.id])).map((e) => ({ kind: e.kind, at: iso(e.at), detail: (json(e.detail) ?? {}) as Record<string, unknown> }));
  // what became of each event an effect sent (a page's outbound deliveries, a chat post): delivered, failing, or why not
  await namePeople(sql, organizationId, effects.map((e) => e.detail.by));
  const sent = await deliveriesOf(sql, organizationId, [...new Set(effects.map((e) => e.detail.event_id).filter((id): id is string => typeof id === 'string' && isUuid(id)))]);
  const [incident] = alert.incident_id
    ? await sql('select id, title, severity, status, opened_at, closed_at from incidents where id = ?', [alert.incident_id])
    : [];
  return {
    ...alert,
    effects: effects.map((e) => (typeof e.detail.event_id === 'string'
      ? { ...e, deliveries: (sent.get(e.detail.event_id) ?? []).filter((d) => d.channel === (e.kind === 'chat_post' ? 'chat' : 'outbound')) }
      : e)),
    incident: incident
      ? { id: String(incident.id), title: String(incident.title), severity: String(incident.severity), status: incident.status, opened_at: iso(incident.opened_at), closed_at: iso(incident.closed_at) }
      : null,
  };
}

/** The most alerts get_incident answers (a storm's incident may hold thousands): the first to join it. */
export const INCIDENT_ALERTS_MAX = 200;

/** An incident's alerts, in the order they were recorded. */
export async function alertsOfIncident(sql: SqlExecutor, organizationId: string, incidentId: string): Promise<Alert[]> {
  const rows = await sql(`select ${ALERT_COLUMNS} from alerts where organization_id = ? and incident_id = ? order by seq limit ${INCIDENT_ALERTS_MAX}`, [organizationId, incidentId]);
  return rows.map(toAlert);
}

/** get_alert's answer, and every alert action's (the alert after the action). */
export const ALERT_ANSWER = Type.Object({ data: Type.Intersect([ALERT, Type.Object({ effects: Type.Array(EFFECT), incident: Type.Union([INCIDENT, Type.Null()]) })]) });

export const getAlert = {
  name: 'get_alert',
  description:
    'One alert, by id or by fingerprint, with its effects in order: each page, chat post or thread update, investigation requested ' +
    '(or the reason none was: muted, refire_cooldown, storm, paused, cooldown, budget), storm grouping, and incident opened, joined or closed; ' +
    'and its incident, if any.',
  input: Type.Object(
    {
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the alert id' })),
      fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'or its fingerprint' })),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'alerts', param: 'id' },
  answer: { schema: ALERT_ANSWER },
  async run(services, caller, input) {
    const { id, fingerprint } = input as { id?: string; fingerprint?: string };
    if ((id === undefined) === (fingerprint === undefined)) throw validationFailed([{ field: 'id', message: 'give either id or fingerprint' }]);
    const missing = new ApiError('not_found', 'No alert with that id or fingerprint exists in this organization.');
    if (id !== undefined && !isUuid(id)) throw missing;
    const data = await readAlert(readStore(services).execute, caller.organization.id, id !== undefined ? { id } : { fingerprint: fingerprint! });
    if (!data) throw missing;
    return { json: { data } };
  },
} satisfies DomainOperation;

export const ALERT_OPERATIONS: DomainOperation[] = [listAlerts, getAlert];
