/**
 * What a form control is, read off a field's TypeBox schema (plain JSON Schema): the one place the configuration
 * pages interpret schemas, shared by the form renderer (form.ts) and the form→JSON reader (form-json.ts), so what
 * is drawn and what is read back cannot disagree.
 */
import type { TSchema } from 'typebox';
import { unwrapNullable } from '../../../engine/fields.ts';

type Json = Record<string, any>;

export type Control =
  | { kind: 'text'; secret: boolean; long: boolean }
  | { kind: 'number'; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'enum'; options: readonly (string | number)[] }
  | { kind: 'array'; items: TSchema }
  | { kind: 'object'; properties: Record<string, TSchema>; required: readonly string[] }
  /** anything a control cannot draw (maps, unions of shapes): a JSON text area, parsed back as JSON */
  | { kind: 'json' };

export interface FieldShape {
  control: Control;
  nullable: boolean;
  /** the non-null schema (its bounds, description, default) */
  schema: Json;
  description?: string;
}

function enumOptions(s: Json): (string | number)[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  if (s.const !== undefined && (typeof s.const === 'string' || typeof s.const === 'number')) return [s.const];
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && s.anyOf.every((m: Json) => m.const !== undefined && typeof m.const !== 'boolean')) return s.anyOf.map((m: Json) => m.const);
  return undefined;
}

export function shapeOf(field: TSchema): FieldShape {
  const { inner, nullable } = unwrapNullable(field);
  const s = inner as Json;
  const outer = field as unknown as Json;
  const description = (outer.description ?? s.description) as string | undefined;
  const options = enumOptions(s);
  const at = (control: Control): FieldShape => ({ control, nullable, schema: s, description });
  if (options) return at({ kind: 'enum', options });
  switch (s.type) {
    case 'string':
      return at({ kind: 'text', secret: outer.writeOnly === true || s.writeOnly === true, long: (s.maxLength ?? 0) > 500 });
    case 'integer':
    case 'number':
      return at({ kind: 'number', integer: s.type === 'integer' });
    case 'boolean':
      return at({ kind: 'boolean' });
    case 'array':
      return s.items && !Array.isArray(s.items) ? at({ kind: 'array', items: s.items }) : at({ kind: 'json' });
    case 'object':
      if (s.properties && !s.patternProperties && !(s.additionalProperties && typeof s.additionalProperties === 'object')) {
        return at({ kind: 'object', properties: s.properties, required: s.required ?? [] });
      }
      return at({ kind: 'json' });
    default:
      return at({ kind: 'json' });
  }
}

/** The input name of a nested value: `escalation[0][team]` (the path `escalation`, 0, `team`). */
export function inputName(path: readonly (string | number)[]): string {
  return path.map((p, i) => (i === 0 ? String(p) : `[${p}]`)).join('');
}

/** An input's id (letters, digits, dashes): unique per page, for its label's `for`. */
export const inputId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

/** A field error's path (`escalation[0].team`, as the engine names it) as the input name it belongs to. */
export const errorInputName = (field: string) => field.replace(/\.([^.[\]]+)/g, '[$1]');
