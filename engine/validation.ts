/**
 * Turns a request body into accepted input or field errors. Every refused field is named, with a message
 * built from its schema; no message ever repeats a submitted value.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Settings } from 'typebox/system';
import type { FieldError } from './errors.ts';
import { describeSchema, isReadOnly, unwrapNullable } from './fields.ts';
import type { FamilyDescriptor, Row } from './descriptor.ts';
import { targetErrors, type TargetCheck } from './targets.ts';

Settings.Set({ maxErrors: 1000 });

type Json = Record<string, unknown>;
type Validator = ReturnType<typeof Compile>;
const compiled = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let v = compiled.get(schema);
  if (!v) {
    v = Compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

function pathOf(field: string, instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`), field);
}

function resolve(schema: TSchema, schemaPath: string): TSchema {
  let node: unknown = schema;
  for (const part of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return schema;
    node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return (node && typeof node === 'object' ? node : schema) as TSchema;
}

type Json2 = Record<string, unknown>;

/** The object shapes of a union of objects (`{ username, password }` or `{ token }`), or undefined. */
function objectBranches(schema: TSchema): TSchema[] | undefined {
  const { inner } = unwrapNullable(schema);
  const members = inner.anyOf as Json2[] | undefined;
  return Array.isArray(members) && members.length > 1 && members.every((m) => m.type === 'object') ? (members as unknown as TSchema[]) : undefined;
}

const shapeOf = (branch: TSchema) => `{ ${Object.keys(((branch as unknown as Json2).properties as Json2 | undefined) ?? {}).join(', ')} }`;

/** Field errors for one value against one field schema (empty when it is valid). */
export function checkValue(field: string, schema: TSchema, value: unknown): FieldError[] {
  const validator = validatorFor(schema);
  if (validator.Check(value)) return [];
  const branches = objectBranches(schema);
  if (branches) {
    // report against the shape the value comes closest to, not every shape at once
    if (!isPlainObject(value)) return [{ field, message: `must be an object shaped ${branches.map(shapeOf).join(' or ')}${unwrapNullable(schema).nullable ? ', or null' : ''}` }];
    const candidates = branches.map((branch) => checkValue(field, branch, value));
    return candidates.reduce((best, errors) => (errors.length < best.length ? errors : best));
  }
  const byPath = new Map<string, string>();
  const errors = [...validator.Errors(value)] as { keyword: string; schemaPath: string; instancePath: string; params: Json }[];
  for (const error of errors) {
    if (error.keyword === 'required') {
      for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
        byPath.set(pathOf(field, `${error.instancePath}/${name}`), 'is required');
      }
    } else if (error.keyword === 'additionalProperties') {
      for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
        byPath.set(pathOf(field, `${error.instancePath}/${name}`), 'is not an accepted key');
      }
    }
  }
  for (const error of errors) {
    if (['required', 'additionalProperties', 'boolean'].includes(error.keyword)) continue;
    const path = pathOf(field, error.instancePath);
    if (byPath.has(path)) continue;
    const union = errors.find((e) => e.keyword === 'anyOf' && e.instancePath === error.instancePath);
    const where = (union ?? error).schemaPath;
    byPath.set(path, describeSchema(resolve(schema, where)));
  }
  if (byPath.size === 0) byPath.set(field, describeSchema(schema));
  return [...byPath].map(([f, message]) => ({ field: f, message }));
}

/**
 * Why PostgreSQL cannot store a string (or any key or string inside a value), or undefined when it can: text holds
 * no U+0000, and jsonb refuses a lone UTF-16 surrogate (`\ud800` without its pair), which text would silently turn
 * into U+FFFD. Both are refused up front, naming the field, rather than failing in the database or changing what
 * the client wrote. Bodies are at most MAX_JSON_DEPTH deep (engine/http/body.ts), so the recursion is bounded.
 */
export function unstorableText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain NUL characters';
    if (!value.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates';
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const problem = unstorableText(k) ?? unstorableText(v);
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit` (the top level is depth 1). Iterative, so
 * a body nested 100,000 deep is measured without running out of stack.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

export function isPlainObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface ParsedWrite {
  input: Row;
  errors: FieldError[];
}

/**
 * Checks a create or update body against a family: unknown, read-only and (on update) create-only fields
 * are refused by name, required fields are checked on create, every value against its schema, and every
 * target it sends (a URL the service calls, a link: engine/targets.ts) by the deployment's `targets` check.
 * `extraInputs` are accepted inputs that are not fields (such as `move` on positioned families).
 */
export function parseWrite(d: FamilyDescriptor, body: unknown, op: 'create' | 'update', targets: TargetCheck, extraInputs: Record<string, TSchema> = {}): ParsedWrite {
  if (!isPlainObject(body)) return { input: {}, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const input: Row = {};
  for (const [key, value] of Object.entries(body)) {
    // own properties only: a key named like an Object.prototype member (toString, constructor) is no field
    const schema = Object.hasOwn(d.fields, key) ? d.fields[key] : Object.hasOwn(extraInputs, key) ? extraInputs[key] : undefined;
    const unstorable = unstorableText(value);
    if (!schema) {
      errors.push({ field: key, message: `is not a field of ${d.name}` });
    } else if (isReadOnly(schema)) {
      errors.push({ field: key, message: 'is read-only' });
    } else if (op === 'update' && d.createOnly?.includes(key)) {
      errors.push({ field: key, message: 'can only be set when the row is created' });
    } else if (unstorable) {
      errors.push({ field: key, message: unstorable });
    } else {
      const found = value === undefined ? [] : checkValue(key, schema, value);
      // only values sent are judged: a stored URL the policy no longer allows does not block other changes
      if (!found.length && value !== undefined) found.push(...targetErrors(key, schema, value, targets));
      if (found.length) errors.push(...found);
      else if (value !== undefined) input[key] = value;
    }
  }
  if (op === 'create') {
    for (const key of d.requiredOnCreate ?? []) {
      if (!Object.hasOwn(body, key) || body[key] === undefined) errors.push({ field: key, message: 'is required' });
    }
  }
  return { input, errors };
}

/** Field errors for a whole body against an object schema (an action's input), named by field path. */
export function checkBody(schema: TSchema, body: unknown): FieldError[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'must be a JSON object' }];
  const unstorable = Object.entries(body).flatMap(([key, value]) => {
    const problem = unstorableText(key) ?? unstorableText(value);
    return problem ? [{ field: key, message: problem }] : [];
  });
  if (unstorable.length) return unstorable;
  return checkValue('', schema, body).map((e) => ({ ...e, field: e.field.replace(/^\./, '') || 'body' }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
