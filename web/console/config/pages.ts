/** The pieces of the configuration pages: a row's facts, the write form, the comparison after a stale save. */
import { randomUUID } from 'node:crypto';
import type { FamilyDescriptor, Row } from '../../../engine/descriptor.ts';
import type { ConsoleSession } from '../../../engine/auth/sessions.ts';
import { singularOf } from '../../../engine/mcp/tools.ts';
import { html, type Html } from '../../../engine/html.ts';
import { csrfField } from '../layout.ts';
import { control, errorMap, shownValue } from './form.ts';
import { editable, locked, rowName, rowPath, storedSecrets, type Choices } from './families.ts';
import { inputId } from './schema.ts';

export interface FormState {
  /** the values drawn: the stored row, or on a refusal what was typed over it */
  values: Row;
  errors?: readonly { field: string; message: string }[];
  /** the row's ETag the save is conditional on (edits) */
  etag?: string;
  /** the stored row (edits): its read-only facts and presence flags */
  stored?: Row;
  /** a line above the form (a conflict, a stale save) */
  notice?: Html;
  /** the rows each reference field may name (families.ts referenceChoices): drawn as pickers */
  choices?: Choices;
  submit?: string;
}

export function facts(d: FamilyDescriptor, row: Row, names: readonly string[]): Html {
  if (!names.length) return html``;
  return html`<dl class="facts">${names.map((f) => html`<dt>${f.replace(/_/g, ' ')}</dt><dd>${shownValue(row[f])}</dd>`)}</dl>`;
}

/** A create (no `stored`) or edit form for a family, posting to `action`. */
export function writeForm(session: ConsoleSession, d: FamilyDescriptor, action: string, state: FormState): Html {
  const edit = state.stored !== undefined;
  const errors = errorMap(state.errors);
  const placed = new Set<string>();
  const required = new Set(edit ? [] : (d.requiredOnCreate ?? []));
  const controls = editable(d, edit).map((f) => control(d.fields[f]!, [f], state.values[f], { errors, placed, stored: storedSecrets(d, state.stored), required: required.has(f), choices: state.choices }));
  const summary = state.errors?.length
    ? html`<div class="notice error" role="alert"><p>Nothing was saved: ${state.errors.length === 1 ? 'one field needs' : `${state.errors.length} fields need`} a change.</p><ul>${state.errors.map((e) => html`<li><a href="#${inputId(e.field.replace(/\.([^.[\]]+)/g, '[$1]'))}">${e.field}</a>: ${e.message}</li>`)}</ul></div>`
    : '';
  const lockedFacts = edit ? facts(d, state.stored!, locked(d, true).filter((f) => !Object.hasOwn(d.presence ?? {}, f))) : '';
  return html`${state.notice ?? ''}${summary}
<form method="post" action="${action}" class="stack config-form" novalidate>${csrfField(session)}${edit ? html`<input type="hidden" name="_etag" value="${state.etag ?? ''}">` : html`<input type="hidden" name="_key" value="${randomUUID()}">`}
${lockedFacts}${controls}<p><button type="submit">${state.submit ?? (edit ? 'Save' : 'Create')}</button></p></form>`;
}

/** After a stale save: what is stored now beside what was typed; reload, or overwrite deliberately. */
export function staleNotice(d: FamilyDescriptor, current: Row, typed: Row, reload: string): Html {
  const names = [...new Set([...Object.keys(typed)])].filter((f) => Object.hasOwn(d.fields, f));
  const rows = names.map((f) => html`<tr><th scope="row">${f}</th><td>${shownValue(current[f])}</td><td>${shownValue(typed[f])}</td></tr>`);
  return html`<div class="notice error" role="alert"><p>Someone changed this ${singularOf(d).replace(/_/g, ' ')} after you opened it. Nothing was saved. Compare the two versions: <a href="${reload}">reload the saved one</a> (your changes are dropped), or save yours again below to overwrite it.</p>
<table><caption>Saved now and yours</caption><thead><tr><th scope="col">field</th><th scope="col">saved now</th><th scope="col">yours</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function conflictNotice(d: FamilyDescriptor, existing: Row, message: string): Html {
  return html`<div class="notice error" role="alert"><p>${message} The existing one: <a href="${rowPath(d, existing.id)}">${rowName(d, existing)}</a>.</p></div>`;
}
