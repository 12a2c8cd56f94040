/**
 * `/insights`: how on call is going (`get_insights`), with the range and filters in the URL so a view can be linked:
 * `from` and `to` are UTC days (`to` included) or instants, `team_id`, `service`, `source`, `severity` as the API
 * takes them. The timings are a table; fires by day, the noisiest alerts, pages by person and hours on call are
 * charts (domain/insights/charts.ts, the weekly mail's too) drawn on the server as SVG (engine/charts), each with its title, axis titles and the table of its values
 * under it, so the page needs no script and a screen reader reads the same numbers.
 */
import { renderChart, type BarChart } from '../../engine/charts/render.ts';
import { html, htmlText, raw, type Html } from '../../engine/html.ts';
import { hasFeature } from '../../engine/plans.ts';
import { dayOf, insightsCharts } from '../../domain/insights/charts.ts';
import { getInsights } from '../../domain/insights/operation.ts';
import type { Insights } from '../../domain/insights/schema.ts';
import type { Row } from '../../engine/descriptor.ts';
import type { Services } from '../../engine/services.ts';
import { layout } from './layout.ts';
import { filters, run } from './operations.ts';
import type { ConsoleSession } from '../../engine/auth/sessions.ts';
import type { Screen } from './page.ts';

export const INSIGHTS_SECTION = '/insights';
const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FILTERS = ['team_id', 'service', 'source', 'severity'] as const;

/** A day of the form as the operation's instant: `from` its start, `to` the end of the day (the range excludes its end). */
function instant(value: string | undefined, end: boolean): string | undefined {
  if (value === undefined || !DATE.test(value)) return value;
  const start = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(start) ? value : new Date(start + (end ? DAY : 0)).toISOString();
}

/** Seconds as people read a wait: "45 s", "12 min", "2 h 5 min"; blank when unknown. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  const sign = seconds < 0 ? '−' : '';
  const s = Math.round(Math.abs(seconds));
  if (s < 60) return `${sign}${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${sign}${minutes} min`;
  return `${sign}${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

type Timing = Insights['alerts']['time_to_acknowledge'];
const timingRow = (label: string, t: Timing) => html`<tr><th scope="row">${label}</th><td>${String(t.count)}</td><td>${duration(t.median)}</td><td>${duration(t.p90)}</td>
<td>${duration(t.previous.median)}</td><td>${duration(t.previous.p90)}</td><td>${t.median_change === null ? '–' : `${t.median_change > 0 ? '+' : ''}${duration(t.median_change)}`}</td></tr>`;

/** The chart's SVG, named for a screen reader by its description (its values are in the table beside it). */
async function figure(id: string, chart: BarChart, table: Html): Promise<Html> {
  if (!chart.data.length) return html`<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${chart.title}</h2><p class="muted">Nothing in this range.</p></section>`;
  const svg = (await renderChart(chart)).replace(/^<svg /, `<svg role="img" aria-label="${htmlText(chart.description)}" `);
  return html`<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${chart.title}</h2><figure class="chart">${raw(svg)}</figure>${table}</section>`;
}

function filterForm(query: Record<string, string>, data: Insights): Html {
  const field = (name: string, label: string, value: string, type = 'text') =>
    html`<p><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" value="${value}"></p>`;
  const severity = query.severity ?? '';
  return html`<form method="get" action="${INSIGHTS_SECTION}" class="filters">
${field('from', 'From (UTC day)', dayOf(data.from, false), 'date')}${field('to', 'To (UTC day, included)', dayOf(data.to, true), 'date')}
${field('service', 'Service', query.service ?? '')}${field('source', 'Source', query.source ?? '')}${field('team_id', 'Team id', query.team_id ?? '')}
<p><label for="f-severity">Severity</label><select id="f-severity" name="severity">${['', 'critical', 'high', 'warning', 'info'].map((s) => html`<option value="${s}"${s === severity ? html` selected` : ''}>${s || 'Any'}</option>`)}</select></p>
<p><button type="submit">Show</button></p></form>`;
}

export const insightsScreen: Screen = async (services, { session, ctx }) => {
  const query = filters(ctx.query, ['from', 'to', ...FILTERS]) as Record<string, string>;
  const input = { ...Object.fromEntries(FILTERS.filter((f) => query[f]).map((f) => [f, query[f]])), from: instant(query.from, false), to: instant(query.to, true) };
  const data = (await run(services, session.caller, getInsights, input)).data as Insights;
  const org = session.caller.organization;
  const recentOnly = !hasFeature(org.plan, org.features, 'insights_history');
  const a = data.alerts;
  const drawn = insightsCharts(data);
  const charts = await Promise.all([
    figure('volume', drawn.volume,
      html`<table><caption>Fires by day</caption><thead><tr><th scope="col">Day (UTC)</th><th scope="col">Fires</th></tr></thead><tbody>${data.volume_by_day.map((v) => html`<tr><td>${v.day}</td><td>${String(v.fires)}</td></tr>`)}</tbody></table>`),
    figure('noisiest', drawn.noisiest,
      html`<table><caption>Noisiest alerts</caption><thead><tr><th scope="col">Alert</th><th scope="col">Fingerprint</th><th scope="col">Service</th><th scope="col">Fires</th></tr></thead><tbody>${data.noisiest.map((n) => html`<tr><td>${n.title}</td><td><code>${n.fingerprint}</code></td><td>${n.service ?? ''}</td><td>${String(n.fires)}</td></tr>`)}</tbody></table>`),
    figure('pages', drawn.pages,
      html`<table><caption>Pages by person</caption><thead><tr><th scope="col">Person</th><th scope="col">Working hours</th><th scope="col">Off hours</th><th scope="col">Night</th><th scope="col">Total</th></tr></thead><tbody>${data.pages_by_person.map((p) => html`<tr><td>${p.email}</td><td>${String(p.working_hours)}</td><td>${String(p.off_hours)}</td><td>${String(p.night)}</td><td>${String(p.total)}</td></tr>`)}</tbody></table>`),
    figure('oncall', drawn.oncall,
      html`<table><caption>Hours on call and pages</caption><thead><tr><th scope="col">Person</th><th scope="col">Hours on call</th><th scope="col">Pages</th></tr></thead><tbody>${data.on_call.map((o) => html`<tr><td>${o.email}</td><td>${String(o.hours_on_call)}</td><td>${String(o.pages)}</td></tr>`)}</tbody></table>`),
  ]);
  const body = html`<h1>Insights</h1>
<p class="muted">From ${data.from} to ${data.to} (UTC), beside ${data.previous.from} to ${data.previous.to}.${recentOnly ? ' Your plan shows the last 7 days.' : ''} The same figures: <code>GET /api/v1/config/insights</code>.</p>
${filterForm(query, data)}
<section class="panel" aria-labelledby="timings"><h2 id="timings">How fast</h2>
<table><caption>Median and 90th percentile, this range and the one before</caption><thead><tr><th scope="col">Measure</th><th scope="col">Measured</th><th scope="col">Median</th><th scope="col">90th percentile</th><th scope="col">Median before</th><th scope="col">90th percentile before</th><th scope="col">Median moved</th></tr></thead>
<tbody>${timingRow('Alerts: time to acknowledge', a.time_to_acknowledge)}${timingRow('Alerts: time to resolve', a.time_to_resolve)}${timingRow('Incidents: time to acknowledge', data.incidents.time_to_acknowledge)}${timingRow('Incidents: time to resolve', data.incidents.time_to_resolve)}</tbody></table>
<p>${String(a.fires)} fires of ${String(a.alerts_fired)} alerts; ${String(a.opened_incidents)} opened an incident${a.incident_share === null ? '' : ` (${Math.round(a.incident_share * 100)} %)`}; ${String(data.incidents.opened)} incidents opened; ${String(a.resolved_unacknowledged)} alerts resolved with no one acknowledging.</p></section>
${charts}
<section class="panel" aria-labelledby="flapping"><h2 id="flapping">Flapping alerts</h2>${data.flapping.length
    ? html`<table><thead><tr><th scope="col">Alert</th><th scope="col">Worst day</th><th scope="col">Fires that day</th><th scope="col">Days flapping</th></tr></thead><tbody>${data.flapping.map((f) => html`<tr><td>${f.title} <code>${f.fingerprint}</code></td><td>${f.day}</td><td>${String(f.cycles)}</td><td>${String(f.flapping_days)}</td></tr>`)}</tbody></table>`
    : html`<p class="muted">No alert fired three times in one day.</p>`}</section>
<section class="panel" aria-labelledby="unacked"><h2 id="unacked">Resolved with no one acknowledging</h2><p class="muted">Candidates to delete or quieten: nobody acted before they resolved.</p>${data.resolved_unacknowledged.length
    ? html`<ul>${data.resolved_unacknowledged.map((u) => html`<li>${u.title} <code>${u.fingerprint}</code></li>`)}</ul>`
    : html`<p class="muted">None.</p>`}</section>`;
  return { page: layout(session, { title: 'Insights', section: INSIGHTS_SECTION, body }) };
};

/** The row pages that show an insights panel, by family, and the filter a row of it gives (null: no panel). */
const PANELS: Record<string, { filter: (row: Row) => Record<string, string> | null; whose: string }> = {
  teams: { filter: (row) => ({ team_id: String(row.id) }), whose: 'this team' },
  service_bindings: { filter: (row) => (typeof row.service === 'string' && row.service ? { service: row.service } : null), whose: 'this service' },
};

/**
 * The small insights panel of a team's or a service's page: over the last 30 days (the last 7 where the plan shows
 * no older history), its alerts, the median times to acknowledge and resolve, and the noisiest alert, from
 * `get_insights` itself with the row's filter; and a link to /insights filtered the same way. Nothing where the plan
 * has no insights or the family has no panel.
 */
export async function insightsPanel(services: Services, session: ConsoleSession, family: string, row: Row): Promise<Html | ''> {
  const panel = Object.hasOwn(PANELS, family) ? PANELS[family]! : undefined;
  const filter = panel?.filter(row);
  const org = session.caller.organization;
  if (!panel || !filter || !hasFeature(org.plan, org.features, 'insights')) return '';
  const days = hasFeature(org.plan, org.features, 'insights_history') ? 30 : 7;
  const now = services.clock.now().getTime();
  const from = new Date(now - days * DAY).toISOString();
  const to = new Date(now).toISOString();
  const data = (await run(services, session.caller, getInsights, { ...filter, from, to })).data as Insights;
  const a = data.alerts;
  const top = data.noisiest[0];
  const link = `${INSIGHTS_SECTION}?${new URLSearchParams({ from: from.slice(0, 10), to: to.slice(0, 10), ...filter }).toString()}`;
  return html`<section class="panel" aria-labelledby="insights-panel"><h2 id="insights-panel">Insights: the last ${String(days)} days</h2>
<dl class="facts"><dt>Alerts</dt><dd>${String(a.alerts_fired)} fired (${String(a.fires)} ${a.fires === 1 ? 'fire' : 'fires'})</dd>
<dt>Median time to acknowledge</dt><dd>${duration(a.time_to_acknowledge.median)}</dd>
<dt>Median time to resolve</dt><dd>${duration(a.time_to_resolve.median)}</dd>
<dt>Noisiest alert</dt><dd>${top ? html`${top.title} <code>${top.fingerprint}</code>, ${String(top.fires)} ${top.fires === 1 ? 'fire' : 'fires'}` : 'none'}</dd></dl>
<p><a href="${link}">All insights for ${panel.whose}</a></p></section>`;
}
