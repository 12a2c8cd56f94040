/** Schema pieces the domains' agent tools describe their answers with (TypeBox, so JSON Schema). */
import Type, { type TSchema } from 'typebox';

/** one of these strings */
export const literals = <T extends string>(values: readonly T[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });
/**
 * An answer member that is null while there is nothing to say (not posted yet, no reason given). Not `nullable`
 * (engine/descriptor.ts): that one is an input field a client may set to null to clear it.
 */
export const orNull = (t: TSchema, description?: string) => Type.Union([t, Type.Null()], description === undefined ? {} : { description });
/** an ISO-8601 time, or null */
export const time = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
/** the `limit` of a list tool: 1–200, 50 unless given */
export const LIST_LIMIT = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'at most this many (default 50)' }));
