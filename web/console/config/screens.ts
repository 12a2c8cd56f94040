/**
 * The configuration screens, generated from the descriptors: /config (every family, by plan feature, with counts),
 * a list per family, a row page with its edit form, move buttons and named actions, a create form, a singleton as
 * one form. Every write is the family's operation (execute / executeAction) with the signed-in person as the
 * caller: the plan, role, validation, conflict, ETag and audit entry (transport `console`) are REST's and MCP's.
 */
import type { FamilyDescriptor, Row } from '../../../engine/descriptor.ts';
import { ApiError } from '../../../engine/errors.ts';
import { execute } from '../../../engine/operations/index.ts';
import { executeAction } from '../../../engine/operations/action.ts';
import { hasFeature, roleAtLeast } from '../../../engine/plans.ts';
import type { Services } from '../../../engine/services.ts';
import { singularOf } from '../../../engine/mcp/tools.ts';
import { html, type Html } from '../../../engine/html.ts';
import { seeOther } from '../http.ts';
import { csrfField, layout } from '../layout.ts';
import type { Screen, ScreenRequest } from '../page.ts';
import { control, errorMap } from './form.ts';
import { readFields } from './form-json.ts';
import { facts } from './pages.ts';
import { insightsPanel } from '../insights.ts';
import { columns, editable, familyOf, featureFor, featureLabel, locked, may, referenceChoices, rowName, rowPath } from './families.ts';
import { conflictNotice, staleNotice, writeForm, type FormState } from './pages.ts';


const SECTION = '/config';
const PAGE_SIZE = 50;
const base = (d: FamilyDescriptor) => `/config/${encodeURIComponent(d.name)}`;
const page = (request: ScreenRequest, title: string, body: Html, status = 200) => ({ status, page: layout(request.session, { title, section: SECTION, body }) });
const param = (request: ScreenRequest, name: string) => (request.ctx.params as Record<string, string | undefined>)[name];
const DONE: Record<string, string> = { created: 'Created.', saved: 'Saved.', deleted: 'Deleted.', archived: 'Archived.', moved: 'Moved.', action: 'Done.' };
const doneLine = (request: ScreenRequest) => {
  const done = DONE[String(request.ctx.query.done ?? '')];
  return done ? html`<p class="notice" role="status">${done}</p>` : '';
};

export const configIndexScreen: Screen = async (services, request) => {
  const caller = request.session.caller;
  const groups = new Map<string, Html[]>();
  for (const d of services.registry.families) {
    const feature = featureFor(d, 'list') ?? featureFor(d, 'read');
    const group = feature ? featureLabel(feature) : 'every plan';
    let entry: Html;
    if (feature && !hasFeature(caller.organization.plan, caller.organization.features, feature)) {
      entry = html`<li><span>${d.name}</span> <span class="muted">needs ${featureLabel(feature)}, not in the ${caller.organization.plan} plan</span></li>`;
    } else if (d.kind === 'singleton') {
      entry = html`<li><a href="${base(d)}">${d.name}</a> <span class="muted">one setting</span></li>`;
    } else {
      entry = html`<li><a href="${base(d)}">${d.name}</a> <span class="muted">${await count(services, request, d)}</span></li>`;
    }
    groups.set(group, [...(groups.get(group) ?? []), entry]);
  }
  const sections = [...groups].map(([group, entries]) => html`<section><h2>${group[0]!.toUpperCase()}${group.slice(1)}</h2><ul class="families">${entries}</ul></section>`);
  return page(request, 'Configuration', html`<h1>Configuration</h1><p>Every configuration of ${caller.organization.name}, grouped by the plan feature each needs.</p>${sections}`);
};

async function count(services: Services, request: ScreenRequest, d: FamilyDescriptor): Promise<string> {
  try {
    const answer = await execute(services, request.session.caller, { family: d.name, op: 'list', limit: 500 });
    const n = answer.list?.data.length ?? 0;
    return `${n}${answer.list?.next_cursor ? '+' : ''} ${n === 1 ? 'row' : 'rows'}`;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return error.message;
    throw error;
  }
}

export const familyScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  if (d.kind === 'singleton') return singletonPage(services, request, d);
  const caller = request.session.caller;
  const archived = Boolean(d.archive && request.ctx.query.archived === '1');
  const cursor = typeof request.ctx.query.cursor === 'string' ? request.ctx.query.cursor : undefined;
  const answer = await execute(services, caller, { family: d.name, op: 'list', limit: PAGE_SIZE, cursor, includeArchived: archived });
  const cols = columns(d);
  const rows = answer.list!.data.map(
    (row) => html`<tr>${cols.map((c, i) => (i === 0 ? html`<th scope="row"><a href="${rowPath(d, row.id)}">${String(row[c] ?? row.id)}</a></th>` : html`<td>${row[c] === null || row[c] === undefined ? '' : String(row[c])}</td>`))}</tr>`,
  );
  const query = (extra: Record<string, string>) => new URLSearchParams({ ...(archived ? { archived: '1' } : {}), ...extra }).toString();
  const next = answer.list!.next_cursor ? html`<p class="pager"><a href="${base(d)}?${query({ cursor: answer.list!.next_cursor })}">Next page</a></p>` : '';
  const archiveSwitch = d.archive
    ? html`<p>${archived ? html`Showing archived rows too. <a href="${base(d)}">Hide archived</a>` : html`<a href="${base(d)}?archived=1">Show archived rows</a>`}</p>`
    : '';
  const create = may(caller, d, 'create') ? html`<p><a class="button" href="${base(d)}/new">New ${singularOf(d).replace(/_/g, ' ')}</a></p>` : '';
  const table = rows.length
    ? html`<table><caption>${d.name}</caption><thead><tr>${cols.map((c) => html`<th scope="col">${c.replace(/_/g, ' ')}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">No rows yet.</p>`;
  return page(request, d.name, html`<p><a href="/config">Configuration</a></p><h1>${d.name}</h1>${doneLine(request)}<p>${d.description}</p>${create}${archiveSwitch}${table}${next}`);
};

export const newRowScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  if (!may(request.session.caller, d, 'create')) throw new ApiError('forbidden', `You cannot create ${d.name} rows here.`);
  return formPage(request, d, `New ${singularOf(d).replace(/_/g, ' ')}`, writeForm(request.session, d, base(d), { values: defaults(d), choices: await choicesFor(services, request, d) }));
};

/** The pickers of the family's reference fields: the named family's rows (the first page), listed as the person. */
const choicesFor = (services: Services, request: ScreenRequest, d: FamilyDescriptor) =>
  referenceChoices(services, request.session.caller, d, async (target) => (await execute(services, request.session.caller, { family: target.name, op: 'list', limit: 500 })).list?.data ?? []);

function defaults(d: FamilyDescriptor): Row {
  return Object.fromEntries(Object.entries(d.fields).flatMap(([f, s]) => ((s as unknown as { default?: unknown }).default !== undefined ? [[f, (s as unknown as { default: unknown }).default]] : [])));
}

const formPage = (request: ScreenRequest, d: FamilyDescriptor, title: string, body: Html, status = 200) =>
  page(request, `${title} · ${d.name}`, html`<p><a href="${base(d)}">${d.name}</a></p><h1>${title}</h1>${body}`, status);

/** POST /config/<family>: a collection's create, a singleton's save. */
export const createScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  if (d.kind === 'singleton') return saveScreen(services, request);
  const body = readFields(d.fields, editable(d, false), request.form, false);
  try {
    const made = await execute(services, request.session.caller, { family: d.name, op: 'create', body, idempotencyKey: request.form._key || undefined });
    return seeOther(request.ctx, `${rowPath(d, made.id)}?done=created`);
  } catch (error) {
    if (!(error instanceof ApiError) || !(error.status === 422 || error.status === 409)) throw error;
    const state: FormState = { values: body, errors: error.errors, choices: await choicesFor(services, request, d) };
    if (error.status === 409 && error.data) state.notice = conflictNotice(d, error.data as Row, error.message);
    return formPage(request, d, `New ${singularOf(d).replace(/_/g, ' ')}`, writeForm(request.session, d, base(d), state), error.status);
  }
};

async function readOne(services: Services, request: ScreenRequest, d: FamilyDescriptor, id: string | undefined) {
  const answer = await execute(services, request.session.caller, { family: d.name, op: 'read', id: d.kind === 'singleton' ? undefined : id });
  return { row: answer.data!, etag: answer.etag! };
}

/** A row (or a singleton): its facts, its edit form, move buttons, named actions, delete. */
async function rowPage(services: Services, request: ScreenRequest, d: FamilyDescriptor, id: string | undefined, state?: Partial<FormState>, status = 200) {
  const caller = request.session.caller;
  const { row, etag } = await readOne(services, request, d, id);
  const action = d.kind === 'singleton' ? base(d) : rowPath(d, row.id);
  const title = d.kind === 'singleton' ? d.name : rowName(d, row);
  const edit = may(caller, d, 'update') && !(d.archive && row[d.archive.field])
    ? writeForm(request.session, d, action, { values: row, stored: row, etag, choices: await choicesFor(services, request, d), ...state })
    : facts(d, row, [...editable(d, true), ...locked(d, true)].filter((f) => !d.fields[f] || (d.fields[f] as unknown as { writeOnly?: boolean }).writeOnly !== true));
  const csrf = csrfField(request.session);
  const move = d.positioned && may(caller, d, 'update')
    ? html`<form method="post" action="${action}/move" class="inline">${csrf}<button type="submit" name="direction" value="up">Move up</button> <button type="submit" name="direction" value="down">Move down</button></form>`
    : '';
  const actions = Object.entries(d.actions ?? {})
    .filter(([, a]) => roleAtLeast(caller.role, a.role) && (!(a.feature ?? d.features?.update) || hasFeature(caller.organization.plan, caller.organization.features, (a.feature ?? d.features!.update)!)))
    .map(([name, a]) => {
      const props = ((a.input as unknown as { properties?: Record<string, never> }).properties ?? {}) as Record<string, never>;
      const errors = errorMap(state?.errors);
      const inputs = Object.entries(props).map(([f, s]) => control(s, [f], undefined, { errors, placed: new Set(), stored: {} }));
      return html`<form method="post" action="${d.kind === 'singleton' ? `${action}/-` : action}/actions/${name}" class="stack action" aria-label="${name.replace(/_/g, ' ')}">${csrf}<h3>${name.replace(/_/g, ' ')}</h3><p class="help">${a.description}</p>${inputs}<p><button type="submit">${name.replace(/_/g, ' ')}</button></p></form>`;
    });
  const del = d.kind === 'collection' && may(caller, d, 'delete') && !(d.archive && row[d.archive.field])
    ? html`<form method="post" action="${action}/delete" class="inline">${csrf}<input type="hidden" name="_etag" value="${etag}"><button type="submit" class="danger">${d.archive ? 'Archive' : 'Delete'}</button></form>`
    : '';
  const back = d.kind === 'singleton' ? html`<p><a href="/config">Configuration</a></p>` : html`<p><a href="${base(d)}">${d.name}</a></p>`;
  const insights = d.kind === 'collection' ? await insightsPanel(services, request.session, d.name, row) : '';
  return page(request, `${title} · ${d.name}`, html`${back}<h1>${title}</h1>${doneLine(request)}${d.kind === 'singleton' ? html`<p>${d.description}</p>` : ''}${insights}${edit}${move}${actions.length ? html`<section><h2>Actions</h2>${actions}</section>` : ''}${del}`, status);
}

const singletonPage = (services: Services, request: ScreenRequest, d: FamilyDescriptor) => rowPage(services, request, d, undefined);

export const rowScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  return rowPage(services, request, d, param(request, 'id'));
};

/** POST /config/<family>/<id> (or /config/<family> for a singleton, whose actions post to /config/<family>/-/actions/<name>): the update, If-Match the form's ETag. */
export const saveScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  const id = d.kind === 'singleton' ? undefined : param(request, 'id');
  const body = readFields(d.fields, editable(d, true), request.form, true);
  const action = d.kind === 'singleton' ? base(d) : rowPath(d, id);
  try {
    await execute(services, request.session.caller, { family: d.name, op: 'update', id, body, ifMatch: request.form._etag || undefined });
    return seeOther(request.ctx, `${action}?done=saved`);
  } catch (error) {
    if (!(error instanceof ApiError) || ![409, 412, 422].includes(error.status)) throw error;
    const { row } = await readOne(services, request, d, id);
    const values = { ...row, ...body };
    if (error.status === 412) {
      // the form now carries the current ETag: saving it again overwrites, deliberately
      return rowPage(services, request, d, id, { values, notice: staleNotice(d, row, body, action), submit: 'Overwrite with mine' }, 412);
    }
    const notice = error.status === 409 && error.data ? conflictNotice(d, error.data as Row, error.message) : undefined;
    return rowPage(services, request, d, id, { values, errors: error.errors, notice, etag: request.form._etag }, error.status);
  }
};

export const deleteScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  await execute(services, request.session.caller, { family: d.name, op: 'delete', id: param(request, 'id'), ifMatch: request.form._etag || undefined });
  return seeOther(request.ctx, `${base(d)}?done=${d.archive ? 'archived' : 'deleted'}`);
};

export const moveScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  await execute(services, request.session.caller, { family: d.name, op: 'update', id: param(request, 'id'), body: { move: request.form.direction } });
  return seeOther(request.ctx, `${base(d)}?done=moved`);
};

export const actionScreen: Screen = async (services, request) => {
  const d = familyOf(services, param(request, 'family'));
  const name = param(request, 'action') ?? '';
  const action = Object.hasOwn(d.actions ?? {}, name) ? d.actions![name]! : undefined;
  if (!action) throw new ApiError('not_found', `${d.name} has no action by that name.`);
  const props = (action.input as unknown as { properties?: Record<string, never> }).properties ?? {};
  const body = readFields(props, Object.keys(props), request.form, false);
  const id = d.kind === 'singleton' ? undefined : param(request, 'id');
  try {
    await executeAction(services, request.session.caller, { family: d.name, action: name, id, body });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422) throw error;
    return rowPage(services, request, d, id, { errors: error.errors }, 422);
  }
  return seeOther(request.ctx, `${d.kind === 'singleton' ? base(d) : rowPath(d, id)}?done=action`);
};
