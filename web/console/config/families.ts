/**
 * What the configuration pages read off a descriptor: the fields a form edits, the columns a list shows, what the
 * signed-in person may do. Families are reached through the registry the services hold, never by name.
 */
import { DEFAULT_ROLES, type FamilyDescriptor, type OperationName, type Row } from '../../../engine/descriptor.ts';
import type { Caller } from '../../../engine/auth/caller.ts';
import { ApiError } from '../../../engine/errors.ts';
import { isReadOnly, isWriteOnly } from '../../../engine/fields.ts';
import { FEATURES, hasFeature, roleAtLeast, type Feature } from '../../../engine/plans.ts';
import type { Services } from '../../../engine/services.ts';

export function familyOf(services: Services, name: string | undefined): FamilyDescriptor {
  const d = name ? services.registry.get(name) : undefined;
  if (!d) throw new ApiError('not_found', 'There is no configuration by that name; /config lists them.');
  return d;
}

/** The plan feature an operation needs (none: every plan). */
export const featureFor = (d: FamilyDescriptor, op: OperationName): Feature | undefined => d.features?.[op];

export const featureLabel = (feature: Feature) => FEATURES[feature].label;

/** Whether the person may run the operation: it exists, the plan has it, the role allows it. The server checks again. */
export function may(caller: Caller, d: FamilyDescriptor, op: OperationName): boolean {
  if (!d.operations.includes(op)) return false;
  const feature = featureFor(d, op);
  if (feature && !hasFeature(caller.organization.plan, caller.organization.features, feature)) return false;
  return roleAtLeast(caller.role, d.roles?.[op] ?? DEFAULT_ROLES[op]);
}

/** Fields a write may send: not read-only; on edit not create-only (those are shown, locked). */
export function editable(d: FamilyDescriptor, edit: boolean): string[] {
  return Object.keys(d.fields).filter((f) => !isReadOnly(d.fields[f]!) && !(edit && d.createOnly?.includes(f)));
}

/** Fields shown beside a form, not in it: read-only ones (secrets' presence flags included), create-only ones on edit. */
export function locked(d: FamilyDescriptor, edit: boolean): string[] {
  return Object.keys(d.fields).filter((f) => isReadOnly(d.fields[f]!) || (edit && d.createOnly?.includes(f)));
}

/** Whether each secret is stored, from the row's presence flags (`api_key_set`). */
export function storedSecrets(d: FamilyDescriptor, row: Row | undefined): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [flag, secret] of Object.entries(d.presence ?? {})) if (isWriteOnly(d.fields[secret]!)) out[secret] = row?.[flag] === true;
  return out;
}

const scalar = (d: FamilyDescriptor, f: string) => {
  const s = d.fields[f] as unknown as { type?: string; anyOf?: { type?: string }[]; writeOnly?: boolean };
  if (s.writeOnly) return false;
  const types = s.anyOf ? s.anyOf.map((m) => m.type) : [s.type];
  return types.every((t) => t === 'string' || t === 'number' || t === 'integer' || t === 'boolean' || t === 'null' || t === undefined) && !s.anyOf?.some((m) => m.type === 'object');
};

/** A list's columns: the natural key first (or the first text field), then a few scalar fields. */
export function columns(d: FamilyDescriptor): string[] {
  const key = d.naturalKey?.length ? [...d.naturalKey] : Object.keys(d.fields).filter((f) => f !== 'id' && scalar(d, f)).slice(0, 1);
  const rest = Object.keys(d.fields).filter((f) => !key.includes(f) && f !== 'id' && f !== 'created_at' && f !== 'updated_at' && scalar(d, f));
  return [...key, ...rest.slice(0, 4)];
}

/** A row's name in links, titles and pickers: its natural key's values, else its `name`, else its list's first column (a text), else its id. */
export function rowName(d: FamilyDescriptor, row: Row): string {
  if (d.naturalKey?.length) return d.naturalKey.map((f) => String(row[f] ?? '')).join(' / ');
  if (typeof row.name === 'string' && row.name) return row.name;
  const first = row[columns(d)[0] ?? 'id'];
  return typeof first === 'string' && first ? first : String(row.id);
}

export const rowPath = (d: FamilyDescriptor, id: unknown) => `/config/${encodeURIComponent(d.name)}/${encodeURIComponent(String(id))}`;

/** The rows a reference field may name, as a picker offers them: the row's id and its name. */
export type Choices = Record<string, { value: string; label: string }[]>;

/**
 * For each reference field of the family (the descriptor's `references`), the rows of the family it names that the
 * person may read, by name: a picker instead of a free-text id. A family the plan or role does not let them list
 * gives no picker (the field stays a text input, and the operation judges what is typed).
 */
export async function referenceChoices(services: Services, caller: Caller, d: FamilyDescriptor, list: (target: FamilyDescriptor) => Promise<Row[]>): Promise<Choices> {
  const out: Choices = {};
  for (const [field, ref] of Object.entries(d.references ?? {})) {
    const target = services.registry.get(ref.family);
    if (!target || !may(caller, target, 'list')) continue;
    out[field] = (await list(target)).map((row) => ({ value: String(row.id), label: rowName(target, row) }));
  }
  return out;
}
