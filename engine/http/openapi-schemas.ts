/**
 * The JSON Schemas the OpenAPI document gives a family, derived from its fields: the row a caller reads
 * (every field except write-only ones), and the bodies of create (writable fields) and update (writable
 * fields minus create-only ones, plus `move` where rows keep an order). TypeBox schemas are JSON Schema
 * already, so they are copied, never translated: `readOnly`, `writeOnly`, `default`, limits and custom
 * `x-` keywords (such as `x-format-description`) all stay as the descriptor wrote them. Only `description`
 * is completed with the facts the descriptor declares elsewhere (rules, references, create-only, …), and an
 * update body drops `default`: an omitted field keeps its value, and generated clients (openapi-typescript)
 * make a field with a default required, so a typed partial update could not be written.
 */
import type { FamilyDescriptor } from '../descriptor.ts';
import { isWriteOnly, planFields, unwrapNullable } from '../fields.ts';
import { MOVE_INPUT } from '../operations/rows.ts';

export type Json = Record<string, unknown>;

/** A plain JSON copy: the document never shares (or mutates) a descriptor's schema objects. */
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Ends a sentence; the descriptor's own words are otherwise kept as written (`rest or mcp` names values). */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A field's own description followed by every fact the descriptor declares about it, one sentence each. */
export function fieldDescription(d: FamilyDescriptor, name: string): string | undefined {
  const schema = d.fields[name] as unknown as Json;
  const parts: string[] = [];
  if (typeof schema.description === 'string' && schema.description) parts.push(schema.description);
  const ref = d.references?.[name];
  if (ref) {
    const many = unwrapNullable(d.fields[name]!).inner.type === 'array';
    const what = many ? `ids of ${ref.family} rows of this organization` : `the id of a ${ref.family} row of this organization`;
    const unknown = ref.unknown === 'drop' ? 'an id that is not one is not linked, and the answer names it in `notices`' : 'an id that is not one is refused (422)';
    parts.push(`References ${ref.family}: ${what}; ${unknown}`);
  }
  for (const rule of d.rules ?? []) if (rule.fields.includes(name)) parts.push(`Rule: ${rule.description}`);
  if (d.createOnly?.includes(name)) parts.push('Create only: set when the row is created; an update that names it is refused (422)');
  if (d.userTokenFields?.includes(name)) {
    parts.push('User only: a personal access token (at the agent-tool endpoint) may change it; an organization API key that sends it is refused with 403 user_token_required');
  }
  if (d.archive?.field === name) parts.push('Set when the row is deleted, which archives it; null while the row is active');
  if (d.positioned?.field === name) parts.push('Create appends the row last; an update with `move` shifts it one place');
  if (parts.length <= 1) return parts[0];
  return parts.map(sentence).join(' ');
}

function property(d: FamilyDescriptor, name: string): Json {
  const schema = copy(d.fields[name]) as unknown as Json;
  const description = fieldDescription(d, name);
  if (description) schema.description = description;
  return schema;
}

/** The field as an update body takes it: defaults belong to create (descriptors set them on whole fields; openapi.test.ts checks none is left nested). */
function updateProperty(d: FamilyDescriptor, name: string): Json {
  const { default: _, ...schema } = property(d, name);
  return schema;
}

function object(properties: Record<string, Json>, required: readonly string[], options: Json): Json {
  return { type: 'object', ...options, ...(required.length ? { required: [...required] } : {}), properties };
}

export interface FamilySchemas {
  /** what every answer holds per row */
  row: Json;
  create?: Json;
  update?: Json;
}

/** The readable fields: every field except write-only ones (a row answers all of them, null when unset). */
export function readableFields(d: FamilyDescriptor): string[] {
  return Object.keys(d.fields).filter((name) => !isWriteOnly(d.fields[name]!));
}

export function familySchemas(d: FamilyDescriptor): FamilySchemas {
  const readable = readableFields(d);
  const { writable } = planFields(d);
  const schemas: FamilySchemas = {
    row: object(Object.fromEntries(readable.map((n) => [n, property(d, n)])), readable, { description: `A ${d.name} row as every answer shows it.` }),
  };
  const closed = { additionalProperties: false };
  if (d.operations.includes('create')) {
    schemas.create = object(Object.fromEntries(writable.map((n) => [n, property(d, n)])), d.requiredOnCreate ?? [], {
      ...closed,
      description: `The fields of a new ${d.name} row. Unknown and read-only fields are refused (422); fields not sent take their defaults.`,
    });
  }
  if (d.operations.includes('update')) {
    const fields = writable.filter((n) => !d.createOnly?.includes(n));
    const properties: Record<string, Json> = Object.fromEntries(fields.map((n) => [n, updateProperty(d, n)]));
    if (d.positioned) properties.move = copy(MOVE_INPUT) as unknown as Json;
    schemas.update = object(properties, [], {
      ...closed,
      description: `Only the ${d.name} fields to change; omitted fields keep their value. Unknown and read-only fields are refused (422).`,
    });
  }
  return schemas;
}
