/**
 * What every tool schema goes through before an agent sees it: JSON Schema a strict client accepts. OpenAPI's own
 * formats (`password`, `byte`, `int64`, …) are not JSON Schema formats; a strict validator refuses an unknown format
 * or ignores it, so they are dropped here (a write-only secret says so in its description and `writeOnly`).
 */
type Json = Record<string, unknown>;

/** The formats JSON Schema 2020-12 defines. */
const JSON_SCHEMA_FORMATS = new Set([
  'date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference',
  'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex',
]);

/** keywords whose value maps names to schemas (a property may be named `format` or `default`) */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** keywords that hold values, not schemas: copied as they are */
const VALUES = new Set(['default', 'examples', 'const', 'enum', 'required']);

export function portableSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(portableSchema) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'format' && typeof value === 'string' && !JSON_SCHEMA_FORMATS.has(value)) continue;
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, portableSchema(sub)]));
    } else out[key] = VALUES.has(key) ? value : portableSchema(value);
  }
  return out as T;
}

/**
 * An update's field: the same schema without its `default`. A default belongs to create; on an update it would tell a
 * client (and a typed client generator) to send the value, and sending it would overwrite what is stored.
 */
export function withoutDefault(schema: unknown): Json {
  const { default: _dropped, ...rest } = schema as Json;
  return rest;
}
