/** Small row helpers shared by the write operations: ids, secrets, positions. */
import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { validationFailed, type FieldError } from '../errors.ts';
import { planFields } from '../fields.ts';
import type { FamilyStore } from '../persistence/store.ts';
import { checkValue } from '../validation.ts';
import { canonical } from './project.ts';
import type { Services } from '../services.ts';

/** The id of a row: a uuid, or its `id.from` fields joined by `/` (empty trailing parts left out). */
export function composeId(d: FamilyDescriptor, row: Row): string {
  if (!d.id) return randomUUID();
  const parts = d.id.from.map((f) => String(row[f] ?? ''));
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.join('/');
}

/** The field values an id stands for (the last field takes the rest), checked against their schemas. */
export function fieldsFromId(d: FamilyDescriptor, id: string): Row {
  const from = d.id?.from ?? [];
  const parts = id.split('/');
  const values: Row = {};
  const errors: FieldError[] = [];
  from.forEach((field, i) => {
    values[field] = i === from.length - 1 ? parts.slice(i).join('/') : (parts[i] ?? '');
    errors.push(...checkValue(field, d.fields[field]!, values[field]).map((e) => ({ field: 'id', message: `${field} part ${e.message}` })));
  });
  if (errors.length) throw validationFailed(errors);
  return values;
}

/**
 * Seals the secrets the input sent, as `prepare` left them (it may normalize `{}` to null); secrets that
 * were not sent keep what is stored.
 */
export function sealSecrets(services: Services, d: FamilyDescriptor, row: Row, input: Row): Row {
  const next = { ...row };
  for (const name of planFields(d).secrets) {
    if (!(name in input)) continue;
    const value = row[name];
    // a secret may be a map (header values) as well as a string: it is sealed as JSON text
    if (typeof value === 'string') next[name] = services.secrets.seal(value);
    else if (value !== undefined && value !== null) next[name] = services.secrets.seal(canonical(value)); // key order never counts as a change
    else next[name] = null;
  }
  return next;
}

export const MOVE_INPUT = Type.Union([Type.Literal('up'), Type.Literal('down')], {
  description: 'shifts the row one place in the public order; at the top or bottom it moves nothing',
  writeOnly: true,
});

export async function nextPosition(store: FamilyStore, d: FamilyDescriptor, organizationId: string): Promise<number> {
  return store.nextPosition(d, organizationId, d.positioned!.field);
}

/** Swaps the row with its neighbour among unarchived rows; false when it is already at that end. */
export async function applyMove(store: FamilyStore, d: FamilyDescriptor, row: Row, direction: 'up' | 'down', now: Date): Promise<boolean> {
  const field = d.positioned!.field;
  const where = d.archive ? { [d.archive.field]: null } : {};
  const ordered = await store.list(d, String(row.organization_id), { where, orderBy: { [field]: 'asc' } });
  const index = ordered.findIndex((r) => r.id === row.id);
  const neighbour = ordered[direction === 'up' ? index - 1 : index + 1];
  if (index < 0 || !neighbour) return false;
  await store.update(d, neighbour, { [field]: row[field] }, now);
  row[field] = neighbour[field];
  return true;
}

/** The values of the changed fields only: what an update writes. */
export function changedValues(row: Row, changes: Record<string, unknown>): Row {
  return Object.fromEntries(Object.keys(changes).map((field) => [field, row[field]]));
}
