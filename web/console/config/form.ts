/**
 * Form controls drawn from field schemas (schema.ts): text with its length bounds, numbers with theirs, enums as
 * selects, booleans as checkboxes, arrays as repeatable inputs (each item, plus one spare), nested objects as
 * fieldsets, JSON text for what no control can draw. Every input is named after its field's path
 * (`escalation[0][team]`) and labelled; the field's description is its help text; a refusal's message sits next to
 * the input it names. A secret is never drawn with its value: the form says whether one is stored.
 */
import type { TSchema } from 'typebox';
import { html, type Html } from '../../../engine/html.ts';
import { errorInputName, inputId, inputName, shapeOf } from './schema.ts';

export type FieldErrors = Map<string, string[]>;

export function errorMap(errors: readonly { field: string; message: string }[] = []): FieldErrors {
  const map: FieldErrors = new Map();
  for (const e of errors) {
    const name = errorInputName(e.field);
    map.set(name, [...(map.get(name) ?? []), e.message]);
  }
  return map;
}

export interface ControlOptions {
  errors: FieldErrors;
  /** names of the errors drawn next to an input (every error is also listed, linked, at the top of the form) */
  placed: Set<string>;
  /** presence flags of the row: `{ api_key: true }` when a secret is stored */
  stored: Record<string, boolean>;
  required?: boolean;
  /** the rows a reference field may name (by the field's name): a select of names instead of a text input */
  choices?: Record<string, readonly { value: string; label: string }[]>;
}

/** A control's label: its field's name in words; a list item is its list's name and its number (`member emails 2`). */
function label(path: readonly (string | number)[]): string {
  const last = path[path.length - 1]!;
  if (typeof last === 'number') return `${label(path.slice(0, -1))} ${last + 1}`;
  return String(last).replace(/_/g, ' ');
}

function feedback(name: string, options: ControlOptions): { attrs: Html; notes: Html } {
  const messages = options.errors.get(name) ?? [];
  if (messages.length) options.placed.add(name);
  const id = inputId(name);
  const notes = messages.map((m) => html`<p class="field-error" id="${id}-error">${m}</p>`);
  return { attrs: messages.length ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``, notes: html`${notes}` };
}

const help = (description: string | undefined) => (description ? html`<p class="help">${description}</p>` : '');

const shown = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** One control for the value at `path` (a field, or an item or key inside one). */
export function control(schema: TSchema, path: readonly (string | number)[], value: unknown, options: ControlOptions): Html {
  const shape = shapeOf(schema);
  const name = inputName(path);
  const id = inputId(name);
  const s = shape.schema;
  const { attrs, notes } = feedback(name, options);
  const req = options.required ? html` required` : '';
  const labelled = (input: Html) => html`<div class="field"><label for="${id}">${label(path)}</label>${input}${help(shape.description)}${notes}</div>`;
  switch (shape.control.kind) {
    case 'text': {
      const bounds = html`${s.minLength !== undefined ? html` minlength="${s.minLength}"` : ''}${s.maxLength !== undefined ? html` maxlength="${s.maxLength}"` : ''}`;
      if (shape.control.secret) {
        const stored = options.stored[String(path[0])] === true;
        const state = html`<p class="help">${stored ? 'A value is stored (never shown). Type a new one to replace it; leave it blank to keep it.' : 'No value is stored.'}</p>`;
        const clear = stored && shape.nullable ? html`<label class="check"><input type="checkbox" name="_clear[${name}]" value="1"> Remove the stored value</label>` : '';
        return html`<div class="field"><label for="${id}">${label(path)}${stored ? ' (replace)' : ''}</label><input type="password" id="${id}" name="${name}" autocomplete="new-password"${bounds}${stored ? '' : req}${attrs}>${state}${clear}${help(shape.description)}${notes}</div>`;
      }
      const choices = options.choices?.[String(path[0])];
      if (choices) {
        const current = shown(value);
        const known = choices.some((c) => c.value === current);
        const opts = choices.map((c) => html`<option value="${c.value}"${c.value === current ? html` selected` : ''}>${c.label}</option>`);
        // a value that names no row the person can see is kept, as typed, so the operation names it
        const stray = current && !known ? html`<option value="${current}" selected>${current} (not found)</option>` : '';
        return labelled(html`<select id="${id}" name="${name}"${req}${attrs}><option value="">${shape.nullable || typeof path[path.length - 1] === 'number' ? 'none' : 'choose'}</option>${opts}${stray}</select>`);
      }
      if (shape.control.long) return labelled(html`<textarea id="${id}" name="${name}" rows="6"${bounds}${req}${attrs}>${shown(value)}</textarea>`);
      return labelled(html`<input type="text" id="${id}" name="${name}" value="${shown(value)}"${bounds}${req}${attrs}>`);
    }
    case 'number': {
      const bounds = html`${s.minimum !== undefined ? html` min="${s.minimum}"` : ''}${s.maximum !== undefined ? html` max="${s.maximum}"` : ''}`;
      return labelled(html`<input type="number" id="${id}" name="${name}" value="${shown(value)}" step="${shape.control.integer ? '1' : 'any'}"${bounds}${req}${attrs}>`);
    }
    case 'boolean':
      if (shape.nullable) {
        const opt = (v: string, text: string) => html`<option value="${v}"${shown(value) === v ? html` selected` : ''}>${text}</option>`;
        return labelled(html`<select id="${id}" name="${name}"${attrs}>${opt('', 'not set')}${opt('true', 'yes')}${opt('false', 'no')}</select>`);
      }
      return html`<div class="field check"><input type="hidden" name="_present[${name}]" value="1"><input type="checkbox" id="${id}" name="${name}" value="true"${value === true ? html` checked` : ''}${attrs}><label for="${id}">${label(path)}</label>${help(shape.description)}${notes}</div>`;
    case 'enum': {
      const options_ = shape.control.options.map((o) => html`<option value="${o}"${shown(value) === String(o) ? html` selected` : ''}>${o}</option>`);
      return labelled(html`<select id="${id}" name="${name}"${req}${attrs}><option value="">${shape.nullable ? 'none' : 'choose'}</option>${options_}</select>`);
    }
    case 'json':
      return labelled(html`<textarea id="${id}" name="${name}" rows="4" class="code"${attrs}>${value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</textarea><p class="help">JSON</p>`);
    case 'array': {
      const items = Array.isArray(value) ? value : [];
      const item = shape.control.items;
      const slots = [...items, undefined].map((v, i) => control(item, [...path, i], v, { ...options, required: false }));
      return html`<fieldset class="field" id="${id}"${attrs}><legend>${label(path)}</legend><input type="hidden" name="_present[${name}]" value="1">${help(shape.description)}${notes}${slots}<p class="help">Leave an item blank to remove it; save to get another empty one.</p></fieldset>`;
    }
    case 'object': {
      const current = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
      const children = Object.entries(shape.control.properties)
        .filter(([, child]) => (child as unknown as { readOnly?: boolean }).readOnly !== true)
        .map(([key, child]) => control(child, [...path, key], current[key], { ...options, required: false }));
      return html`<fieldset class="field" id="${id}"${attrs}><legend>${label(path)}</legend><input type="hidden" name="_present[${name}]" value="1">${help(shape.description)}${notes}${children}</fieldset>`;
    }
  }
}

/** A value shown, not editable (read-only fields, create-only ones on edit). */
export function shownValue(value: unknown): Html {
  if (value === null || value === undefined) return html`<span class="muted">none</span>`;
  if (typeof value === 'object') return html`<pre class="code">${JSON.stringify(value, null, 2)}</pre>`;
  return html`${String(value)}`;
}
