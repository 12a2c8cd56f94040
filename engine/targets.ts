/**
 * Fields that name a target: a URL the service calls or a host it connects to, or a link people follow. This is
 * declared on the field's schema (`x-target` names the address policy that judges it), so validation, OpenAPI and
 * the tool schemas all carry it. When such a value is saved (create and update, on every transport) the engine
 * asks the deployment's checker (`Services.targets`), which it receives: the engine knows no address policy.
 * Host names are not resolved here; the check when the request is made stays authoritative.
 */
import Type, { type TSchema, type TSchemaOptions } from 'typebox';
import type { FieldError } from './errors.ts';

/**
 * `outbound`: a URL the service calls with the organization's credentials (the outbound address policy);
 * `check`: a probe target (monitoring checks' own policy, which lets internal networks through);
 * `link`: a URL only shown to people, never called.
 */
export const TARGET_POLICIES = ['outbound', 'check', 'link'] as const;
export type TargetPolicy = (typeof TARGET_POLICIES)[number];

export interface Target {
  policy: TargetPolicy;
  /** `url`: an absolute URL (`format: uri`); `host`: a host name or address, with an optional `:port` */
  form: 'url' | 'host';
}

/** Why `value` may not be saved as this target (a message that names the rule, never the value), or null. */
export type TargetCheck = (value: string, target: Target) => string | null;

const URL_RULES: Record<TargetPolicy, string> = {
  outbound:
    'must be an https URL without user:password@; plain http only to a loopback or allow-listed address the deployment lets the service reach; ' +
    'a literal address the deployment\'s outbound address policy refuses (loopback unless allowed, private networks unless allow-listed, ' +
    'link-local and the cloud metadata address always) is refused; host names are checked when the service calls them',
  check:
    'must be an http or https URL without user:password@; a literal address the checks\' address policy refuses (loopback unless allowed, ' +
    'private networks when the deployment turns them off, link-local, the cloud metadata address and unspecified always) is refused; host names are checked when the check runs',
  link: 'must be an https URL without user:password@ (a link people follow; the service never calls it)',
};

const HOST_RULES: Record<Exclude<TargetPolicy, 'link'>, string> = {
  outbound: 'a literal address the deployment\'s outbound address policy refuses is refused; host names are checked when the service connects',
  check: 'a literal address the checks\' address policy refuses (loopback unless allowed, link-local and unspecified always) is refused; host names are checked when the check runs',
};

const withRule = (description: unknown, rule: string) => (typeof description === 'string' && description ? `${description}; ${rule}` : rule);

/** A URL field of this target policy: `format: uri`, at most 2048 characters, its rule in the description. */
export function targetUrl(policy: TargetPolicy, options: TSchemaOptions = {}) {
  return Type.String({ format: 'uri', maxLength: 2048, ...options, 'x-target': policy, description: withRule(options.description, URL_RULES[policy]) });
}

/** Marks a host field (a name or address, optionally with `:port`) as a target of this policy. */
export function targetHost(policy: Exclude<TargetPolicy, 'link'>, options: TSchemaOptions) {
  return Type.String({ ...options, 'x-target': policy, description: withRule(options.description, HOST_RULES[policy]) });
}

type Json = Record<string, unknown>;

/** The target a schema declares, if any. */
function targetOf(schema: TSchema): Target | undefined {
  const s = schema as unknown as Json;
  const policy = s['x-target'];
  if (typeof policy !== 'string') return undefined;
  return { policy: policy as TargetPolicy, form: s.format === 'uri' ? 'url' : 'host' };
}

/** Why a declared target is malformed (unknown policy, not a string, a host that is a link), or null. */
export function targetMistake(schema: TSchema): string | null {
  const s = schema as unknown as Json;
  const target = targetOf(schema);
  if (!target) return null;
  if (!(TARGET_POLICIES as readonly string[]).includes(target.policy)) return `x-target ${target.policy} is not one of ${TARGET_POLICIES.join(', ')}`;
  if (s.type !== 'string') return 'x-target is declared on a schema that is not a string';
  if (target.policy === 'link' && target.form !== 'url') return 'a link target must be a URL (format uri)';
  return null;
}

/** Every schema inside `schema` (itself, union members, object properties and map values, array items). */
export function* subschemas(schema: TSchema): Generator<TSchema> {
  const s = schema as unknown as Json;
  yield schema;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const m of (s[key] as TSchema[] | undefined) ?? []) yield* subschemas(m);
  for (const m of Object.values((s.properties as Record<string, TSchema> | undefined) ?? {})) yield* subschemas(m);
  for (const m of Object.values((s.patternProperties as Record<string, TSchema> | undefined) ?? {})) yield* subschemas(m);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') yield* subschemas(s.additionalProperties as TSchema);
  if (s.items && typeof s.items === 'object') yield* subschemas(s.items as TSchema);
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Field errors for the targets inside a value that already passed its schema: each string at a declared target
 * (a field, a union member, an object property or array item) is judged by `check`, and refused by its path.
 */
export function targetErrors(field: string, schema: TSchema, value: unknown, check: TargetCheck): FieldError[] {
  const s = schema as unknown as Json;
  const target = targetOf(schema);
  if (target) {
    const why = typeof value === 'string' ? check(value, target) : null;
    return why ? [{ field, message: why }] : [];
  }
  const members = (s.anyOf as TSchema[] | undefined) ?? [];
  if (members.length) {
    // the first member that finds something speaks (a nullable field has one string member)
    for (const m of members) {
      const found = targetErrors(field, m, value, check);
      if (found.length) return found;
    }
    return [];
  }
  if (isObject(value) && isObject(s.properties)) {
    const properties = s.properties as Record<string, TSchema>;
    return Object.keys(properties).filter((k) => Object.hasOwn(value, k)).flatMap((k) => targetErrors(`${field}.${k}`, properties[k]!, value[k], check));
  }
  if (Array.isArray(value) && isObject(s.items)) return value.flatMap((v, i) => targetErrors(`${field}[${i}]`, s.items as TSchema, v, check));
  return [];
}
