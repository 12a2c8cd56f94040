/**
 * `/deployments`: the deployments timeline (`list_deployments`), newest first, one table per service and
 * environment, filtered by service, environment and kind; paged as the API pages.
 */
import { EVENT_TYPES } from '../../domain/timeline/vocabulary.ts';
import { html, type Html } from '../../engine/html.ts';
import { layout } from './layout.ts';
import { filterForm, pager, type FilterField } from './lists.ts';
import { listDeployments } from '../../domain/timeline/tools.ts';
import { filters, listPage, type Json } from './operations.ts';
import type { Screen } from './page.ts';
import { organizationTime, type TimeFormat } from './time.ts';

const FIELDS: FilterField[] = [
  { name: 'service', label: 'Service', kind: 'text' },
  { name: 'environment', label: 'Environment', kind: 'text' },
  { name: 'event_type', label: 'Kind', kind: 'select', options: EVENT_TYPES },
];

const link = (url: unknown, text: string) => (typeof url === 'string' && /^https?:\/\//i.test(url) ? html` <a href="${url}" rel="noopener noreferrer">${text}</a>` : '');

function table(entries: Json[], time: TimeFormat): Html {
  return html`<table><thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Version</th><th scope="col">By</th><th scope="col">What</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td>${time(e.occurred_at)}</td><td>${String(e.event_type).replaceAll('_', ' ')}</td><td>${e.status}</td>
<td>${e.version ?? ''}${e.previous_version ? html` <span class="muted">(was ${e.previous_version})</span>` : ''}</td><td>${e.deployed_by ?? e.author ?? ''}</td>
<td>${e.description ?? ''}${link(e.run_url, 'run')}${link(e.pr_url, 'pull request')}${link(e.compare_url, 'diff')}</td></tr>`)}</tbody></table>`;
}

export const deploymentsScreen: Screen = async (services, { ctx, session }) => {
  const chosen = filters(ctx.query, FIELDS.map((f) => f.name));
  const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
  const page = await listPage(services, session.caller, listDeployments, { ...chosen, limit: 100 }, cursor);
  const time = await organizationTime(services, session.caller.organization.id);
  const groups = new Map<string, Json[]>();
  for (const entry of page.data) {
    const name = `${entry.service}${entry.environment ? ` · ${entry.environment}` : ''}`;
    groups.set(name, [...(groups.get(name) ?? []), entry]);
  }
  const sections = [...groups].map(([name, entries], i) => html`<section aria-labelledby="g-${i}"><h2 id="g-${i}">${name}</h2>${table(entries, time)}</section>`);
  const body = html`<h1>Deployments</h1>${filterForm('/deployments', FIELDS, chosen)}
${sections.length ? sections : html`<p>No deployments recorded${Object.keys(chosen).length ? ' that match' : ''}.</p>`}${pager('/deployments', chosen, page)}`;
  return { page: layout(session, { title: 'Deployments', section: '/deployments', body }) };
};
