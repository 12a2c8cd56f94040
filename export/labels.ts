/**
 * Stable block labels for exported rows. A label comes from what names a row for people: its natural key,
 * else its id rule, else its first required text field (a display name), else its id; it is turned into an
 * HCL identifier `[a-z_][a-z0-9_]*`, and rows whose labels collide are told apart by suffixes `_2`, `_3`…
 * (see assignLabels for the order). A singleton's label is `this`.
 */
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { isWriteOnly, planFields, unwrapNullable } from '../engine/fields.ts';

export const SINGLETON_LABEL = 'this';
const MAX_LENGTH = 60;

/** Any text as an identifier: accents dropped, lowercase, every other run of characters one `_`. */
export function sanitizeLabel(text: string): string {
  let label = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (label.length > MAX_LENGTH) label = label.slice(0, MAX_LENGTH).replace(/_+$/, '');
  if (label === '') return 'row';
  return /^[0-9]/.test(label) ? `_${label}` : label;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined);

/** The text a row's label is made from. */
export function labelSource(d: FamilyDescriptor, row: Row): string {
  if (d.kind === 'singleton') return SINGLETON_LABEL;
  const parts = (fields: readonly string[]) => fields.map((f) => text(row[f])).filter((v): v is string => v !== undefined);
  if (d.naturalKey?.length) {
    const key = parts(d.naturalKey);
    if (key.length) return key.join('_');
  }
  if (d.id && text(row.id)) return String(row.id);
  const { writable } = planFields(d);
  const candidates = [...(d.requiredOnCreate ?? []), ...writable].filter((f) => !isWriteOnly(d.fields[f]!) && unwrapNullable(d.fields[f]!).inner.type === 'string');
  for (const field of candidates) {
    const value = text(row[field]);
    if (value) return value;
  }
  return `row_${String(row.id).slice(0, 8)}`;
}

/**
 * Labels for rows of one family: each gets its sanitized base; where bases collide, the first row in
 * (`rank`, id) order keeps the base and the others take the first free `_<n>`. The export ranks rows by
 * public position, else by creation time, so a file applied to another organization (which creates rows
 * in the file's order) gives the same rows the same labels there. A suffixed label never takes a label
 * that is some row's own base, nor one in `taken`.
 */
export function assignLabels(rows: readonly { id: string; base: string; rank?: string }[], taken: ReadonlySet<string> = new Set()): Map<string, string> {
  const bases = new Set(rows.map((r) => r.base));
  const used = new Set(taken);
  const labels = new Map<string, string>();
  const key = (r: { id: string; base: string; rank?: string }) => [r.base, r.rank ?? '', r.id];
  const ordered = [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
  for (const row of ordered) {
    let label = row.base;
    if (used.has(label)) {
      let n = 2;
      while (used.has(`${row.base}_${n}`) || bases.has(`${row.base}_${n}`)) n++;
      label = `${row.base}_${n}`;
    }
    used.add(label);
    labels.set(row.id, label);
  }
  return labels;
}
