/**
 * `/now`, the landing page: what needs someone now (`get_attention`) — the open incidents and the alerts firing
 * that nobody acknowledged, most severe first and then firing longest first ("firing for 14 min", from the service's
 * clock), with their assignees; "Mine" keeps those assigned to the signed-in person.
 *
 * It refreshes itself without script (`<meta http-equiv="refresh">`), says when it was last updated, and offers to
 * stop refreshing (`?refresh=off`, a link kept by "Mine": WCAG 2.2.1 lets a person turn a time limit off). A refresh
 * would throw away a half-filled form, so the page that refreshes has no form to fill: acknowledging several at once
 * is `/now/select` (the same lists with a checkbox each, one form, not refreshed), whose POST runs
 * `acknowledge_alert` / `acknowledge_incident` for each ticked row — the operations a single button runs — and comes
 * back to `/now` saying how many were acknowledged, or shows the form again with the refusals beside their rows.
 */
import { ApiError } from '../../engine/errors.ts';
import { roleAtLeast } from '../../engine/plans.ts';
import { html, type Html } from '../../engine/html.ts';
import { statusBadge } from './alerts.ts';
import { personText } from './facts.ts';
import { seeOther } from './http.ts';
import { csrfField, layout } from './layout.ts';
import { run, type Json } from './operations.ts';
import type { Screen, ScreenRequest } from './page.ts';
import { durationSince, organizationTime, type TimeFormat } from './time.ts';
import { incidentState } from './incidents.ts';
import type { Services } from '../../engine/services.ts';
import { acknowledgeAlert } from '../../domain/alerts/alert-actions.ts';
import { listAttention } from '../../domain/alerts/attention.ts';
import { acknowledgeIncident } from '../../domain/alerts/incident-actions.ts';
import { listAlerts } from '../../domain/alerts/tools.ts';
import { webhookUrls } from '../../engine/admin/organizations.ts';

/** seconds between refreshes: often enough to notice a page, rare enough to read the page in between */
export const NOW_REFRESH_SECONDS = 30;

interface Attention {
  counts: { incidents: number; alerts: number };
  incidents: Json[];
  alerts: Json[];
}

const mineChosen = (query: Record<string, unknown>) => query.mine === '1';

/** One row's checkbox, named per row (a form field is read once by name): `alert:<id>` or `incident:<id>`. */
const pick = (kind: string, row: Json) =>
  html`<td><input type="checkbox" id="pick-${kind}-${row.id}" name="${kind}:${row.id}" value="1" aria-label="Select ${row.title}"></td>`;

function incidentTable(rows: Json[], now: Date, select: boolean, refused: Map<string, string>): Html {
  const head = html`<thead><tr>${select ? html`<th scope="col">Select</th>` : ''}<th scope="col">Incident</th><th scope="col">Severity</th><th scope="col">State</th><th scope="col">Open for</th><th scope="col">Assignee</th></tr></thead>`;
  return html`<table class="now">${head}<tbody>${rows.map((i) => html`<tr class="sev-${String(i.severity)}">${select ? pick('incident', i) : ''}
<td><a href="/incidents/${i.id}">${i.title}</a>${refused.has(`incident:${i.id}`) ? html`<p class="field-error">${refused.get(`incident:${i.id}`)}</p>` : ''}</td>
<td>${i.severity}</td><td>${statusBadge(incidentState(i))}</td><td>open for ${durationSince(i.opened_at, now)}</td><td>${i.assignee ? personText(i.assignee) : 'Unassigned'}</td></tr>`)}</tbody></table>`;
}

function alertTable(rows: Json[], now: Date, select: boolean, refused: Map<string, string>): Html {
  const head = html`<thead><tr>${select ? html`<th scope="col">Select</th>` : ''}<th scope="col">Alert</th><th scope="col">Severity</th><th scope="col">Service</th><th scope="col">Firing for</th><th scope="col">Assignee</th></tr></thead>`;
  return html`<table class="now">${head}<tbody>${rows.map((a) => html`<tr class="sev-${String(a.severity)}">${select ? pick('alert', a) : ''}
<td><a href="/alerts/${a.id}">${a.title}</a>${refused.has(`alert:${a.id}`) ? html`<p class="field-error">${refused.get(`alert:${a.id}`)}</p>` : ''}</td>
<td>${a.severity}</td><td>${a.service ?? ''}</td><td>firing for ${durationSince(a.raised_at ?? a.started_at, now)}</td><td>${a.assignee ? personText(a.assignee) : 'Unassigned'}</td></tr>`)}</tbody></table>`;
}

/**
 * What to connect next when nothing has ever arrived: the webhook URL of each source, with the token left for the
 * operator to give (it is a credential: no page, answer or log shows it; `vigil org show <org-id>` does), or whom to ask.
 */
async function firstUse(services: Services, request: ScreenRequest): Promise<Html> {
  const { session } = request;
  const everything = await run(services, session.caller, listAlerts, { limit: 1 });
  if ((everything.data as Json[]).length) return html`<p>Nothing needs anyone now: no open incident, and every firing alert is acknowledged.</p>`;
  if (!roleAtLeast(session.caller.role, 'org_admin')) {
    return html`<div class="notice"><p>No alert has arrived yet. Ask an organization admin to connect Alertmanager, Grafana or your pager: the webhook URL to paste is on this page for them.</p></div>`;
  }
  const urls = webhookUrls(services, WEBHOOK_TOKEN_PLACEHOLDER);
  return html`<div class="notice"><p>No alert has arrived yet. Connect what sends your alerts: paste its webhook URL into it, with this organization's webhook token in place of <code>${WEBHOOK_TOKEN_PLACEHOLDER}</code>. The token is a credential, so no page shows it: the operator reads it with <code>vigil org show ${session.caller.organization.id}</code>.</p>
<dl class="facts urls">${Object.entries(urls).map(([source, url]) => html`<dt>${source}</dt><dd><code>${url}</code></dd>`)}</dl>
<p>Then set who is paged under <a href="/config">Configuration</a> (teams and alert routes).</p></div>`;
}

const WEBHOOK_TOKEN_PLACEHOLDER = '<webhook token>';

async function attention(services: Services, request: ScreenRequest): Promise<Attention> {
  return (await run(services, request.session.caller, listAttention, mineChosen(request.ctx.query) ? { mine: true } : {})) as Attention;
}

function chooser(path: string, mine: boolean): Html {
  return html`<p class="buttons" aria-label="Whose"><a href="${path}"${mine ? '' : html` aria-current="page"`}>Everyone's</a><a href="${path}?mine=1"${mine ? html` aria-current="page"` : ''}>Mine</a></p>`;
}

function sections(found: Attention, now: Date, select: boolean, refused: Map<string, string>): Html {
  return html`<section aria-labelledby="open-incidents"><h2 id="open-incidents">Open incidents (${found.counts.incidents})</h2>
${found.incidents.length ? incidentTable(found.incidents, now, select, refused) : html`<p class="muted">No open incident.</p>`}</section>
<section aria-labelledby="open-alerts"><h2 id="open-alerts">Unacknowledged alerts (${found.counts.alerts})</h2>
${found.alerts.length ? alertTable(found.alerts, now, select, refused) : html`<p class="muted">No alert waits for someone.</p>`}</section>`;
}

/**
 * When the page was read, and the switch that stops (or restarts) its refreshing: a page that reloads itself must let
 * the person turn that off before it happens (WCAG 2.2.1), so the switch is the first thing after the heading.
 */
function updated(time: TimeFormat, now: Date, refreshing: boolean, mine: boolean): Html {
  const query = (refresh: boolean) => new URLSearchParams({ ...(mine ? { mine: '1' } : {}), ...(refresh ? {} : { refresh: 'off' }) }).toString();
  const link = (refresh: boolean) => { const q = query(refresh); return `/now${q ? `?${q}` : ''}`; };
  return html`<p class="muted" role="status">Updated ${time(now.toISOString())}; ${refreshing
    ? html`this page refreshes itself every ${NOW_REFRESH_SECONDS} seconds. <a href="${link(false)}">Stop refreshing</a>`
    : html`refreshing is off. <a href="${link(true)}">Refresh every ${NOW_REFRESH_SECONDS} seconds</a>`}</p>`;
}

export const nowScreen: Screen = async (services, request) => {
  const { session, ctx } = request;
  const mine = mineChosen(ctx.query);
  const found = await attention(services, request);
  const now = services.clock.now();
  const time = await organizationTime(services, session.caller.organization.id);
  const empty = found.incidents.length === 0 && found.alerts.length === 0;
  const acknowledged = typeof ctx.query.acknowledged === 'string' && /^\d{1,4}$/.test(ctx.query.acknowledged) ? Number(ctx.query.acknowledged) : null;
  const canAct = roleAtLeast(session.caller.role, 'member');
  const refreshing = ctx.query.refresh !== 'off';
  const body = html`<h1>Now</h1>${updated(time, now, refreshing, mine)}${acknowledged !== null ? html`<div class="notice" role="status"><p>${acknowledged} acknowledged.</p></div>` : ''}
${chooser('/now', mine)}${empty && !mine ? await firstUse(services, request) : sections(found, now, false, new Map())}
${canAct && !empty ? html`<p><a href="/now/select${mine ? '?mine=1' : ''}" accesskey="s">Acknowledge several…</a></p>` : ''}`;
  return { page: layout(session, { title: 'Now', section: '/now', body, refreshSeconds: refreshing ? NOW_REFRESH_SECONDS : undefined }) };
};

function selectPage(request: ScreenRequest, found: Attention, now: Date, refused: Map<string, string>): Html {
  const { session, ctx } = request;
  const mine = mineChosen(ctx.query);
  // a refused row that no longer waits (resolved meanwhile) is not in the lists: its reason goes in the notice
  const listed = new Set([...found.alerts.map((a) => `alert:${a.id}`), ...found.incidents.map((i) => `incident:${i.id}`)]);
  const gone = [...refused].filter(([key]) => !listed.has(key)).map(([, message]) => html`<li>${message}</li>`);
  const problems = refused.size
    ? html`<div class="notice error" role="alert"><p>${refused.size} could not be acknowledged; the reason is beside each. The others were.</p>${gone.length ? html`<ul>${gone}</ul>` : ''}</div>`
    : '';
  const body = html`<p><a href="/now">Now</a></p><h1>Acknowledge several</h1>${problems}
<p class="muted">This page does not refresh itself, so a selection is not lost. Tick what you take, then acknowledge.</p>${chooser('/now/select', mine)}
<form method="post" action="/now/acknowledge" class="stack">${csrfField(session)}${sections(found, now, true, refused)}
<button type="submit" accesskey="a">Acknowledge the selected</button></form>`;
  return layout(session, { title: 'Acknowledge several', section: '/now', body });
}

export const nowSelectScreen: Screen = async (services, request) => {
  return { page: selectPage(request, await attention(services, request), services.clock.now(), new Map()) };
};

/** Each ticked row through its own acknowledge operation (the same one its page's button runs), one after another. */
export const nowAcknowledgeScreen: Screen = async (services, request) => {
  const { session, form, ctx } = request;
  const picked = Object.keys(form).filter((k) => form[k] === '1' && /^(alert|incident):[^:]{1,100}$/.test(k));
  const refused = new Map<string, string>();
  let status = 0;
  let done = 0;
  for (const key of picked) {
    const [kind, id] = key.split(':') as [string, string];
    try {
      await run(services, session.caller, kind === 'alert' ? acknowledgeAlert : acknowledgeIncident, { id });
      done++;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      refused.set(key, error.message);
      status ||= error.status;
    }
  }
  if (refused.size === 0) return seeOther(ctx, `/now?acknowledged=${done}`);
  // the first refusal's status (a viewer's 403, a vanished row's 404, a resolved one's 409), the page drawn again
  return { status, page: selectPage(request, await attention(services, request), services.clock.now(), refused) };
};
