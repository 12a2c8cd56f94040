/** Pieces the list screens share: the filter form and the pager (the API's cursor, or a note when it answers `truncated`). */
import { html, type Html } from '../../engine/html.ts';
import type { Json, ListPage } from './operations.ts';

export type FilterField = { name: string; label: string } & ({ kind: 'text' } | { kind: 'select'; options: readonly string[] });

export function filterForm(action: string, fields: readonly FilterField[], chosen: Json): Html {
  const control = (f: FilterField) =>
    f.kind === 'select'
      ? html`<select id="f-${f.name}" name="${f.name}"><option value="">Any</option>${f.options.map((o) => html`<option value="${o}"${chosen[f.name] === o ? html` selected` : ''}>${o}</option>`)}</select>`
      : html`<input type="text" id="f-${f.name}" name="${f.name}" value="${chosen[f.name] ?? ''}">`;
  return html`<form method="get" action="${action}" class="filters" aria-label="Filter">${fields.map((f) => html`<div class="field"><label for="f-${f.name}">${f.label}</label>${control(f)}</div>`)}
<button type="submit">Filter</button>${Object.keys(chosen).length ? html`<a href="${action}">Clear filters</a>` : ''}</form>`;
}

export function pager(action: string, chosen: Json, page: ListPage): Html | string {
  if (page.nextCursor) {
    const query = new URLSearchParams({ ...chosen, cursor: page.nextCursor }).toString();
    return html`<p class="pager"><a href="${action}?${query}">Next page</a></p>`;
  }
  return page.more ? html`<p class="pager muted">More entries match than are shown; narrow the filters.</p>` : '';
}
