/**
 * What a person (or an agent) does to an incident. REST: `POST /api/v1/config/incidents/{id}/<action>`; MCP: the tool
 * of the same name. Each answers the incident after the action, as get_incident does.
 *
 * - acknowledge: acknowledges its firing alerts (each as acknowledge_alert: chat thread, alert.acknowledged) and
 *   records who acknowledged the incident; un-acknowledge takes both back (its acknowledged alerts fire again, unpaged);
 * - resolve: resolves its alerts that are not resolved (each as resolve_alert) and closes it (incident.closed) if the
 *   last resolve did not already (auto_close_incidents);
 * - reopen: opens it again (incident.opened again, its acknowledgement cleared); its alerts stay as they are — they
 *   resolved in their sources, which say when they fire again (and then they rejoin it while it is open);
 * - assign, set severity: the incident's own fields; add a note: a note in its timeline.
 *
 * The state-setting actions are idempotent: a repeat that finds the incident where the action leads answers 200 and
 * does nothing. Acknowledging or un-acknowledging a closed incident is 409 `conflict` (reopen it first). add_incident_note
 * adds a note each time, so it takes an Idempotency-Key. Every change is audited (family `incidents`,
 * `action:<name>`) with its actor, who is also `by` on the alert effects it caused.
 */
import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import type { Caller } from '../../engine/auth/caller.ts';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import { actorOf, recordAudit } from '../../engine/operations/audit.ts';
import type { Change } from '../../engine/operations/audit-entry.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { literals } from '../../engine/operations/tool-schemas.ts';
import { iso, type FamilyStore } from '../../engine/persistence/store.ts';
import type { Row } from '../../engine/descriptor.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { isUuid } from '../../engine/validation.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { INCIDENT_ANSWER, notFound, readIncident } from './incidents.ts';
import { ASSIGNEE_INPUT, AUDITED, findMember } from './people.ts';
import { actOnAlerts, type PersonActions } from './pipeline.ts';
import type { PersonAction } from './rules.ts';

const ID = Type.String({ minLength: 1, maxLength: 100, description: 'the incident id (list_incidents, get_incident)' });
const NOTE_MAX = 10_000;

interface Locked {
  status: 'open' | 'closed';
  severity: string;
  acknowledged_at: unknown;
  assignee_id: string | null;
}

/** The organization's incident, row-locked for the action (404 when it has none of that id). */
async function lockIncident(store: FamilyStore, caller: Caller, id: string): Promise<Locked> {
  const [row] = isUuid(id)
    ? await store.execute('select status, severity, acknowledged_at, assignee_id from incidents where organization_id = ? and id = ? for update', [caller.organization.id, id])
    : [];
  if (!row) throw notFound();
  return { status: row.status === 'closed' ? 'closed' : 'open', severity: String(row.severity), acknowledged_at: row.acknowledged_at ?? null, assignee_id: (row.assignee_id as string | null) ?? null };
}

/** Its alerts in these states, in the order they were recorded (each action re-checks its alert under its lock). */
async function alertsIn(store: FamilyStore, caller: Caller, id: string, states: readonly string[]): Promise<string[]> {
  const rows = await store.execute(
    `select id from alerts where organization_id = ? and incident_id = ? and status in (${states.map(() => '?').join(', ')}) order by seq`,
    [caller.organization.id, id, ...states],
  );
  return rows.map((r) => String(r.id));
}

async function firstAlert(store: FamilyStore, caller: Caller, id: string): Promise<string | null> {
  const [row] = await store.execute('select id from alerts where organization_id = ? and incident_id = ? order by seq limit 1', [caller.organization.id, id]);
  return row ? String(row.id) : null;
}

/** Each alert through the pipeline; answers how many the action changed. */
async function actOnEach(actions: PersonActions, alertIds: readonly string[], action: PersonAction): Promise<string[]> {
  const changed: string[] = [];
  for (const alertId of alertIds) if ((await actions.act(alertId, action))?.outcome === 'applied') changed.push(alertId);
  return changed;
}

const conflict = async (services: Services, store: FamilyStore, caller: Caller, id: string, message: string) =>
  new ApiError('conflict', message, { data: await readIncident(services, store.execute, caller.organization.id, id) });

type Work = (context: { services: Services; caller: Caller; store: FamilyStore; id: string; incident: Locked; input: Row; now: Date; actions?: PersonActions }) => Promise<Record<string, Change> | null>;

/**
 * An incident action: the incident locked, `work` done (through the pipeline when `pipeline`), audited when it
 * changed something (`work` answers the changes, or null for none), then the incident as it is answered.
 */
function incidentAction(fields: Omit<DomainOperation, 'role' | 'kind' | 'rest' | 'answer' | 'run'> & { action: string; pipeline: boolean }, work: Work): DomainOperation {
  const { action, pipeline, ...declared } = fields;
  return {
    ...declared,
    // through the pipeline its consequences leave the service (chat, outbound events)
    ...(pipeline ? { reachesOutside: true as const } : {}),
    role: 'member',
    kind: 'write',
    rest: { method: 'POST', path: 'incidents', param: 'id', action },
    answer: { schema: INCIDENT_ANSWER },
    async run(services, caller, input) {
      const id = String(input.id);
      if (!isUuid(id)) throw notFound();
      const now = services.clock.now();
      const step = async (store: FamilyStore, actions?: PersonActions) => {
        const incident = await lockIncident(store, caller, id);
        const changes = await work({ services, caller, store, id, incident, input, now, actions });
        if (changes) await recordAudit(services, store, { caller, family: AUDITED.incidents, rowId: id, action: `action:${declared.name}`, changes, at: now });
      };
      if (pipeline) await actOnAlerts(services, caller.organization, actorOf(caller), now, (actions, store) => step(store, actions));
      else await inTransaction(services, (store) => step(store));
      const data = await readIncident(services, readStore(services).execute, caller.organization.id, id);
      if (!data) throw notFound();
      return { json: { data } };
    },
  };
}

const idOnly = Type.Object({ id: ID }, { additionalProperties: false });

export const acknowledgeIncident = incidentAction({
  name: 'acknowledge_incident',
  description:
    'Acknowledges an open incident: each of its firing alerts is acknowledged as acknowledge_alert does (chat thread, alert.acknowledged), and ' +
    'the incident records who acknowledged it and when (its status stays open). Already acknowledged with no firing alert: answers it unchanged. ' +
    'A closed incident is refused (409 conflict).',
  input: idOnly, idempotent: true, action: 'acknowledge', pipeline: true,
}, async ({ services, caller, store, id, incident, now, actions }) => {
  if (incident.status === 'closed') throw await conflict(services, store, caller, id, 'The incident is closed: there is nothing to acknowledge. Reopen it first (reopen_incident).');
  const alerts = await actOnEach(actions!, await alertsIn(store, caller, id, ['firing']), 'acknowledge');
  const changes: Record<string, Change> = {};
  if (incident.acknowledged_at === null) {
    await store.execute('update incidents set acknowledged_at = ?, acknowledged_by = ?::jsonb where id = ?', [now, JSON.stringify(actorOf(caller)), id]);
    changes.acknowledged_at = { before: null, after: now.toISOString() };
  }
  if (alerts.length) changes.alerts_acknowledged = { before: null, after: alerts };
  return Object.keys(changes).length ? changes : null;
});

export const unacknowledgeIncident = incidentAction({
  name: 'unacknowledge_incident',
  description:
    'Takes an open incident\'s acknowledgement back: its acknowledged alerts fire again as unacknowledge_alert does (their chat threads hear of ' +
    'it; nobody is paged again) and the incident is no longer acknowledged. Not acknowledged and no acknowledged alert: answers it unchanged. ' +
    'A closed incident is refused (409 conflict).',
  input: idOnly, idempotent: true, action: 'unacknowledge', pipeline: true,
}, async ({ services, caller, store, id, incident, actions }) => {
  if (incident.status === 'closed') throw await conflict(services, store, caller, id, 'The incident is closed: there is no acknowledgement to take back. Reopen it first (reopen_incident).');
  const alerts = await actOnEach(actions!, await alertsIn(store, caller, id, ['acknowledged']), 'unacknowledge');
  const changes: Record<string, Change> = {};
  if (incident.acknowledged_at !== null) {
    await store.execute('update incidents set acknowledged_at = null, acknowledged_by = null where id = ?', [id]);
    changes.acknowledged_at = { before: iso(incident.acknowledged_at), after: null };
  }
  if (alerts.length) changes.alerts_unacknowledged = { before: null, after: alerts };
  return Object.keys(changes).length ? changes : null;
});

export const resolveIncident = incidentAction({
  name: 'resolve_incident',
  description:
    'Resolves an incident: each of its alerts not yet resolved is resolved as resolve_alert does (chat thread, alert.resolved), and the incident ' +
    'closes (incident.closed; resolved_by names you). Already closed: answers it unchanged.',
  input: idOnly, idempotent: true, action: 'resolve', pipeline: true,
}, async ({ store, caller, id, incident, actions }) => {
  if (incident.status === 'closed') return null;
  const alerts = await actOnEach(actions!, await alertsIn(store, caller, id, ['firing', 'acknowledged', 'muted']), 'resolve');
  // the last resolve closed it already when auto_close_incidents is on; else it closes here, recorded on the last alert resolved
  await actions!.closeIncident(id, alerts.at(-1) ?? (await firstAlert(store, caller, id)));
  return { status: { before: 'open', after: 'closed' }, ...(alerts.length ? { alerts_resolved: { before: null, after: alerts } } : {}) };
});

export const reopenIncident = incidentAction({
  name: 'reopen_incident',
  description:
    'Opens a closed incident again (incident.opened goes out again; it is no longer acknowledged). Its alerts stay as they are: they resolved ' +
    'in their sources, which say when they fire again (an alert of it that fires again rejoins it while it is open). It closes again by ' +
    'resolve_incident, or when an alert of it resolves and none still fires (auto_close_incidents). Already open: answers it unchanged.',
  input: idOnly, idempotent: true, action: 'reopen', pipeline: true,
}, async ({ store, caller, id, incident, actions }) => {
  if (incident.status === 'open') return null;
  await actions!.reopenIncident(id, await firstAlert(store, caller, id));
  return { status: { before: 'closed', after: 'open' } };
});

export const assignIncident = incidentAction({
  name: 'assign_incident',
  description:
    'Assigns an incident to a member of the organization (by user id or email), or unassigns it (assignee null). Assigning it to whom it is ' +
    'assigned already answers it unchanged.',
  input: Type.Object({ id: ID, assignee: ASSIGNEE_INPUT }, { additionalProperties: false }),
  idempotent: true, action: 'assign', pipeline: false,
}, async ({ store, caller, id, incident, input }) => {
  const assignee = await findMember(store.execute, caller.organization.id, input.assignee as string | null);
  if (assignee === incident.assignee_id) return null;
  await store.execute('update incidents set assignee_id = ? where id = ?', [assignee, id]);
  return { assignee: { before: incident.assignee_id, after: assignee } };
});

export const setIncidentSeverity = incidentAction({
  name: 'set_incident_severity',
  description: 'Sets an incident\'s severity (critical, high, warning or info), open or closed. The same severity answers it unchanged.',
  input: Type.Object({ id: ID, severity: literals(ALERT_SEVERITIES, 'critical, high, warning or info') }, { additionalProperties: false }),
  idempotent: true, action: 'set_severity', pipeline: false,
}, async ({ store, id, incident, input }) => {
  if (input.severity === incident.severity) return null;
  await store.execute('update incidents set severity = ? where id = ?', [input.severity, id]);
  return { severity: { before: incident.severity, after: input.severity } };
});

export const addIncidentNote = incidentAction({
  name: 'add_incident_note',
  description:
    'Adds a note to an incident\'s timeline (open or closed), signed with who wrote it. Each call adds one: send an Idempotency-Key ' +
    '(MCP: idempotency_key) to make a retry safe.',
  input: Type.Object({ id: ID, body: Type.String({ minLength: 1, maxLength: NOTE_MAX, description: `the note, 1 to ${NOTE_MAX} characters` }) }, { additionalProperties: false }),
  additive: true, action: 'notes', pipeline: false,
}, async ({ store, caller, id, input, now }) => {
  if (String(input.body).trim() === '') throw validationFailed([{ field: 'body', message: 'must hold more than white space' }]);
  const noteId = randomUUID();
  const author = actorOf(caller);
  await store.execute(
    'insert into incident_notes (id, organization_id, incident_id, author_kind, author_id, body, created_at) values (?, ?, ?, ?, ?, ?, ?)',
    [noteId, caller.organization.id, id, author.kind, author.id, input.body, now],
  );
  return { note: { before: null, after: noteId } };
});

export const INCIDENT_ACTIONS: DomainOperation[] = [
  acknowledgeIncident, unacknowledgeIncident, resolveIncident, reopenIncident, assignIncident, setIncidentSeverity, addIncidentNote,
];
