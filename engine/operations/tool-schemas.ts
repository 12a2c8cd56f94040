/** Schema pieces the domains' agent tools describe their answers with (TypeBox, so JSON Schema). */
import Type, { type TSchema } from 'typebox';
import type { FamilyDescriptor } from '../descriptor.ts';
import { isWriteOnly } from '../fields.ts';

/** one of these strings */
export const literals = <T extends string>(values: readonly T[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });
/**
 * An answer member that is null while there is nothing to say (not posted yet, no reason given). Not `nullable`
 * (engine/descriptor.ts): that one is an input field a client may set to null to clear it.
 */
export const orNull = (t: TSchema, description?: string) => Type.Union([t, Type.Null()], description === undefined ? {} : { description });
/** an ISO-8601 time, or null */
export const time = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/**
 * Any JSON value, spelled as typed branches: an empty schema (`{}`, `Type.Unknown()`) constrains nothing, and strict
 * tool-schema checkers (the MCP Inspector's `--strict`) flag it as unportable. An array must name its items
 * (Spectral's array-items), so arrays are described two levels deep; an object inside takes anything.
 */
const scalarOrObject = () => [Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Object({}, { additionalProperties: true })];
export const JSON_VALUE = (description?: string) =>
  Type.Union(
    [...scalarOrObject(), Type.Array(Type.Union([...scalarOrObject(), Type.Array(Type.Union(scalarOrObject()))]))],
    description === undefined ? {} : { description },
  );

/** The organization every configuration answer names. */
export const ORGANIZATION = Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String() }, { additionalProperties: false });

/** A family's row as every answer shows it: its readable fields (write-only secrets never leave; `<name>_set` says they are set). */
export function readableRow(d: FamilyDescriptor): TSchema {
  return Type.Object(Object.fromEntries(Object.entries(d.fields).filter(([, s]) => !isWriteOnly(s))), { additionalProperties: false });
}
