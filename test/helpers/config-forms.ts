/**
 * Reading and filling the configuration console's forms as a browser without JavaScript would: the controls of
 * one form in a page (their current values, only ticked checkboxes, the selected option), and a JSON body laid
 * over them under the console's naming (`escalation[0][team]`). Written apart from web/console/config so the tests
 * do not check the console's reader with itself.
 */
import type { Page } from 'playwright-core';

type Form = Record<string, string>;

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"');
const attrs = (tag: string) => Object.fromEntries([...tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].slice(1).map((m) => [m[1]!, m[2] === undefined ? '' : unescape(m[2])]));

export interface PageForm {
  action: string;
  fields: Form;
  /** the kind of each named control: text, checkbox, select, json (a JSON text area) */
  kinds: Map<string, string>;
}

/** The form whose `class` holds `marker` (the write form: `config-form`). */
export function formIn(page: string, marker = 'config-form'): PageForm | undefined {
  const found = new RegExp(`<form([^>]*class="[^"]*${marker}[^"]*"[^>]*)>([\\s\\S]*?)</form>`).exec(page);
  if (!found) return undefined;
  const fields: Form = {};
  const kinds = new Map<string, string>();
  const body = found[2]!;
  for (const [tag] of body.matchAll(/<input[^>]*>/g)) {
    const a = attrs(tag);
    if (!a.name || 'disabled' in a) continue;
    kinds.set(a.name, a.type === 'checkbox' ? 'checkbox' : a.type === 'password' ? 'secret' : a.type === 'hidden' ? 'hidden' : 'text');
    if (a.type === 'checkbox' && !('checked' in a)) continue;
    fields[a.name] = a.value ?? '';
  }
  for (const m of body.matchAll(/<textarea([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const a = attrs(`<t ${m[1]}>`);
    kinds.set(a.name!, (a.class ?? '').includes('code') ? 'json' : 'text');
    fields[a.name!] = unescape(m[2]!);
  }
  for (const m of body.matchAll(/<select([^>]*)>([\s\S]*?)<\/select>/g)) {
    const a = attrs(`<s ${m[1]}>`);
    kinds.set(a.name!, 'select');
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]!);
    fields[a.name!] = selected ? unescape(selected[1]!) : '';
  }
  return { action: unescape(attrs(`<f ${found[1]}>`).action ?? ''), fields, kinds };
}

/** `body` laid over the form's fields: each value under its control's name; lists and objects replace what was there. */
export function fill(form: PageForm, body: Record<string, unknown>): Form {
  const out: Form = { ...form.fields };
  const put = (name: string, value: unknown) => {
    for (const key of Object.keys(out)) if (key.startsWith(`${name}[`)) delete out[key];
    const kind = form.kinds.get(name);
    if (kind === 'json') out[name] = JSON.stringify(value);
    else if (value === null) out[name] = '';
    else if (typeof value === 'boolean') {
      if (kind === 'checkbox' && !value) delete out[name];
      else out[name] = String(value);
    } else if (Array.isArray(value)) value.forEach((v, i) => put(`${name}[${i}]`, v));
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) put(`${name}[${k}]`, v);
    else out[name] = String(value);
  };
  for (const [key, value] of Object.entries(body)) put(key, value);
  return out;
}

/** The input name of an engine field path (`escalation[0].team` → `escalation[0][team]`). */
export const inputNameOf = (field: string) => field.replace(/\.([^.[\]]+)/g, '[$1]');

/**
 * Whether a person could type this invalid value into the form: the refused field has a control (read-only fields
 * and unknown nested keys have none), and the value is one the control can send — a checkbox sends only true or
 * false, a blank secret means "keep the stored one", a blank list item means "remove it".
 */
export function expressible(form: PageForm, body: Record<string, unknown>, field: string): boolean {
  const name = inputNameOf(field);
  const top = field.split(/[.[]/)[0]!;
  const controls = [...form.kinds.keys()];
  if (!controls.some((c) => c === name || c.startsWith(`${name}[`) || c === `_present[${name}]`)) return false;
  const value = body[top];
  const kind = form.kinds.get(top);
  if (kind === 'checkbox' && typeof value !== 'boolean') return false;
  if (kind === 'secret' && value === '') return false;
  if (Array.isArray(value) && value.some((v) => v === '')) return false;
  return true;
}

/** Types `body` into the write form open in `tab`, control by control, as a person would (browser tests, screenshots). */
export async function typeInto(tab: Page, body: Record<string, unknown>): Promise<void> {
  const form = formIn(await tab.content())!;
  const wanted = fill(form, body);
  for (const [name, kind] of form.kinds) {
    if (kind === 'hidden' || name.startsWith('_')) continue;
    const input = tab.locator(`form.config-form [name="${name}"]`);
    if (kind === 'checkbox') await input.setChecked(name in wanted);
    else if (kind === 'select') await input.selectOption(wanted[name] ?? '');
    else if (wanted[name] !== form.fields[name] && wanted[name] !== undefined) await input.fill(wanted[name]!);
  }
}
