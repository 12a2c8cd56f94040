/**
 * `list_alerts` and `get_alert`: the alerts the pipeline recorded, for agents (and REST:
 * `GET /api/v1/config/alerts`). An alert's effects say why it did or did not page.
 */
import Type, { type Static } from 'typebox';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';
import { iso } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { ALL_ALERT_SOURCES as ALERT_SOURCES } from './event.ts';
import { EFFECT_KINDS } from './outcomes.ts';
import { literals, time, LIST_LIMIT, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';

const ALERT_STATES = ['firing', 'acknowledged', 'resolved', 'muted'] as const;

const ALERT = Type.Object({
  id: Type.String(),
  fingerprint: Type.String({ description: 'stable per alert of the source: `<source>:<the product\'s own id>`' }),
  source: literals(ALERT_SOURCES, 'the webhook source it came from, or synthetic / certificate (the check scheduler)'),
  title: Type.String(),
  service: Type.Union([Type.String(), Type.Null()]),
  severity: literals(ALERT_SEVERITIES, 'critical, high, warning or info'),
  summary: Type.Union([Type.String(), Type.Null()]),
  labels: Type.Record(Type.String(), Type.String()),
  url: Type.Union([Type.String(), Type.Null()], { description: 'the alert in its product' }),
  external_id: Type.Union([Type.String(), Type.Null()]),
  status: literals(ALERT_STATES, 'firing, acknowledged (in the pager), resolved, or muted (recorded while a mute matched; paged no one)'),
  started_at: Type.String({ format: 'date-time' }),
  raised_at: time('the last time it paged or joined a storm'),
  acknowledged_at: time('when the pager acknowledged it'),
  resolved_at: time('when it resolved'),
  last_received_at: Type.String({ format: 'date-time' }),
  occurrences: Type.Integer({ description: 'firing deliveries received for it, repeats included' }),
  muted_by: Type.Union([Type.String(), Type.Null()], { description: 'the mute that matched' }),
  storm_id: Type.Union([Type.String(), Type.Null()], { description: 'the storm it was grouped into' }),
  incident_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Alert = Static<typeof ALERT>;

const EFFECT = Type.Object({
  kind: literals(EFFECT_KINDS, 'routed (a matched alert route and its team), page (team_ids: the teams paged), page_skipped, chat_post, chat_thread_update, muted, storm_grouped, investigation_requested, investigation_skipped, incident_opened, incident_joined, incident_closed'),
  at: Type.String({ format: 'date-time' }),
  detail: Type.Record(Type.String(), JSON_VALUE(), { description: 'the reason (page_skipped, investigation_skipped) and the ids involved (mute, storm, investigation, incident)' }),
});

const INCIDENT = Type.Object({
  id: Type.String(),
  title: Type.String(),
  severity: Type.String(),
  status: literals(['open', 'closed'], 'open or closed'),
  opened_at: Type.String({ format: 'date-time' }),
  closed_at: time('when it closed'),
});

const COLUMNS = `id, fingerprint, source, title, service, severity, summary, labels, url, external_id, status, started_at, raised_at,
  acknowledged_at, resolved_at, last_received_at, occurrences, muted_by, storm_id, incident_id, created_at, updated_at`;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

function toAlert(r: Record<string, unknown>): Alert {
  return {
    id: String(r.id), fingerprint: String(r.fingerprint), source: r.source as Alert['source'], title: String(r.title),
    service: (r.service as string | null) ?? null, severity: r.severity as Alert['severity'], summary: (r.summary as string | null) ?? null,
    labels: json(r.labels) ?? {}, url: (r.url as string | null) ?? null, external_id: (r.external_id as string | null) ?? null,
    status: r.status as Alert['status'], started_at: iso(r.started_at)!, raised_at: iso(r.raised_at), acknowledged_at: iso(r.acknowledged_at),
    resolved_at: iso(r.resolved_at), last_received_at: iso(r.last_received_at)!, occurrences: Number(r.occurrences),
    muted_by: (r.muted_by as string | null) ?? null, storm_id: (r.storm_id as string | null) ?? null,
    incident_id: (r.incident_id as string | null) ?? null, created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)!,
  };
}

export const listAlerts: DomainOperation = {
  name: 'list_alerts',
  description:
    'The alerts the alert webhooks recorded, most recently changed first. One alert per fingerprint, kept across fire and resolve cycles; ' +
    'status firing, acknowledged, resolved or muted (a muted alert is recorded but paged no one). get_alert gives one with its effects.',
  input: Type.Object(
    {
      status: Type.Optional(literals(ALERT_STATES, 'only alerts in this state')),
      source: Type.Optional(literals(ALERT_SOURCES, 'only alerts from this webhook source')),
      service: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only alerts of this service (exact)' })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'only alerts changed at or after this time (ISO 8601)' })),
      limit: LIST_LIMIT,
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'alerts' },
  answer: { schema: Type.Object({ data: Type.Array(ALERT), truncated: Type.Boolean() }) },
  async run(services, caller, input) {
    const limit = Number(input.limit ?? 50);
    const where = ['organization_id = ?'];
    const params: unknown[] = [caller.organization.id];
    for (const column of ['status', 'source', 'service'] as const) {
      if (typeof input[column] === 'string') (where.push(`${column} = ?`), params.push(input[column]));
    }
    if (typeof input.since === 'string') {
      const since = new Date(input.since);
      if (Number.isNaN(since.getTime())) throw validationFailed([{ field: 'since', message: 'must be an ISO 8601 date-time' }]);
      (where.push('updated_at >= ?'), params.push(since));
    }
    const rows = await readStore(services).execute(
      `select ${COLUMNS} from alerts where ${where.join(' and ')} order by updated_at desc, seq desc limit ${limit + 1}`, params);
    return { json: { data: rows.slice(0, limit).map(toAlert), truncated: rows.length > limit } };
  },
};

export const getAlert: DomainOperation = {
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
  answer: {
    schema: Type.Object({ data: Type.Intersect([ALERT, Type.Object({ effects: Type.Array(EFFECT), incident: Type.Union([INCIDENT, Type.Null()]) })]) }),
  },
  async run(services, caller, input) {
    const { id, fingerprint } = input as { id?: string; fingerprint?: string };
    if ((id === undefined) === (fingerprint === undefined)) throw validationFailed([{ field: 'id', message: 'give either id or fingerprint' }]);
    const missing = new ApiError('not_found', 'No alert with that id or fingerprint exists in this organization.');
    if (id !== undefined && !isUuid(id)) throw missing;
    const store = readStore(services);
    const [row] = await store.execute(`select ${COLUMNS} from alerts where organization_id = ? and ${id !== undefined ? 'id' : 'fingerprint'} = ?`, [caller.organization.id, id ?? fingerprint]);
    if (!row) throw missing;
    const alert = toAlert(row);
    const effects = await store.execute('select kind, at, detail from alert_effects where alert_id = ? order by seq', [alert.id]);
    const [incident] = alert.incident_id
      ? await store.execute('select id, title, severity, status, opened_at, closed_at from incidents where id = ?', [alert.incident_id])
      : [];
    return {
      json: {
        data: {
          ...alert,
          effects: effects.map((e) => ({ kind: e.kind, at: iso(e.at), detail: json(e.detail) ?? {} })),
          incident: incident
            ? { id: String(incident.id), title: String(incident.title), severity: String(incident.severity), status: incident.status, opened_at: iso(incident.opened_at), closed_at: iso(incident.closed_at) }
            : null,
        },
      },
    };
  },
};

export const ALERT_OPERATIONS: DomainOperation[] = [listAlerts, getAlert];
