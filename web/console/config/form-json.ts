/**
 * The general form→JSON reader: a posted form (`name`, `escalation[0][team]`, …, each value a string) read back
 * into the JSON a REST client would send, typed by the field schemas (schema.ts). A value that cannot be read as
 * its type (letters in a number, malformed JSON) is kept as the text typed, so the operation's validation refuses
 * it by field, exactly as it would over REST. Blank means: left out (the stored value stays), or null where the
 * field is nullable (cleared); on an edit an emptied text is sent empty (its bounds judge it) and an emptied list as
 * []; a secret left blank is always left out (kept).
 */
import type { TSchema } from 'typebox';
import { inputName, shapeOf } from './schema.ts';

type Form = Record<string, string>;

/** The array indexes posted under `name` (`name[3]…` → 3), in order; gaps are allowed (a removed item). */
function indexesUnder(form: Form, name: string): number[] {
  const found = new Set<number>();
  const prefix = `${name}[`;
  for (const key of Object.keys(form)) {
    if (!key.startsWith(prefix)) continue;
    const m = /^(\d+)\]/.exec(key.slice(prefix.length));
    if (m) found.add(Number(m[1]));
  }
  return [...found].sort((a, b) => a - b);
}

const has = (form: Form, name: string) => Object.hasOwn(form, name);

/**
 * One value; undefined means "send nothing for it". `edit`: the form shows a stored row, so an emptied list is
 * sent as [] and an emptied text as "" (which the field's bounds may refuse, by name) instead of being left out.
 */
export function readValue(schema: TSchema, form: Form, path: readonly (string | number)[], edit: boolean): unknown {
  const shape = shapeOf(schema);
  const name = inputName(path);
  const blank = () => (shape.nullable ? null : undefined);
  const text = has(form, name) ? form[name]! : undefined;
  switch (shape.control.kind) {
    case 'text':
      if (shape.control.secret) return has(form, `_clear[${name}]`) && shape.nullable ? null : text ? text : undefined;
      return text === undefined ? undefined : text === '' ? (shape.nullable ? null : edit ? '' : undefined) : text;
    case 'number': {
      if (text === undefined) return undefined;
      if (text.trim() === '') return blank();
      const n = Number(text);
      return Number.isNaN(n) ? text : n;
    }
    case 'boolean':
      // a nullable boolean is a select (unset, yes, no); a plain one a checkbox, absent when unticked
      if (shape.nullable) return text === 'true' ? true : text === 'false' ? false : text === '' ? null : undefined;
      return has(form, `_present[${name}]`) || text !== undefined ? text === 'true' : undefined;
    case 'enum': {
      if (text === undefined) return undefined;
      if (text === '') return blank();
      const option = shape.control.options.find((o) => String(o) === text);
      return option ?? text;
    }
    case 'json':
      if (text === undefined) return undefined;
      if (text.trim() === '') return blank();
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    case 'array': {
      const item = shape.control.items;
      const items = indexesUnder(form, name)
        .filter((i) => !blankItem(form, `${name}[${i}]`))
        .map((i) => readValue(item, form, [...path, i], false))
        .filter((v) => v !== undefined && !isEmptyObject(v));
      if (items.length) return items;
      if (!has(form, `_present[${name}]`)) return undefined;
      return edit ? [] : undefined;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(shape.control.properties)) {
        if ((child as unknown as { readOnly?: boolean }).readOnly) continue;
        const value = readValue(child, form, [...path, key], edit);
        if (value !== undefined) out[key] = value;
      }
      if (Object.keys(out).length) return out;
      return shape.nullable && has(form, `_present[${name}]`) ? null : undefined;
    }
  }
}

/** An item slot left empty (the spare slot every list shows): nothing typed, nothing ticked. */
const blankItem = (form: Form, prefix: string) => Object.keys(form).every((k) => !k.startsWith(prefix) || form[k]!.trim() === '');

const isEmptyObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** A write's body: each named field read from the form (those left out are not sent). */
export function readFields(fields: Record<string, TSchema>, names: readonly string[], form: Form, edit: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const value = readValue(fields[name]!, form, [name], edit);
    if (value !== undefined) body[name] = value;
  }
  return body;
}
