/**
 * `/board`: the organization's cards in columns by status (triage, backlog, todo, in progress, blocked, done),
 * filtered by service, label and assignee (a GET form, so a filtered board is a link). Each column shows its newest
 * cards; "More" opens that status alone, paged as the API pages (`list_cards`).
 */
import type { Html } from '../../engine/html.ts';
import { html } from '../../engine/html.ts';
import { layout } from './layout.ts';
import { listCardsOperation } from '../../domain/board/tools.ts';
import { filters, listPage, type Json } from './operations.ts';
import type { Screen } from './page.ts';

export const BOARD_COLUMNS = [
  { status: 'triage', label: 'Triage' },
  { status: 'backlog', label: 'Backlog' },
  { status: 'todo', label: 'To do' },
  { status: 'in_progress', label: 'In progress' },
  { status: 'blocked', label: 'Blocked' },
  { status: 'done', label: 'Done' },
] as const;

/** Cards a column shows before "More". */
const COLUMN_SIZE = 50;
const FILTERS = ['service', 'label', 'assignee_email'] as const;

export const statusLabel = (status: string) => BOARD_COLUMNS.find((c) => c.status === status)?.label ?? (status === 'archived' ? "Archived (won't do)" : status);

export const labelList = (labels: unknown) =>
  Array.isArray(labels) && labels.length ? html`<ul class="labels" aria-label="Labels">${labels.map((l) => html`<li>${String(l)}</li>`)}</ul>` : '';

function cardItem(card: Json): Html {
  const facts = [card.priority !== 'normal' ? `${card.priority} priority` : '', card.service ?? '', card.assignee_email ? `assigned to ${card.assignee_email}` : 'unassigned']
    .filter(Boolean).join(' · ');
  return html`<li><a class="key" href="/board/${card.key}">${card.key}</a> <span>${card.title}</span>${labelList(card.labels)}<div class="muted">${facts}</div></li>`;
}

function filterForm(chosen: Json, status?: string): Html {
  const input = (name: string, label: string, type = 'text') =>
    html`<div class="field"><label for="f-${name}">${label}</label><input type="${type}" id="f-${name}" name="${name}" value="${chosen[name] ?? ''}"></div>`;
  return html`<form method="get" action="/board" class="filters" aria-label="Filter cards">${status ? html`<input type="hidden" name="status" value="${status}">` : ''}
${input('service', 'Service')}${input('label', 'Label')}${input('assignee_email', 'Assignee email', 'email')}<button type="submit">Filter</button>
${Object.keys(chosen).length ? html`<a href="/board">Clear filters</a>` : ''}</form>`;
}

const query = (params: Json) => new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '')).toString();

export const boardScreen: Screen = async (services, { ctx, session }) => {
  const chosen = filters(ctx.query, FILTERS);
  const status = typeof ctx.query.status === 'string' && BOARD_COLUMNS.some((c) => c.status === ctx.query.status) ? ctx.query.status : undefined;
  const caller = session.caller;
  if (status) {
    // one status alone, paged
    const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
    const page = await listPage(services, caller, listCardsOperation, { ...chosen, status, limit: 100 }, cursor);
    const next = page.nextCursor
      ? html`<p class="pager"><a href="/board?${query({ ...chosen, status, cursor: page.nextCursor })}">Next page</a></p>`
      : page.more ? html`<p class="pager muted">More cards match than are shown; narrow the filters.</p>` : '';
    const body = html`<h1>${statusLabel(status)}</h1><p><a href="/board?${query(chosen)}">Back to the board</a></p>${filterForm(chosen, status)}
<section class="column" aria-label="${statusLabel(status)}">${page.data.length ? html`<ol>${page.data.map(cardItem)}</ol>` : html`<p>No cards.</p>`}</section>${next}`;
    return { page: layout(session, { title: `Board: ${statusLabel(status)}`, section: '/board', body }) };
  }
  const columns = await Promise.all(BOARD_COLUMNS.map(async (c) => ({ ...c, page: await listPage(services, caller, listCardsOperation, { ...chosen, status: c.status, limit: COLUMN_SIZE }, undefined) })));
  const body = html`<h1>Board</h1>${filterForm(chosen)}<div class="board">${columns.map(
    (c) => html`<section class="column" aria-labelledby="col-${c.status}"><h2 id="col-${c.status}">${c.label} <span class="muted">(${c.page.data.length}${c.page.more ? '+' : ''})</span></h2>
${c.page.data.length ? html`<ol>${c.page.data.map(cardItem)}</ol>` : html`<p class="muted">No cards.</p>`}
${c.page.more ? html`<p><a href="/board?${query({ ...chosen, status: c.status })}">More in ${c.label}</a></p>` : ''}</section>`,
  )}</div>`;
  return { page: layout(session, { title: 'Board', section: '/board', body }) };
};
