/** What the engine reads off a descriptor's fields: which are settable, secret, stored or derived. */
import type { TSchema } from 'typebox';
import type { ServiceConfig } from './config.ts';
import type { FamilyDescriptor } from './descriptor.ts';

/** Columns every family table has; a field of the same name answers the column. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at'] as const;

type Json = Record<string, unknown>;
const json = (schema: TSchema): Json => schema as unknown as Json;

export const isReadOnly = (schema: TSchema): boolean => json(schema).readOnly === true;
export const isWriteOnly = (schema: TSchema): boolean => json(schema).writeOnly === true;

/** Whether a field holds a list (`T[]` or `T[] | null`). */
export const isListField = (schema: TSchema): boolean => unwrapNullable(schema).inner.type === 'array';

/** The non-null member of `T | null`, and whether null is allowed. */
export function unwrapNullable(schema: TSchema): { inner: Json; nullable: boolean } {
  const s = json(schema);
  const anyOf = s.anyOf as Json[] | undefined;
  if (Array.isArray(anyOf) && anyOf.some((m) => m.type === 'null')) {
    const rest = anyOf.filter((m) => m.type !== 'null');
    return { inner: rest.length === 1 ? rest[0]! : { anyOf: rest }, nullable: true };
  }
  return { inner: s, nullable: false };
}

export interface FieldPlan {
  /** fields a caller may send (not read-only) */
  writable: string[];
  /** write-only secrets: stored sealed, never answered */
  secrets: string[];
  /** fields with a column of their own (writable and stored read-only state) */
  stored: string[];
}

export function planFields(d: FamilyDescriptor): FieldPlan {
  const derived = new Set<string>([
    ...SYSTEM_FIELDS,
    ...Object.keys(d.computed ?? {}),
    ...Object.keys(d.presence ?? {}),
  ]);
  const names = Object.keys(d.fields);
  return {
    writable: names.filter((n) => !isReadOnly(d.fields[n]!)),
    secrets: names.filter((n) => isWriteOnly(d.fields[n]!)),
    stored: names.filter((n) => !derived.has(n)),
  };
}

/** The PostgreSQL column for a field schema. */
export function columnFor(schema: TSchema): { type: string; columnType: string } {
  const { inner } = unwrapNullable(schema);
  if (isWriteOnly(schema)) return { type: 'string', columnType: 'text' };
  switch (inner.type) {
    case 'string':
      return inner.format === 'date-time' ? { type: 'Date', columnType: 'timestamptz' } : { type: 'string', columnType: 'text' };
    case 'integer':
      return { type: 'integer', columnType: 'int' };
    case 'number':
      return { type: 'double', columnType: 'double precision' };
    case 'boolean':
      return { type: 'boolean', columnType: 'boolean' };
    default: {
      const members = inner.anyOf as Json[] | undefined;
      if (Array.isArray(members) && members.every((m) => m.type === 'string')) return { type: 'string', columnType: 'text' };
      return { type: 'json', columnType: 'jsonb' };
    }
  }
}

/** What a PostgreSQL `int` column holds: an integer field accepts no more (the database would refuse it with an error). */
export const INT_COLUMN = { minimum: -2_147_483_648, maximum: 2_147_483_647 } as const;

/** A schema object with its extra keywords set, keeping TypeBox's own hidden markers (such as `~kind`). */
function withKeywords(schema: Json, keywords: Json): Json {
  return Object.assign(Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as Json, keywords);
}

/**
 * A field schema bounded by its column: an integer field (nullable or not) gets the `int` column's minimum and
 * maximum where its own are missing or looser, so validation refuses what the column cannot hold and OpenAPI and
 * the tool schemas show the bound. Tighter bounds of the descriptor stay. Other schemas are returned as they are.
 * Integers nested in json columns are left alone: jsonb holds any number, and no query casts one to a column type.
 */
export function boundedByColumn(schema: TSchema): TSchema {
  const s = json(schema);
  const bound = (integer: Json): Json => {
    const minimum = typeof integer.minimum === 'number' ? Math.max(integer.minimum, INT_COLUMN.minimum) : INT_COLUMN.minimum;
    const maximum = typeof integer.maximum === 'number' ? Math.min(integer.maximum, INT_COLUMN.maximum) : INT_COLUMN.maximum;
    return minimum === integer.minimum && maximum === integer.maximum ? integer : withKeywords(integer, { minimum, maximum });
  };
  if (isWriteOnly(schema) || columnFor(schema).columnType !== 'int') return schema;
  if (s.type === 'integer') return bound(s) as unknown as TSchema;
  const anyOf = s.anyOf as Json[];
  const members = anyOf.map((m) => (m.type === 'integer' ? bound(m) : m));
  return members.every((m, i) => m === anyOf[i]) ? schema : (withKeywords(s, { anyOf: members }) as unknown as TSchema);
}

/** A descriptor whose integer fields are bounded by their columns ({@link boundedByColumn}); the registry serves this one. */
export function withColumnBounds<D extends FamilyDescriptor>(d: D): D {
  const fields = Object.fromEntries(Object.entries(d.fields).map(([name, schema]) => [name, boundedByColumn(schema)]));
  return Object.entries(fields).every(([name, schema]) => schema === d.fields[name]) ? d : { ...d, fields };
}

/**
 * A descriptor as this deployment publishes it: each field of `configuredValues` carries the values its
 * configuration allows as `enum` (on the string member of a nullable field). What is published only: the registry's
 * descriptor, which validation reads, is left as it is.
 */
export function withConfiguredValues<D extends FamilyDescriptor>(d: D, config: ServiceConfig): D {
  if (!d.configuredValues) return d;
  const fields = { ...d.fields };
  for (const [name, values] of Object.entries(d.configuredValues)) {
    const schema = fields[name];
    if (!schema) throw new Error(`${d.name}: configuredValues names ${name}, which is not a field`);
    const allowed = [...values(config)];
    const s = json(schema);
    const anyOf = s.anyOf as Json[] | undefined;
    fields[name] = (Array.isArray(anyOf)
      ? withKeywords(s, { anyOf: anyOf.map((m) => (m.type === 'string' ? withKeywords(m, { enum: allowed }) : m)) })
      : withKeywords(s, { enum: allowed })) as unknown as TSchema;
  }
  return { ...d, fields };
}

/** A sentence saying what a field accepts, built from its schema; never from a submitted value. */
export function describeSchema(schema: TSchema): string {
  const { inner, nullable } = unwrapNullable(schema);
  const base = describeInner(inner);
  return nullable ? `${base}, or null` : base;
}

function range(min: unknown, max: unknown): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

function describeString(s: Json): string {
  if (s.format === 'date') return 'must be a date written YYYY-MM-DD';
  if (s.format === 'date-time') return 'must be an ISO-8601 timestamp';
  if (s.format === 'uri') return 'must be an absolute URL';
  if (typeof s['x-format-description'] === 'string') return `must be ${s['x-format-description']}`;
  if (s.minLength !== undefined && s.maxLength !== undefined) return `must be a string of ${s.minLength} to ${s.maxLength} characters`;
  if (s.minLength === 1) return 'must be a non-empty string';
  if (s.minLength !== undefined) return `must be a string of at least ${s.minLength} characters`;
  if (s.maxLength !== undefined) return `must be a string of at most ${s.maxLength} characters`;
  return 'must be a string';
}

function describeInner(s: Json): string {
  const members = s.anyOf as Json[] | undefined;
  if (Array.isArray(members) && members.every((m) => 'const' in m)) {
    return `must be one of: ${members.map((m) => String(m.const)).join(', ')}`;
  }
  switch (s.type) {
    case 'string':
      return describeString(s);
    case 'integer':
      return `must be an integer${range(s.minimum, s.maximum)}`;
    case 'number':
      return `must be a number${range(s.minimum, s.maximum)}`;
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return `must be an array${range(s.minItems, s.maxItems).replace(/(\d+)$/, '$1 items')}`;
    case 'object':
      return `must be an object${range(s.minProperties, s.maxProperties).replace(/(\d+)$/, '$1 entries')}`;
    default:
      return 'has a value of the wrong type';
  }
}
