/**
 * `vigil org update --flag <name>=<value>`: the value read by the flag's type (engine/admin/organization-flags.ts),
 * so `automatic_runbook_approved=true` sends the boolean and `signing_enabled_sources=a,b` the list. `null` removes a
 * flag; a JSON value (`["a"]`) is read as JSON. What does not fit the type, and an unknown name, is sent as written:
 * the service refuses it with a 422 naming the flag, which the CLI prints.
 */
import { InvalidArgumentError } from 'commander';
import { ORGANIZATION_FLAGS, isOrganizationFlag } from '../../engine/admin/organization-flags.ts';

type Schema = { type?: string; const?: unknown; anyOf?: Schema[] };

/** The JSON types a flag's schema accepts (`boolean` for `true` alone too). */
function kinds(schema: Schema): Set<string> {
  if (schema.anyOf) return new Set(schema.anyOf.flatMap((s) => [...kinds(s)]));
  if (typeof schema.const === 'boolean') return new Set(['boolean']);
  return new Set(schema.type ? [schema.type === 'integer' ? 'number' : schema.type] : []);
}

export function flagValue(name: string, raw: string): unknown {
  const text = raw.trim();
  if (text === 'null') return null;
  if (/^[[{"]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return raw;
    }
  }
  if (!isOrganizationFlag(name)) return raw;
  const accepts = kinds(ORGANIZATION_FLAGS[name] as Schema);
  if (accepts.has('boolean') && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (accepts.has('number') && text !== '' && Number.isFinite(Number(text))) return Number(text);
  if (accepts.has('array')) return text === '' ? [] : text.split(',').map((s) => s.trim()).filter(Boolean);
  return raw;
}

/** Commander's parser of a repeated `--flag <name>=<value>`. */
export function parseFlag(value: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('write it as <name>=<value>.');
  const name = value.slice(0, at);
  return { ...previous, [name]: flagValue(name, value.slice(at + 1)) };
}
