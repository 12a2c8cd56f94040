/**
 * `export_configuration` (GET /api/v1/config/export?format=hcl): the organization's whole configuration as one
 * HCL file, derived from the registry — there is no per-family export code. Rows are read through the
 * engine's read path and leave it only through `project`, so a secret can never reach the file.
 *
 * What the file holds, and the decisions taken where the spec is silent:
 * - every family the caller may list (collections) or read (singletons), sorted by name; a family whose
 *   plan feature or role the caller lacks is named in a `(not exported)` comment at the top instead;
 * - per row a `resource "vigil_<family>" "<label>"` block with every settable argument (writable fields, a
 *   field Terraform reserves under its derived name, engine/config-arguments.ts;
 *   read-only ones are left out, write-only ones appear only as a comment naming `<field>_wo`), and an
 *   `import { to, id }` block. A singleton's label is `this` and its import id the organization id (the id
 *   the engine stores it under), so an export names the organization it came from;
 * - a field the descriptor declares a reference is written as `vigil_<family>.<label>.id` (lists of them for
 *   arrays); an id whose row is not in the export stays a literal, with a comment saying so;
 * - rows that can never be created or changed again are written commented out, under a marker line that
 *   `vigil plan` reads: archived rows (descriptor `archive`) and history rows (a conditional natural key,
 *   `naturalKeyWhile`, that no longer holds — an expired mute);
 * - collections are ordered by label, positioned families by their public position (so applying the file
 *   to an empty organization creates them in the same order). No timestamp is written: two exports of an
 *   unchanged organization are byte-identical.
 */
import Type from 'typebox';
import type { Caller } from '../engine/auth/caller.ts';
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { fieldArgument, secretArgument, secretVersionArgument } from '../engine/config-arguments.ts';
import { MASK } from '../engine/credential-url.ts';
import { ApiError } from '../engine/errors.ts';
import { planFields, unwrapNullable } from '../engine/fields.ts';
import { authorize } from '../engine/operations/authorize.ts';
import { readStore } from '../engine/operations/context.ts';
import type { DomainOperation, Services } from '../engine/services.ts';
import { project } from '../engine/operations/project.ts';
import { loadRow } from '../engine/operations/read.ts';
import { Commented, Expression, writeHcl, type HclEntry, type HclValue } from './hcl-writer.ts';
import { writeJsonConfig } from './json-config.ts';
import { assignLabels, labelSource, sanitizeLabel } from './labels.ts';
import { familyMarker, organizationLine, rowMarker } from './markers.ts';

export const resourceType = (family: string) => `vigil_${family}`;

/**
 * Whether a write-only field holds an object (outbound_configs.headers, connectors.credentials, …) rather than
 * a string: its `<field>_wo` is then written `{ key = "…" or var.<name>, … }`.
 */
export function secretIsObject(d: FamilyDescriptor, field: string): boolean {
  const schema = d.fields[field];
  if (!schema) return false;
  const { inner } = unwrapNullable(schema);
  const members = inner.anyOf as Record<string, unknown>[] | undefined;
  return inner.type === 'object' || (Array.isArray(members) && members.length > 0 && members.every((m) => m.type === 'object'));
}

type State = 'active' | 'archived' | 'history';

interface ExportedRow {
  id: string;
  view: Row;
  state: State;
  reason?: string;
  label: string;
}

interface ExportedFamily {
  d: FamilyDescriptor;
  rows: ExportedRow[];
}

/** Refusals that mean "this caller may not see this family": the family is left out, and the file says why. */
const LEFT_OUT = new Set(['plan_required', 'forbidden', 'read_only_key', 'method_not_allowed']);

function stateOf(d: FamilyDescriptor, stored: Row, now: Date): { state: State; reason?: string } {
  const archivedAt = d.archive ? stored[d.archive.field] : null;
  if (archivedAt !== null && archivedAt !== undefined) {
    const at = archivedAt instanceof Date ? archivedAt.toISOString() : String(archivedAt);
    return { state: 'archived', reason: `archived at ${at}; archived rows cannot be created or changed again.` };
  }
  if (d.naturalKeyWhile && !d.naturalKeyWhile.holds(stored, now)) {
    return {
      state: 'history',
      reason: `kept as history: its natural key (${(d.naturalKey ?? []).join(', ')}) holds only ${d.naturalKeyWhile.description}, and no longer does; it cannot be created again.`,
    };
  }
  return { state: 'active' };
}

/**
 * Which of two rows with the same label keeps it: the one first in public order, else the one first in the order the
 * family lists rows by, else the older one. The listed order comes before age because an apply creates a file's rows
 * together, often at one instant: age alone would leave the labels there to the ids.
 */
function rankOf(d: FamilyDescriptor, row: Row): string {
  if (d.positioned) return String(row[d.positioned.field] ?? 0).padStart(12, '0');
  const listed = (d.order ?? []).map(({ field }) => {
    const value = row[field];
    return typeof value === 'number' ? String(value).padStart(12, '0') : value instanceof Date ? value.toISOString() : String(value ?? '');
  });
  const created = row.created_at;
  return [...listed, created instanceof Date ? created.toISOString() : String(created ?? '')].join('\u0001');
}

async function loadFamily(services: Services, caller: Caller, d: FamilyDescriptor, now: Date): Promise<ExportedFamily> {
  const store = readStore(services);
  const stored = d.kind === 'singleton' ? [(await loadRow(services, caller, d, store, undefined))!] : await store.list(d, caller.organization.id);
  // an export never holds a credential URL whole, whoever asks (issue 35)
  const base = { now, config: services.config, maskCredentials: true };
  const rows = stored.map((row) => {
    const view = project(d, row, base);
    return { id: String(row.id), view, ...stateOf(d, row, now), base: sanitizeLabel(labelSource(d, { ...view, id: row.id })), rank: rankOf(d, row) };
  });
  const active = assignLabels(rows.filter((r) => r.state === 'active'));
  const inactive = assignLabels(rows.filter((r) => r.state !== 'active'), new Set(active.values()));
  return { d, rows: rows.map(({ base: _base, rank: _rank, ...r }) => ({ ...r, label: active.get(r.id) ?? inactive.get(r.id)! })) };
}

/** `vigil_<family>.<label>.id` for a row in the export, or the literal id with a comment. */
function reference(addresses: Map<string, Map<string, string>>, family: string, id: unknown): HclValue {
  if (typeof id !== 'string') return id as HclValue;
  const label = addresses.get(family)?.get(id);
  if (label) return new Expression(`${resourceType(family)}.${label}.id`);
  return new Commented(id, `no ${resourceType(family)} block in this export has this id`);
}

/** `value` with the ids at `path` inside it (lists walked through) written as references to their rows' blocks. */
function nestedReference(addresses: Map<string, Map<string, string>>, family: string, path: readonly string[], value: HclValue): HclValue {
  if (Array.isArray(value)) return value.map((v) => nestedReference(addresses, family, path, v));
  if (!path.length) return reference(addresses, family, value);
  if (value === null || typeof value !== 'object' || value instanceof Expression || value instanceof Commented || !(path[0]! in value)) return value;
  const map = value as Record<string, HclValue>;
  return { ...map, [path[0]!]: nestedReference(addresses, family, path.slice(1), map[path[0]!]!) };
}

function resourceBlock(d: FamilyDescriptor, row: ExportedRow, addresses: Map<string, Map<string, string>>) {
  const { writable, secrets } = planFields(d);
  const attributes: Record<string, HclValue> = {};
  const comments: string[] = [];
  for (const field of writable) {
    if (secrets.includes(field)) continue;
    const value = row.view[field] ?? null;
    // a URL that carries a credential is masked in the view: left out, as a secret is, so an apply never writes the mask
    if (JSON.stringify(value).includes(MASK)) {
      comments.push(`${fieldArgument(field)} carries a credential and is not exported; it is kept as it is stored`);
      continue;
    }
    const ref = d.references?.[field];
    const argument = fieldArgument(field);
    if (ref) attributes[argument] = Array.isArray(value) ? value.map((id) => reference(addresses, ref.family, id)) : reference(addresses, ref.family, value);
    else attributes[argument] = (d.nestedReferences ?? []).filter((n) => n.path[0] === field).reduce((v, n) => nestedReference(addresses, n.family, n.path.slice(1), v), value as HclValue);
  }
  for (const secret of secrets) {
    const flag = Object.entries(d.presence ?? {}).find(([, target]) => target === secret)?.[0];
    if (flag && row.view[flag] !== true) continue;
    const state = flag ? `${secret} is set` : `${secret} is write-only`;
    const hint = secretIsObject(d, secret) ? '{ … } <sensitive>' : '<sensitive>';
    comments.push(`${secretArgument(secret)} = ${hint}  (${state}; manage it with ${secretArgument(secret)} and ${secretVersionArgument(secret)})`);
  }
  if (writable.length === 0) comments.push(`Every field of ${d.name} is read-only: this block sets nothing and is here for its import block.`);
  return { type: 'resource', labels: [resourceType(d.name), row.label], attributes, comments };
}

function entriesOf(family: ExportedFamily, addresses: Map<string, Map<string, string>>): HclEntry[] {
  const { d } = family;
  const positioned = d.positioned?.field;
  const entries: HclEntry[] = [];
  for (const row of family.rows) {
    const address = `${resourceType(d.name)}.${row.label}`;
    const block = resourceBlock(d, row, addresses);
    if (row.state !== 'active') {
      entries.push({ sortKey: `${d.name}\u0000~${row.label}`, comments: [rowMarker(row.state, address, row.id, row.reason!)], block, commentedOut: true });
      continue;
    }
    const rank = positioned ? String(row.view[positioned] ?? 0).padStart(12, '0') : row.label;
    entries.push({ sortKey: `${d.name}\u0000${rank}\u0000${row.label}\u00000`, block });
    entries.push({ sortKey: `${d.name}\u0000${rank}\u0000${row.label}\u00001`, block: { type: 'import', attributes: { to: new Expression(address), id: row.id } } });
  }
  return entries;
}

/** The export's header comment lines and its entries, whichever syntax writes them. */
async function exportEntries(services: Services, caller: Caller, format: ExportFormat): Promise<{ header: string[]; entries: HclEntry[] }> {
  const now = services.clock.now();
  const header = [
    organizationLine(caller.organization.id, caller.organization.name),
    `Written by GET /api/v1/config/export?format=${format}; \`vigil plan <file>\` and \`vigil apply <file>\` read it back.`,
    'Read-only fields are left out; a stored secret appears only as a comment naming the write-only argument that sets it.',
  ];
  const families: ExportedFamily[] = [];
  for (const d of [...services.registry.families].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    try {
      authorize(caller, d, d.kind === 'singleton' ? 'read' : 'list');
    } catch (error) {
      if (!(error instanceof ApiError) || !LEFT_OUT.has(error.code)) throw error;
      header.push(familyMarker(resourceType(d.name), error.message));
      continue;
    }
    families.push(await loadFamily(services, caller, d, now));
  }
  const addresses = new Map(families.map((f) => [f.d.name, new Map(f.rows.filter((r) => r.state === 'active').map((r) => [r.id, r.label]))]));
  return { header, entries: families.flatMap((f) => entriesOf(f, addresses)) };
}

export type ExportFormat = 'hcl' | 'json';

export async function exportHcl(services: Services, caller: Caller): Promise<string> {
  const { header, entries } = await exportEntries(services, caller, 'hcl');
  return writeHcl(header, entries);
}

/** The same export in Terraform's JSON configuration syntax (export/json-config.ts). */
export async function exportJson(services: Services, caller: Caller): Promise<string> {
  const { header, entries } = await exportEntries(services, caller, 'json');
  return writeJsonConfig(header, entries);
}

export const exportOperation: DomainOperation = {
  name: 'export_configuration',
  description:
    'The organization\'s whole configuration as one HCL file: a `resource "vigil_<family>" "<label>"` block with every settable argument ' +
    'and an `import { to, id }` block for every row; references to other rows as HCL references; a stored secret only as a comment naming ' +
    'the write-only argument (`<field>_wo`) that would set it; archived and expired rows commented out, since they cannot be created again; ' +
    'families the plan or role does not include are named in a comment. Two exports of an unchanged organization are identical. ' +
    'A singleton\'s import id is the organization id. `vigil plan` / `vigil apply` read the file back. ' +
    '`format=json` gives the same blocks in Terraform\'s JSON configuration syntax (`"${…}"` references, the comments as the top-level `"//"` lines).',
  input: Type.Object(
    {
      format: Type.Optional(
        Type.Union([Type.Literal('hcl'), Type.Literal('json')], { default: 'hcl', description: 'the file format: HCL, or the same blocks in Terraform\'s JSON configuration syntax' }),
      ),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'export' },
  answer: { contentType: 'text/plain; charset=utf-8' },
  async run(services, caller, input) {
    if (input.format === 'json') return { text: await exportJson(services, caller), contentType: 'application/json; charset=utf-8' };
    return { text: await exportHcl(services, caller), contentType: 'text/plain; charset=utf-8' };
  },
};
