/**
 * The organization flags an operator may set (`PATCH /organizations/{id}` `flags`, `vigil org update --flag`), each
 * with its TypeBox type: a flag switches security checks on, so a misspelt name or a value of the wrong type (the
 * string "True", a source name where a list is meant) must be refused, never stored and read as "off". `null`
 * removes a flag. The webhook sources a list may name are the deployment's (`ServiceConfig.webhookSources`).
 */
import Type, { type Static, type TSchema } from 'typebox';
import type { FieldError } from '../errors.ts';
import { checkValue, isPlainObject } from '../validation.ts';

/** A list of webhook sources (segments), or `true` for every source the flag can cover. */
const SOURCES = Type.Union([Type.Literal(true), Type.Array(Type.String({ minLength: 1 }), { maxItems: 64 })]);

export const ORGANIZATION_FLAGS = {
  /** signing secrets allowed, and SNS signatures checked, for these sources (the spec's "contacting support") */
  signing_enabled_sources: SOURCES,
  /** the organization runs an approved automatic runbook: its sources must be signed even without a saved secret */
  automatic_runbook_approved: Type.Boolean(),
} satisfies Record<string, TSchema>;

export type OrganizationFlag = keyof typeof ORGANIZATION_FLAGS;
export type OrganizationFlags = { [K in OrganizationFlag]?: Static<(typeof ORGANIZATION_FLAGS)[K]> };

/** The flags whose lists name webhook sources. */
const SOURCE_LISTS: ReadonlySet<string> = new Set<OrganizationFlag>(['signing_enabled_sources']);

export const isOrganizationFlag = (name: string): name is OrganizationFlag => Object.hasOwn(ORGANIZATION_FLAGS, name);

/**
 * The stored flags after applying `patch` to `current` (null removes one), or the field errors: an unknown name, a
 * value of the wrong type, a source the deployment does not serve. Errors name the flag, never the value sent.
 */
export function mergeFlags(current: Record<string, unknown>, patch: unknown, sources: readonly string[]): { flags: Record<string, unknown>; errors: FieldError[] } {
  if (!isPlainObject(patch)) return { flags: current, errors: [{ field: 'flags', message: `must be an object of flag: value (${Object.keys(ORGANIZATION_FLAGS).join(', ')})` }] };
  const flags = { ...current };
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(patch)) {
    const field = `flags.${name}`;
    if (!isOrganizationFlag(name)) {
      errors.push({ field, message: `is not an organization flag (${Object.keys(ORGANIZATION_FLAGS).join(', ')})` });
      continue;
    }
    if (value === null) {
      delete flags[name];
      continue;
    }
    const problems = checkValue(field, ORGANIZATION_FLAGS[name], value);
    if (problems.length) {
      errors.push(...problems);
      continue;
    }
    if (SOURCE_LISTS.has(name) && Array.isArray(value)) {
      value.forEach((source, i) => {
        if (!sources.includes(source as string)) errors.push({ field: `${field}[${i}]`, message: `is not a webhook source (${sources.join(', ')})` });
      });
    }
    flags[name] = value;
  }
  return { flags, errors };
}
