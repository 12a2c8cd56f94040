/**
 * `/deliveries`: the inbound webhook delivery log (`list_webhook_deliveries`), newest first, filtered by source and
 * outcome, so "why didn't this page?" has an answer on screen. Payloads are not shown here: the API serves them
 * (with credentials removed) to whoever needs the detail.
 */
import type { DomainOperation } from '../../engine/services.ts';
import { html } from '../../engine/html.ts';
import { layout } from './layout.ts';
import { filterForm, pager, type FilterField } from './lists.ts';
import { filters, listPage } from './operations.ts';
import type { Screen } from './page.ts';
import { organizationTime } from './time.ts';

export const deliveriesScreen = (deliveryLog: DomainOperation): Screen => async (services, { ctx, session }) => {
  const fields: FilterField[] = [
    { name: 'source', label: 'Source', kind: 'select', options: services.config.webhookSources.map((s) => s.segment) },
    { name: 'outcome', label: 'Outcome', kind: 'text' },
  ];
  const chosen = filters(ctx.query, fields.map((f) => f.name));
  const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
  const page = await listPage(services, session.caller, deliveryLog, { ...chosen, limit: 100 }, cursor);
  const time = await organizationTime(services, session.caller.organization.id);
  const rows = page.data.map((d) => html`<tr><td>${time(d.received_at)}</td><td>${d.source}</td><td>${d.status}</td><td>${d.outcome}</td><td>${d.detail ?? ''}</td><td>${d.size}</td></tr>`);
  const body = html`<h1>Webhook deliveries</h1>${filterForm('/deliveries', fields, chosen)}
${rows.length ? html`<table><thead><tr><th scope="col">Received</th><th scope="col">Source</th><th scope="col">Answered</th><th scope="col">Outcome</th><th scope="col">Detail</th><th scope="col">Bytes</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p>No deliveries${Object.keys(chosen).length ? ' match' : ' yet'}.</p>`}${pager('/deliveries', chosen, page)}`;
  return { page: layout(session, { title: 'Deliveries', section: '/deliveries', body }) };
};
