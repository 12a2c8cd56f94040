/**
 * Request and answer examples of a family's operations, generated from its descriptor's `examples` (the bodies
 * the conformance suite creates rows with), so a new family gets them without writing any: each valid body is a
 * create example, the `update` body the update example, and the row an answer shows is built from those bodies,
 * the field defaults, and a plain sample of each read-only field. Placeholders (`$ref:<family>`) become a sample
 * id. An action's request is a sample of every field its input takes (descriptors give actions no example
 * bodies). Spectral's oas3-valid-media-example and openapi.test.ts check every example against its schema.
 */
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { PLANS } from '../plans.ts';
import { copy, readableFields, type Json } from './openapi-schemas.ts';

const SAMPLE_ID = '7f1c2a9e-4b3d-4c8e-9a51-2d6f0e8b3c47';
const SAMPLE_REFERENCE = '0b6e4d2f-8a1c-4f3e-b7d9-5c2a1e0f9d38';
const SAMPLE_TIME = '2026-01-15T09:30:00.000Z';
export const SAMPLE_ORGANIZATION = { id: '3c9d5e1a-6f2b-4a7c-8e0d-1b4f7a2c9e65', name: 'Example Org', plan: PLANS.at(-1)! };

/** A value a schema accepts, for fields no example body sets: its default, else the plainest value of its type. */
export function sample(schema: Json): unknown {
  if ('default' in schema) return copy(schema.default);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf as Json[];
    return members.some((m) => m.type === 'null') ? null : sample(members[0]!);
  }
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') return SAMPLE_TIME;
      if (schema.format === 'uuid') return SAMPLE_ID;
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      return 'example'.padEnd(Number(schema.minLength ?? 0), 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sample((schema.items ?? {}) as Json));
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      return Object.fromEntries(((schema.required ?? []) as string[]).map((name) => [name, sample(properties[name] ?? {})]));
    }
    default:
      return null;
  }
}

/** A body that sets every field the input schema takes: a sample of each, so a reader sees them all. */
export function sampleBody(schema: Json): Row {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, sample(field)]));
}

/** An example body with its `$ref:<family>` placeholders (the id of a row a test creates first) as a sample id. */
function withoutPlaceholders(body: Row): Row {
  const one = (value: unknown) => (typeof value === 'string' && value.startsWith('$ref:') ? SAMPLE_REFERENCE : value);
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, Array.isArray(value) ? value.map(one) : one(value)]));
}

/** The row an answer shows after `body` was written: what it set, defaults for the rest, samples for read-only fields. */
function rowFrom(d: FamilyDescriptor, body: Row): Row {
  const row: Row = {};
  for (const name of readableFields(d)) {
    const secret = d.presence?.[name];
    if (name === 'id' && d.id) row.id = d.id.from.map((part) => String(body[part] ?? sample(d.fields[part] as unknown as Json))).join('/');
    else if (name in body) row[name] = copy(body[name]);
    else if (secret) row[name] = body[secret] !== undefined && body[secret] !== null;
    else if (name === 'id') row.id = SAMPLE_ID;
    else row[name] = sample(d.fields[name] as unknown as Json);
  }
  return row;
}

const one = (summary: string, value: unknown): Json => ({ summary, value });
const answer = (row: Row): Json => ({ data: row, organization: SAMPLE_ORGANIZATION });

export interface FamilyExamples {
  /** per create body: the request and the answer of the first one */
  create?: { requests: Record<string, Json>; answer: Json };
  update?: { request: Record<string, Json>; answer: Json };
  read?: Json;
  /** the answer of an action: the row as it reads */
  row: Json;
}

export function familyExamples(d: FamilyDescriptor): FamilyExamples {
  const valid = d.examples.valid.map(withoutPlaceholders);
  const update = d.examples.update ? withoutPlaceholders(d.examples.update) : undefined;
  const first = valid[0] ?? {};
  // the row the update example changes: the first created one, or (a singleton, an upsert) the update alone
  const updated = update ? rowFrom(d, { ...first, ...update }) : undefined;
  const row = answer(valid.length ? rowFrom(d, first) : updated ?? rowFrom(d, {}));
  const out: FamilyExamples = { row: { row: one('The row as stored now', row) } };
  if (d.operations.includes('create') && valid.length) {
    out.create = {
      requests: Object.fromEntries(valid.map((body, i) => [`example_${i + 1}`, one(i ? 'Another row' : 'A new row', body)])),
      answer: { created: one('The row as created', answer(rowFrom(d, first))) },
    };
  }
  if (d.operations.includes('update') && update && updated) {
    out.update = { request: { change: one('Only the fields to change', update) }, answer: { updated: one('The row as stored after the change', answer(updated)) } };
  }
  if (d.operations.includes('read')) {
    out.read = { row: one('A row', row) };
  }
  return out;
}
