/**
 * An incident's timeline, oldest first, from what the service recorded about it: its alerts firing and their effects
 * (pages, chat posts, storms, investigations, the incident opened/joined/closed/reopened), the deployments of its
 * services from `DEPLOYMENTS_BEFORE` before it opened until it closed (or now), the chat messages about it and its
 * alerts, its alerts' investigations, its notes, and the actions people took on it and its alerts (the audit log's
 * entries for them: who, when, what changed). Each source is bounded (`PER_SOURCE`), so a storm's incident stays a
 * readable answer.
 */
import Type from 'typebox';
import { AuditEntryEntity } from '../../engine/persistence/entities.ts';
import type { SqlExecutor } from '../../engine/persistence/sql.ts';
import { iso, jsonValue } from '../../engine/persistence/store.ts';
import { JSON_VALUE, literals } from '../../engine/operations/tool-schemas.ts';
import type { Services } from '../../engine/services.ts';
import { chatMessagesAbout } from '../../outbound/alerts.ts';
import { TimelineEntryEntity } from '../timeline/entities.ts';
import { AUDITED } from './people.ts';
import { InvestigationEntity, IncidentNoteEntity, AlertEffectEntity } from './entities.ts';

/** Deployments this long before an incident opened may have caused it. */
export const DEPLOYMENTS_BEFORE_MS = 2 * 60 * 60_000;
/** The most entries of one kind of source a timeline holds. */
const PER_SOURCE = 500;

export const TIMELINE_KINDS = ['alert', 'alert_effect', 'deployment', 'chat_message', 'investigation', 'note', 'action'] as const;
type Kind = (typeof TIMELINE_KINDS)[number];

export const TIMELINE_ENTRY = Type.Object({
  at: Type.String({ format: 'date-time' }),
  kind: literals(TIMELINE_KINDS, 'alert (one of its alerts started firing), alert_effect (a consequence the pipeline recorded on an alert), deployment, chat_message, investigation, note, action (a person\'s action on it or one of its alerts)'),
  alert_id: Type.Union([Type.String(), Type.Null()], { description: 'the alert it is about, if one' }),
  summary: Type.String({ description: 'one line for people' }),
  detail: Type.Record(Type.String(), JSON_VALUE(), { description: 'the entry\'s facts: ids, states, the actor (`by` / `actor`), the changes' }),
});

interface Entry {
  at: string;
  kind: Kind;
  alert_id: string | null;
  summary: string;
  detail: Record<string, unknown>;
}

interface Subject {
  id: string;
  opened_at: string | null;
  closed_at: string | null;
  alerts: { id: string; title: string; service: string | null; severity: string; status: string; started_at: string; fingerprint: string }[];
}

const inList = (values: readonly unknown[]) => values.map(() => '?').join(', ');

export async function incidentTimeline(services: Services, sql: SqlExecutor, organizationId: string, incident: Subject): Promise<Entry[]> {
  const alertIds = incident.alerts.map((a) => a.id);
  const entries: Entry[] = incident.alerts.map((a) => ({
    at: a.started_at, kind: 'alert', alert_id: a.id, summary: `${a.title} started firing`,
    detail: { title: a.title, fingerprint: a.fingerprint, service: a.service, severity: a.severity, status: a.status },
  }));
  if (alertIds.length) {
    const effects = await sql(
      `select alert_id, at, kind, detail from ${AlertEffectEntity.meta.tableName} where organization_id = ? and alert_id in (${inList(alertIds)}) order by seq limit ${PER_SOURCE}`,
      [organizationId, ...alertIds],
    );
    for (const e of effects) {
      entries.push({ at: iso(e.at)!, kind: 'alert_effect', alert_id: String(e.alert_id), summary: String(e.kind).replaceAll('_', ' '), detail: { effect: e.kind, ...((jsonValue(e.detail) as object | null) ?? {}) } });
    }
    const investigations = await sql(
      `select id, alert_id, trigger, status, requested_at, finished_at, findings, failure_reason from ${InvestigationEntity.meta.tableName}
        where organization_id = ? and alert_id in (${inList(alertIds)}) order by seq limit ${PER_SOURCE}`,
      [organizationId, ...alertIds],
    );
    for (const i of investigations) {
      const findings = (jsonValue(i.findings) as { summary?: unknown } | null) ?? null;
      entries.push({
        at: iso(i.finished_at) ?? iso(i.requested_at)!, kind: 'investigation', alert_id: String(i.alert_id),
        summary: typeof findings?.summary === 'string' ? findings.summary : `investigation ${i.status}`,
        detail: { investigation_id: i.id, trigger: i.trigger, status: i.status, findings, failure_reason: i.failure_reason ?? null },
      });
    }
  }
  const servicesOf = [...new Set(incident.alerts.map((a) => a.service).filter((s): s is string => s !== null))];
  if (servicesOf.length && incident.opened_at) {
    const from = new Date(new Date(incident.opened_at).getTime() - DEPLOYMENTS_BEFORE_MS);
    const until = incident.closed_at ? new Date(incident.closed_at) : services.clock.now();
    const deployments = await sql(
      `select id, source, event_type, status, service, environment, version, previous_version, deployed_by, description, occurred_at
         from ${TimelineEntryEntity.meta.tableName} where organization_id = ? and service in (${inList(servicesOf)}) and occurred_at >= ? and occurred_at <= ?
        order by occurred_at, seq limit ${PER_SOURCE}`,
      [organizationId, ...servicesOf, from, until],
    );
    for (const d of deployments) {
      entries.push({
        at: iso(d.occurred_at)!, kind: 'deployment', alert_id: null,
        summary: `${String(d.event_type).replaceAll('_', ' ')} of ${d.service}${d.version ? ` ${d.version}` : ''}${d.environment ? ` to ${d.environment}` : ''} (${d.status})`,
        detail: {
          deployment_id: d.id, source: d.source, event_type: d.event_type, status: d.status, service: d.service, environment: d.environment ?? null,
          version: d.version ?? null, previous_version: d.previous_version ?? null, deployed_by: d.deployed_by ?? null, description: d.description ?? null,
        },
      });
    }
  }
  for (const m of await chatMessagesAbout(sql, organizationId, [incident.id, ...alertIds], PER_SOURCE)) {
    const { text, created_at, subject_id, id, ...rest } = m;
    entries.push({ at: created_at, kind: 'chat_message', alert_id: subject_id === incident.id ? null : subject_id, summary: text.split('\n')[0]!.slice(0, 200), detail: { message_id: id, text, ...rest } });
  }
  const notes = await sql(
    `select id, author_kind, author_id, body, created_at from ${IncidentNoteEntity.meta.tableName} where organization_id = ? and incident_id = ? order by seq limit ${PER_SOURCE}`,
    [organizationId, incident.id],
  );
  for (const n of notes) {
    entries.push({ at: iso(n.created_at)!, kind: 'note', alert_id: null, summary: String(n.body).split('\n')[0]!.slice(0, 200), detail: { note_id: n.id, body: n.body, by: { kind: n.author_kind, id: n.author_id } } });
  }
  const audited = [incident.id, ...alertIds];
  const actions = await sql(
    `select at, actor_kind, actor_id, transport, family, row_id, action, changes from ${AuditEntryEntity.meta.tableName}
      where organization_id = ? and family in (?, ?) and row_id in (${inList(audited)}) order by seq limit ${PER_SOURCE}`,
    [organizationId, AUDITED.incidents, AUDITED.alerts, ...audited],
  );
  for (const a of actions) {
    const name = String(a.action).replace(/^action:/, '');
    entries.push({
      at: iso(a.at)!, kind: 'action', alert_id: a.family === AUDITED.alerts ? String(a.row_id) : null,
      summary: `${name.replaceAll('_', ' ')} by ${a.actor_kind} ${a.actor_id}`,
      detail: { action: name, actor: { kind: a.actor_kind, id: a.actor_id }, transport: a.transport, changes: jsonValue(a.changes) ?? {} },
    });
  }
  // oldest first; entries of one instant keep the order they were gathered in (alerts, their effects, …)
  return entries.map((e, i) => ({ e, i })).sort((x, y) => (x.e.at < y.e.at ? -1 : x.e.at > y.e.at ? 1 : x.i - y.i)).map(({ e }) => e);
}
