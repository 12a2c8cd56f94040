/**
 * `/incidents` (`list_incidents`: filtered by status, severity, service and since; paged by the API's cursor) and
 * `/incidents/<id>` (`get_incident`): its facts, its alerts and its timeline — alerts firing and their effects,
 * deployments of the same services around it, chat posts, investigation findings, notes and people's actions — with,
 * for a member, acknowledge / unacknowledge, resolve / reopen, assign, severity and a note, each posting to the
 * operation REST and MCP serve (`acknowledge_incident`, …, `add_incident_note`).
 */
import { randomUUID } from 'node:crypto';
import { roleAtLeast } from '../../engine/plans.ts';
import { ApiError } from '../../engine/errors.ts';
import { INCIDENT_STATES } from '../../domain/alerts/incidents.ts';
import { ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import { html, type Html } from '../../engine/html.ts';
import { ALERT_TABLE_HEAD, alertRow, statusBadge } from './alerts.ts';
import { actionButton, actorText, assigneeInput, effectText, fieldState, personText, refusedForm, refusedNotice, savedNotice, sinceInput, type Refused } from './facts.ts';
import { seeOther } from './http.ts';
import { csrfField, layout } from './layout.ts';
import { filterForm, pager, type FilterField } from './lists.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { acknowledgeIncident, addIncidentNote, assignIncident, reopenIncident, resolveIncident, setIncidentSeverity, unacknowledgeIncident } from '../../domain/alerts/incident-actions.ts';
import { getIncident, listIncidents } from '../../domain/alerts/incidents.ts';
import { filters, listPage, run, type Json } from './operations.ts';
import type { Screen, ScreenRequest } from './page.ts';
import { organizationTime, type TimeFormat } from './time.ts';

const FIELDS: FilterField[] = [
  { name: 'status', label: 'Status', kind: 'select', options: INCIDENT_STATES },
  { name: 'severity', label: 'Severity', kind: 'select', options: ALERT_SEVERITIES },
  { name: 'service', label: 'Service', kind: 'text' },
  { name: 'since', label: 'Opened since (UTC)', kind: 'text' },
];

/** The forms a member may send, by the path segment they post to: the operation and what it reads from the form. */
const ACTIONS: Record<string, { op: DomainOperation; saved: string; input?: (form: Record<string, string>) => Json; idempotent?: boolean }> = {
  acknowledge: { op: acknowledgeIncident, saved: 'The incident was acknowledged.' },
  unacknowledge: { op: unacknowledgeIncident, saved: 'The acknowledgement was taken back.' },
  resolve: { op: resolveIncident, saved: 'The incident was resolved.' },
  reopen: { op: reopenIncident, saved: 'The incident was reopened.' },
  assign: { op: assignIncident, saved: 'The assignee was saved.', input: (f) => ({ assignee: assigneeInput(f.assignee) }) },
  severity: { op: setIncidentSeverity, saved: 'The severity was saved.', input: (f) => ({ severity: f.severity ?? '' }) },
  // a fresh idempotency key per form: sending it twice (a reload, a double click) adds one note
  note: { op: addIncidentNote, saved: 'Your note was added.', input: (f) => ({ body: f.body ?? '' }), idempotent: true },
};
const SAVED = Object.fromEntries(Object.entries(ACTIONS).map(([k, v]) => [k, v.saved]));

const KIND_LABELS: Record<string, string> = {
  alert: 'Alert', alert_effect: 'Effect', deployment: 'Deployment', chat_message: 'Chat', investigation: 'Investigation', note: 'Note', action: 'Action',
};

export const incidentState = (i: Json) => (i.status === 'open' ? (i.acknowledged_at ? 'acknowledged' : 'open') : 'closed');

export const incidentsScreen: Screen = async (services, { ctx, session }) => {
  const chosen = filters(ctx.query, FIELDS.map((f) => f.name));
  const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
  const input = { ...chosen, ...(chosen.since ? { since: sinceInput(chosen.since) } : {}), limit: 50 };
  const page = await listPage(services, session.caller, listIncidents, input, cursor);
  const time = await organizationTime(services, session.caller.organization.id);
  const rows = page.data.map((i) => html`<tr><td><a href="/incidents/${i.id}">${i.title}</a></td><td>${statusBadge(incidentState(i))}</td><td>${i.severity}</td>
<td>${(i.services as string[]).join(', ')}</td><td>${time(i.opened_at)}</td><td>${i.closed_at ? time(i.closed_at) : ''}</td><td>${i.assignee ? personText(i.assignee) : ''}</td></tr>`);
  const body = html`<h1>Incidents</h1>${filterForm('/incidents', FIELDS, chosen)}
${rows.length ? html`<table><thead><tr><th scope="col">Incident</th><th scope="col">Status</th><th scope="col">Severity</th><th scope="col">Services</th><th scope="col">Opened</th><th scope="col">Closed</th><th scope="col">Assignee</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p>No incidents${Object.keys(chosen).length ? ' match' : ' yet'}.</p>`}${pager('/incidents', chosen, page)}`;
  return { page: layout(session, { title: 'Incidents', section: '/incidents', body }) };
};

/** One timeline entry in a line: what happened, with the actor for a person's action or note. */
function entryText(e: Json, request: ScreenRequest): Html {
  const d = (e.detail ?? {}) as Json;
  const { session } = request;
  switch (e.kind) {
    case 'alert_effect': return html`${effectText(String(d.effect), d)}${d.by ? html` <span class="muted">by ${actorText(session, d.by)}</span>` : ''}`;
    case 'action': return html`${String(d.action ?? '').replaceAll('_', ' ')} <span class="muted">by ${actorText(session, d.actor)} (${String(d.transport ?? '')})</span>`;
    case 'note': return html`<span class="pre">${String(d.body ?? e.summary)}</span> <span class="muted">by ${actorText(session, d.by)}</span>`;
    case 'chat_message': return html`${String(e.summary)}${d.status ? html` <span class="muted">(${String(d.status)})</span>` : ''}`;
    default: return html`${String(e.summary)}`;
  }
}

function timeline(entries: Json[], alerts: Map<string, string>, time: TimeFormat, request: ScreenRequest): Html {
  if (!entries.length) return html`<p class="muted">Nothing recorded yet.</p>`;
  return html`<table class="timeline"><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Entry</th><th scope="col">Alert</th></tr></thead><tbody>${entries.map(
    (e) => html`<tr class="k-${String(e.kind)}"><td>${time(e.at)}</td><td>${KIND_LABELS[String(e.kind)] ?? String(e.kind)}</td><td>${entryText(e, request)}</td>
<td>${e.alert_id ? html`<a href="/alerts/${e.alert_id}">${alerts.get(String(e.alert_id)) ?? 'alert'}</a>` : ''}</td></tr>`,
  )}</tbody></table>`;
}

function actionsPanel(incident: Json, request: ScreenRequest, refused?: Refused): Html {
  const { session } = request;
  const csrf = csrfField(session);
  const at = (a: string) => `/incidents/${incident.id}/${a}`;
  const assignee = fieldState(refused, 'assign', 'assignee', incident.assignee?.email ?? '');
  const buttons = incident.status === 'open'
    ? [incident.acknowledged_at ? actionButton(session, at('unacknowledge'), 'Unacknowledge') : actionButton(session, at('acknowledge'), 'Acknowledge'), actionButton(session, at('resolve'), 'Resolve')]
    : [actionButton(session, at('reopen'), 'Reopen')];
  return html`<section class="panel stack" aria-labelledby="act"><h2 id="act">Act</h2><div class="buttons">${buttons}</div>
<form method="post" action="${at('assign')}" class="inline" novalidate>${csrf}<label for="assignee">Assignee email</label><input type="email" id="assignee" name="assignee" value="${assignee.value}"${assignee.invalid}><button type="submit">Assign</button>${assignee.message}</form>
<form method="post" action="${at('severity')}" class="inline">${csrf}<label for="severity">Severity</label><select id="severity" name="severity">${ALERT_SEVERITIES.map(
    (s) => html`<option value="${s}"${s === incident.severity ? html` selected` : ''}>${s}</option>`,
  )}</select><button type="submit">Set severity</button></form></section>`;
}

function noteForm(incident: Json, request: ScreenRequest, refused?: Refused): Html {
  const body = fieldState(refused, 'note', 'note-body', '');
  return html`<form method="post" action="/incidents/${incident.id}/note" class="stack" aria-labelledby="add-note" novalidate>${csrfField(request.session)}<input type="hidden" name="key" value="${randomUUID()}">
<h3 id="add-note">Add a note</h3><label for="note-body" class="visually-hidden">Note</label><textarea id="note-body" name="body"${body.invalid}>${refused?.action === 'note' ? refused.values.body ?? '' : ''}</textarea>${body.message}<button type="submit">Add note</button></form>`;
}

export const incidentScreen: Screen = (services, request) => incidentPage(services, request);

/** The incident's page; with `refused`, a form it holds is drawn again with what was typed and the message beside its field (422). */
async function incidentPage(services: Parameters<Screen>[0], request: ScreenRequest, refused?: Refused): Promise<{ status: number; page: Html }> {
  const { session, ctx } = request;
  const incident = (await run(services, session.caller, getIncident, { id: String(ctx.params.id ?? '') })).data as Json;
  const time = await organizationTime(services, session.caller.organization.id);
  const alerts = (incident.alerts ?? []) as Json[];
  const titles = new Map(alerts.map((a) => [String(a.id), String(a.title)]));
  const canAct = roleAtLeast(session.caller.role, 'member');
  const body = html`<p><a href="/incidents">Incidents</a></p><h1>${incident.title} ${statusBadge(incidentState(incident))}</h1>${savedNotice(ctx.query, SAVED)}${refusedNotice(refused)}
${canAct ? actionsPanel(incident, request, refused) : ''}
<div class="layout"><div class="stack">
<section class="panel" aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>${timeline((incident.timeline ?? []) as Json[], titles, time, request)}${canAct ? noteForm(incident, request, refused) : ''}</section>
<section class="panel" aria-labelledby="alerts"><h2 id="alerts">Alerts</h2>${alerts.length ? html`<table>${ALERT_TABLE_HEAD}<tbody>${alerts.map((a) => alertRow(a, time))}</tbody></table>` : html`<p class="muted">None.</p>`}</section>
</div><div class="stack"><section class="panel" aria-labelledby="facts"><h2 id="facts">Facts</h2><dl class="facts">
<dt>Status</dt><dd>${incident.status}</dd><dt>Severity</dt><dd>${incident.severity}</dd><dt>Services</dt><dd>${(incident.services as string[]).join(', ') || 'None'}</dd>
<dt>Opened</dt><dd>${time(incident.opened_at)}</dd><dt>Acknowledged</dt><dd>${incident.acknowledged_at ? html`${time(incident.acknowledged_at)} by ${actorText(session, incident.acknowledged_by)}` : 'No'}</dd>
<dt>Assignee</dt><dd>${incident.assignee ? personText(incident.assignee) : 'Unassigned'}</dd>
<dt>Closed</dt><dd>${incident.closed_at ? html`${time(incident.closed_at)}${incident.resolved_by ? ` by ${actorText(session, incident.resolved_by)}` : ''}` : 'No'}</dd>
<dt>Storm</dt><dd>${incident.storm_id ?? 'None'}</dd></dl></section>
</div></div>`;
  return { status: refused ? 422 : 200, page: layout(session, { title: String(incident.title), section: '/incidents', body }) };
}

/** A button's or form's POST: the operation as the signed-in person, then back to the incident (303). */
export const incidentActionScreen: Screen = async (services, { ctx, session, form }) => {
  const name = String(ctx.params.action ?? '');
  const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name]! : null;
  if (!action) throw new ApiError('not_found', 'No such action on an incident.');
  const input: Json = { id: String(ctx.params.id ?? ''), ...(action.input?.(form) ?? {}) };
  let answer: Json;
  try {
    answer = (await run(services, session.caller, action.op, input, action.idempotent ? form.key || undefined : undefined)).data as Json;
  } catch (error) {
    // the form's inputs by the operation's field names: drawn again with what was typed
    const refused = refusedForm(error, name, form, { assignee: 'assignee', 'note-body': 'body' });
    if (refused) return incidentPage(services, { ctx, session, form }, refused);
    throw error;
  }
  seeOther(ctx, `/incidents/${encodeURIComponent(String(answer.id))}?saved=${name}`);
};
