/**
 * `/alerts` (`list_alerts`: filtered by status, source, service and since; paged by the API's cursor) and
 * `/alerts/<id>` (`get_alert`): what arrived, every effect in order (paged or why not, muted, storm, investigation
 * and its findings, by whom for a person's action), and for a member the buttons acknowledge / unacknowledge /
 * resolve / reopen and an assign form — each posting to the same operation REST and MCP serve (`acknowledge_alert`,
 * …), so a viewer's forged POST is the operation's 403 and another organization's alert its 404.
 */
import { roleAtLeast } from '../../engine/plans.ts';
import { ApiError } from '../../engine/errors.ts';
import { ALL_ALERT_SOURCES } from '../../domain/alerts/event.ts';
import { ALERT_STATES } from '../../domain/alerts/rules.ts';
import { acknowledgeAlert, assignAlert, reopenAlert, resolveAlert, unacknowledgeAlert } from '../../domain/alerts/alert-actions.ts';
import { getAlert, listAlerts } from '../../domain/alerts/tools.ts';
import { getInvestigation } from '../../domain/ai/tools.ts';
import { html, type Html } from '../../engine/html.ts';
import { labelList } from './board.ts';
import { actionButton, actorText, assigneeInput, effectText, fieldState, personText, refusedForm, refusedNotice, savedNotice, sinceInput, type Refused } from './facts.ts';
import { seeOther } from './http.ts';
import { csrfField, layout } from './layout.ts';
import { filterForm, pager, type FilterField } from './lists.ts';
import { filters, listPage, run, type Json } from './operations.ts';
import type { Screen, ScreenRequest } from './page.ts';
import { organizationTime, type TimeFormat } from './time.ts';

const FIELDS: FilterField[] = [
  { name: 'status', label: 'Status', kind: 'select', options: ALERT_STATES },
  { name: 'source', label: 'Source', kind: 'select', options: ALL_ALERT_SOURCES },
  { name: 'service', label: 'Service', kind: 'text' },
  { name: 'since', label: 'Changed since (UTC)', kind: 'text' },
];

/** The actions a member may take, by the path segment their form posts to. */
const ACTIONS = {
  acknowledge: { op: acknowledgeAlert, label: 'Acknowledge', saved: 'The alert was acknowledged.' },
  unacknowledge: { op: unacknowledgeAlert, label: 'Unacknowledge', saved: 'The acknowledgement was taken back; the alert fires again.' },
  resolve: { op: resolveAlert, label: 'Resolve', saved: 'The alert was resolved.' },
  reopen: { op: reopenAlert, label: 'Reopen', saved: 'The alert was reopened: it fires again.' },
  assign: { op: assignAlert, label: 'Assign', saved: 'The assignee was saved.' },
} as const;
type ActionName = keyof typeof ACTIONS;
const SAVED = Object.fromEntries(Object.entries(ACTIONS).map(([k, v]) => [k, v.saved]));

/** Which buttons an alert in each state shows (the others would be a repeat or a 409). */
const BUTTONS: Record<string, ActionName[]> = {
  firing: ['acknowledge', 'resolve'], muted: ['acknowledge', 'resolve'], acknowledged: ['unacknowledge', 'resolve'], resolved: ['reopen'],
};

const httpLink = (url: unknown, text: string): Html | string =>
  typeof url === 'string' && /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noopener noreferrer">${text}</a>` : '';

const LINK_LABELS: Record<string, string> = { runbook: 'Runbook', dashboard: 'Dashboard', panel: 'Panel', silence: 'Silence it', source: 'Its rule' };

/** What the sender linked (runbook, dashboard, panel, silence, its rule): http(s) as links, anything else as text. */
function senderLinks(links: unknown): Html | string {
  const entries = Object.entries((links ?? {}) as Record<string, string>).filter(([, v]) => typeof v === 'string');
  if (!entries.length) return '';
  return html`<dt>From the sender</dt><dd><ul class="links">${entries.map(([kind, url]) => {
    const label = LINK_LABELS[kind] ?? kind;
    return html`<li>${httpLink(url, label) || html`${label}: <code>${url}</code>`}</li>`;
  })}</ul></dd>`;
}

export const statusBadge = (status: unknown) => html`<span class="badge s-${String(status)}">${String(status)}</span>`;

export function alertRow(a: Json, time: TimeFormat): Html {
  return html`<tr><td><a href="/alerts/${a.id}">${a.title}</a></td><td>${statusBadge(a.status)}</td><td>${a.severity}</td><td>${a.service ?? ''}</td><td>${a.source}</td>
<td>${time(a.started_at)}</td><td>${time(a.updated_at)}</td><td>${a.assignee ? personText(a.assignee) : ''}</td></tr>`;
}

export const ALERT_TABLE_HEAD = html`<thead><tr><th scope="col">Alert</th><th scope="col">Status</th><th scope="col">Severity</th><th scope="col">Service</th><th scope="col">Source</th><th scope="col">Started</th><th scope="col">Changed</th><th scope="col">Assignee</th></tr></thead>`;

export const alertsScreen: Screen = async (services, { ctx, session }) => {
  const chosen = filters(ctx.query, FIELDS.map((f) => f.name));
  const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
  const input = { ...chosen, ...(chosen.since ? { since: sinceInput(chosen.since) } : {}), limit: 50 };
  const page = await listPage(services, session.caller, listAlerts, input, cursor);
  const time = await organizationTime(services, session.caller.organization.id);
  const body = html`<h1>Alerts</h1>${filterForm('/alerts', FIELDS, chosen)}
${page.data.length ? html`<table>${ALERT_TABLE_HEAD}<tbody>${page.data.map((a) => alertRow(a, time))}</tbody></table>`
    : html`<p>No alerts${Object.keys(chosen).length ? ' match' : ' yet'}.</p>`}${pager('/alerts', chosen, page)}`;
  return { page: layout(session, { title: 'Alerts', section: '/alerts', body }) };
};

/** The alert's investigations (each `investigation_requested` effect names one): status and findings. */
async function investigations(services: Parameters<Screen>[0], request: ScreenRequest, effects: Json[], time: TimeFormat): Promise<Html | string> {
  const ids = [...new Set(effects.filter((e) => e.kind === 'investigation_requested').map((e) => (e.detail as Json)?.investigation_id).filter((id) => typeof id === 'string'))].slice(-5);
  if (!ids.length) return '';
  const found: Json[] = [];
  for (const id of ids) {
    try {
      found.push((await run(services, request.session.caller, getInvestigation, { id })).data as Json);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  const one = (i: Json) => {
    const f = (i.findings ?? {}) as Json;
    const steps = Array.isArray(f.next_steps) ? f.next_steps : [];
    return html`<li class="panel"><p><strong>${i.status}</strong> · requested ${time(i.requested_at)}${i.finished_at ? html` · finished ${time(i.finished_at)}` : ''}</p>
${f.summary ? html`<p class="pre">${String(f.summary)}</p>` : ''}${f.likely_cause ? html`<p><strong>Likely cause:</strong> ${String(f.likely_cause)}</p>` : ''}
${steps.length ? html`<p><strong>Next steps:</strong></p><ul>${steps.map((s: unknown) => html`<li>${typeof s === 'string' ? s : JSON.stringify(s)}</li>`)}</ul>` : ''}
${i.failure_reason ? html`<p class="muted">${String(i.failure_reason)}</p>` : ''}</li>`;
  };
  return html`<section class="panel" aria-labelledby="inv"><h2 id="inv">Investigation</h2><ol class="comments">${found.map(one)}</ol></section>`;
}

function actionsPanel(alert: Json, request: ScreenRequest, refused?: Refused): Html {
  const { session } = request;
  const buttons = (BUTTONS[String(alert.status)] ?? []).map((a) => actionButton(session, `/alerts/${alert.id}/${a}`, ACTIONS[a].label));
  const assignee = fieldState(refused, 'assign', 'assignee', alert.assignee?.email ?? '');
  return html`<section class="panel stack" aria-labelledby="act"><h2 id="act">Act</h2><div class="buttons">${buttons}</div>
<form method="post" action="/alerts/${alert.id}/assign" class="inline" novalidate>${csrfField(session)}<label for="assignee">Assignee email</label><input type="email" id="assignee" name="assignee" value="${assignee.value}"${assignee.invalid}><button type="submit">Assign</button>${assignee.message}</form>
<p class="muted">Leave the email empty to unassign; it must be a member of this organization.</p></section>`;
}

export const alertScreen: Screen = (services, request) => alertPage(services, request);

/** The alert's page; with `refused`, a form it holds is drawn again with what was typed and the message beside its field (422). */
async function alertPage(services: Parameters<Screen>[0], request: ScreenRequest, refused?: Refused): Promise<{ status: number; page: Html }> {
  const { session, ctx } = request;
  const alert = (await run(services, session.caller, getAlert, { id: String(ctx.params.id ?? '') })).data as Json;
  const time = await organizationTime(services, session.caller.organization.id);
  const effects = (alert.effects ?? []) as Json[];
  const incident = alert.incident as Json | null;
  const labels = Object.entries((alert.labels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`);
  const effectItems = effects.map((e) => {
    const detail = (e.detail ?? {}) as Json;
    const by = detail.by ? actorText(session, detail.by) : '';
    return html`<li>${time(e.at)} · ${effectText(String(e.kind), detail, e.deliveries)}${by ? html` <span class="muted">by ${by}</span>` : ''}</li>`;
  });
  const body = html`<p><a href="/alerts">Alerts</a></p><h1>${alert.title} ${statusBadge(alert.status)}</h1>${savedNotice(ctx.query, SAVED)}${refusedNotice(refused)}
${roleAtLeast(session.caller.role, 'member') ? actionsPanel(alert, request, refused) : ''}
<div class="layout"><div class="stack">
<section class="panel" aria-labelledby="arrived"><h2 id="arrived">What arrived</h2>${alert.summary ? html`<p class="pre">${alert.summary}</p>` : html`<p class="muted">No summary.</p>`}
<dl class="facts"><dt>Source</dt><dd>${alert.source}</dd><dt>Fingerprint</dt><dd class="key">${alert.fingerprint}</dd><dt>Labels</dt><dd>${labelList(labels) || 'None'}</dd>
<dt>Deliveries</dt><dd>${alert.occurrences} firing, last received ${time(alert.last_received_at)}</dd>${alert.url ? html`<dt>In its product</dt><dd>${httpLink(alert.url, 'open') || html`<code>${alert.url}</code>`}</dd>` : ''}${senderLinks(alert.links)}</dl></section>
<section class="panel" aria-labelledby="effects"><h2 id="effects">What Vigil did</h2>${effectItems.length ? html`<ol>${effectItems}</ol>` : html`<p class="muted">Nothing yet.</p>`}</section>
${await investigations(services, request, effects, time)}
</div><div class="stack"><section class="panel" aria-labelledby="facts"><h2 id="facts">Facts</h2><dl class="facts">
<dt>Status</dt><dd>${alert.status}</dd><dt>Severity</dt><dd>${alert.severity}</dd><dt>Service</dt><dd>${alert.service ?? 'None'}</dd>
<dt>Assignee</dt><dd>${alert.assignee ? personText(alert.assignee) : 'Unassigned'}</dd><dt>Started</dt><dd>${time(alert.started_at)}</dd>
<dt>Acknowledged</dt><dd>${alert.acknowledged_at ? time(alert.acknowledged_at) : 'No'}</dd><dt>Resolved</dt><dd>${alert.resolved_at ? time(alert.resolved_at) : 'No'}</dd>
<dt>Muted by</dt><dd>${alert.muted_by ?? 'None'}</dd><dt>Storm</dt><dd>${alert.storm_id ?? 'None'}</dd>
<dt>Incident</dt><dd>${incident ? html`<a href="/incidents/${incident.id}">${incident.title}</a> (${incident.status})` : 'None'}</dd></dl></section>
</div></div>`;
  return { status: refused ? 422 : 200, page: layout(session, { title: String(alert.title), section: '/alerts', body }) };
}

/** A button's or the assign form's POST: the operation as the signed-in person, then back to the alert (303). */
export const alertActionScreen: Screen = async (services, { ctx, session, form }) => {
  const name = String(ctx.params.action ?? '');
  if (!Object.hasOwn(ACTIONS, name)) throw new ApiError('not_found', 'No such action on an alert.');
  const action = name as ActionName;
  const input: Json = { id: String(ctx.params.id ?? ''), ...(action === 'assign' ? { assignee: assigneeInput(form.assignee) } : {}) };
  let answer: Json;
  try {
    answer = (await run(services, session.caller, ACTIONS[action].op, input)).data as Json;
  } catch (error) {
    const refused = refusedForm(error, action, form, { assignee: 'assignee' });
    if (refused) return alertPage(services, { ctx, session, form }, refused);
    throw error;
  }
  seeOther(ctx, `/alerts/${encodeURIComponent(String(answer.id))}?saved=${action}`);
};
