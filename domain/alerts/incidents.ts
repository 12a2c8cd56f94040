/**
 * Incidents as a read model: `list_incidents` (GET /api/v1/config/incidents, paged, filtered) and `get_incident`
 * (GET /incidents/{id}) with its alerts and its timeline (incident-timeline.ts). The pipeline opens and closes them
 * (alerts/pipeline.ts); people act on them through incident-actions.ts.
 *
 * `status` stays open or closed (the deploy gate and the incident.opened / incident.closed events read it);
 * acknowledgement, assignee and who resolved it sit beside it.
 */
import Type from 'typebox';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import { pageFields, type PageLimits } from '../../engine/operations/page.ts';
import { atOrAfter, equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type ListFilter, type RecordList } from '../../engine/operations/record-list.ts';
import { literals, time } from '../../engine/operations/tool-schemas.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { iso, jsonValue } from '../../engine/persistence/store.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { isUuid } from '../../engine/validation.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { incidentTimeline, TIMELINE_ENTRY } from './incident-timeline.ts';
import { ACTOR, MEMBER, memberColumns, memberOf, namePeople } from './people.ts';
import { ALERT, alertsOfIncident } from './tools.ts';

export const INCIDENT_STATES = ['open', 'closed'] as const;

export const INCIDENT = Type.Object({
  id: Type.String(),
  title: Type.String(),
  severity: literals(ALERT_SEVERITIES, 'critical, high, warning or info: its opening alert\'s, unless set_incident_severity changed it'),
  status: literals(INCIDENT_STATES, 'open or closed (acknowledged_at says whether someone took it)'),
  opened_at: Type.String({ format: 'date-time' }),
  closed_at: time('when it closed'),
  storm_id: Type.Union([Type.String(), Type.Null()], { description: 'the storm it was opened for, if any' }),
  acknowledged_at: time('when someone acknowledged it (acknowledge_incident); null: not acknowledged'),
  acknowledged_by: Type.Union([ACTOR, Type.Null()], { description: 'who acknowledged it' }),
  assignee: Type.Union([MEMBER, Type.Null()], { description: 'the member it is assigned to; null: nobody' }),
  resolved_by: Type.Union([ACTOR, Type.Null()], { description: 'who closed it by hand; null while open, or when its alerts\' sources closed it' }),
  services: Type.Array(Type.String(), { description: 'the services of its alerts' }),
});

export const INCIDENT_COLUMNS = `id, title, severity, status, opened_at, closed_at, storm_id, acknowledged_at, acknowledged_by, ${memberColumns('incidents')}, resolved_by,
  (select coalesce(json_agg(distinct a.service), '[]'::json) from alerts a where a.incident_id = incidents.id and a.service is not null) as services`;

/** Newest first by when it opened (insertion order): no later change moves an incident, so pages never skip or repeat one. */
/** as every list of records (engine/operations/record-list.ts): 50 by default, at most 200 (docs/api.md) */
export const INCIDENT_LIST_LIMITS: PageLimits = RECORD_LIST_LIMITS;
const INCIDENT_LIST: RecordList = { name: 'incidents', select: `${INCIDENT_COLUMNS}, seq`, from: 'incidents', keys: NEWEST_FIRST, limits: INCIDENT_LIST_LIMITS };

const actor = (v: unknown) => (jsonValue(v) as { kind: string; id: string } | null) ?? null;

export function toIncident(r: Record<string, unknown>) {
  return {
    id: String(r.id), title: String(r.title), severity: String(r.severity), status: String(r.status), opened_at: iso(r.opened_at), closed_at: iso(r.closed_at),
    storm_id: (r.storm_id as string | null) ?? null, acknowledged_at: iso(r.acknowledged_at), acknowledged_by: actor(r.acknowledged_by),
    assignee: memberOf(r), resolved_by: actor(r.resolved_by), services: ((jsonValue(r.services) as string[] | null) ?? []).sort(),
  };
}

export const notFound = () => new ApiError('not_found', 'No incident with that id exists in this organization.');

/** The incident as get_incident answers it (alerts, timeline), read through `sql`; null when the organization has none of that id. */
export async function readIncident(services: Services, sql: SqlExecutor, organizationId: string, id: string): Promise<Record<string, unknown> | null> {
  if (!isUuid(id)) return null;
  const [row] = await sql(`select ${INCIDENT_COLUMNS} from incidents where organization_id = ? and id = ?`, [organizationId, id]);
  if (!row) return null;
  const incident = toIncident(row);
  const alerts = await alertsOfIncident(sql, organizationId, id);
  const timeline = await incidentTimeline(services, sql, organizationId, { ...incident, alerts });
  await namePeople(sql, organizationId, [incident.acknowledged_by, incident.resolved_by, ...timeline.flatMap((e) => [e.detail.by, e.detail.actor])]);
  return { ...incident, alerts, timeline };
}

export const INCIDENT_ANSWER = Type.Object({
  data: Type.Intersect([
    INCIDENT,
    Type.Object({
      alerts: Type.Array(ALERT, { description: 'its alerts, in the order they joined it' }),
      timeline: Type.Array(TIMELINE_ENTRY, { description: 'what happened, oldest first' }),
    }),
  ]),
});

export const listIncidents = {
  name: 'list_incidents',
  description:
    'The organization\'s incidents, newest first (by when each opened): open or closed, with who acknowledged, who is assigned and who ' +
    'resolved each, and its alerts\' services. The alert pipeline opens one for a paging alert (or storm) when auto_open_incidents is on and ' +
    'its severity reaches incident_severity_floor. Paged: pass `next_cursor` back as `cursor` with the same filters. get_incident gives one ' +
    'with its alerts and timeline.',
  input: Type.Object(
    {
      status: Type.Optional(literals(INCIDENT_STATES, 'only open or only closed incidents')),
      severity: Type.Optional(literals(ALERT_SEVERITIES, 'only incidents of this severity')),
      service: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only incidents with an alert of this service (exact)' })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'only incidents opened at or after this time (ISO 8601)' })),
      ...pageFields(INCIDENT_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'incidents' },
  answer: { schema: recordPageSchema(INCIDENT) },
  async run(services, caller, input) {
    const service: ListFilter[] = typeof input.service === 'string'
      ? [{ field: 'service', value: input.service, sql: 'exists (select 1 from alerts a where a.incident_id = incidents.id and a.service = ?)', params: [input.service] }]
      : [];
    const filters = [...equalTo(input, { status: 'status', severity: 'severity' }), ...service, ...atOrAfter(input, 'since', 'opened_at')];
    const page = await recordPage(services, INCIDENT_LIST, caller.organization.id, filters, input, (rows) => rows.map(toIncident));
    await namePeople(readStore(services).execute, caller.organization.id, (page.data as ReturnType<typeof toIncident>[]).flatMap((i) => [i.acknowledged_by, i.resolved_by]));
    return { json: page };
  },
} satisfies DomainOperation;

export const getIncident = {
  name: 'get_incident',
  description:
    'One incident with its alerts and its timeline, oldest first: each alert firing and its effects (pages, chat posts, storm grouping, ' +
    'investigations requested or skipped, the incident opened, joined, closed or reopened), the deployments of its services from 2 hours ' +
    'before it opened until it closed, the chat messages about it and its alerts, its alerts\' investigation findings, its notes, and the ' +
    'actions people took on it and its alerts (who, when, what changed).',
  input: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'the incident id' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'incidents', param: 'id' },
  answer: { schema: INCIDENT_ANSWER },
  async run(services, caller, input) {
    const data = await readIncident(services, readStore(services).execute, caller.organization.id, String(input.id));
    if (!data) throw notFound();
    return { json: { data } };
  },
} satisfies DomainOperation;
