/**
 * `vigil plan`: what applying a configuration file to an organization would do. The organization's current
 * configuration is read through the public API as its own export (uncapped, in the same shape as the file),
 * so both sides are compared the same way; a row about to change is then read by id for its ETag, which
 * `vigil apply` sends as If-Match.
 *
 * Decisions where the spec is silent:
 * - a block is the row its import id names; without one (or in another organization) the row with the same
 *   natural key, or for a family without one the row whose label is the block's (labels come from a display
 *   name), so applying a file twice creates nothing twice; otherwise it is created. A singleton block is the
 *   organization's setting, whatever its id;
 * - an argument left out of a block is left as it is (the API's own update rule), never reset;
 * - rows of the organization that no block names are kept, and deleted only with --prune (archived and
 *   history rows never are);
 * - a write-only value (`<field>_wo`, a string or `var.<name>` read from VIGIL_VAR_<name>; for a secret that
 *   is an object, such as headers or credentials, an object of those) is sent on create and when no value is
 *   stored; without a state file a stored one cannot be compared, so it is replaced only with
 *   --replace-secrets. `<field>_wo_version` is accepted and not compared. A create whose `<field>_wo` names a
 *   variable that is not set is listed, not made without the secret; an update leaves that secret as it is,
 *   with a warning. An empty object means "none": it is sent only to clear a stored value (--replace-secrets);
 * - what cannot be applied is listed with its reason instead of failing the plan: read-only singletons of
 *   another organization, archived and history rows, rows whose family the plan lacks, creates that need a
 *   secret the file does not give, changes to create-only fields or families without update, and rows that
 *   refer to a skipped row. Fields only a user may change are left out of an update, with a warning.
 */
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { planFields } from '../engine/fields.ts';
import { canonical } from '../engine/operations/project.ts';
import { mapReferences, readConfigFile, readJsonConfig, Reference, referencesIn, type ConfigFile, type FileResource, type SecretSource, type SecretText } from './config-file.ts';
import { secretArgument } from '../engine/config-arguments.ts';
import { resourceType, secretIsObject } from './export.ts';
import { CONFIG_PREFIX, PlanError, refusal, rowPath, type ConfigApi } from './remote.ts';

export interface Change {
  field: string;
  before?: unknown;
  /** the value to send; References stand for rows' ids, SENSITIVE for a write-only value */
  after: unknown;
}

export const SENSITIVE = '(sensitive value)';

export interface PlannedAction {
  action: 'create' | 'update' | 'delete';
  address: string;
  family: FamilyDescriptor;
  /** the row's id (update, delete, create through PUT); absent for singletons and POST creates */
  id?: string;
  etag?: string;
  body?: Row;
  changes: Change[];
  line?: number;
  /** why the service may refuse this create (a prerequisite is skipped); a refusal then skips it */
  mayBeRefused?: string;
}

/** One refusal the service's dry run gave a change of the plan (export/batch.ts): the sentence and its field lines. */
export interface Refusal {
  address: string;
  line?: number;
  action: PlannedAction['action'];
  status: number;
  reason: string;
  details: string[];
}

export interface Skipped {
  address: string;
  reason: string;
  line?: number;
}

export interface Plan {
  organization: { id: string; name: string };
  actions: PlannedAction[];
  skipped: Skipped[];
  unchanged: number;
  /** rows of the organization no block names, kept because --prune was not given */
  kept: string[];
  warnings: string[];
  /** address → id of the rows the file's blocks already are */
  ids: Map<string, string>;
  /** what the service's dry run of the plan refused (export/batch.ts): applying it would change nothing */
  refusals: Refusal[];
}

export interface PlanOptions {
  prune?: boolean;
  replaceSecrets?: boolean;
  env?: Record<string, string | undefined>;
}

/** Families in an order where every family comes after those it refers to or needs (`examples.requires`). */
export function familyOrder(families: readonly FamilyDescriptor[]): FamilyDescriptor[] {
  const known = new Set(families.map((f) => f.name));
  const needs = (d: FamilyDescriptor) =>
    [...Object.values(d.references ?? {}).map((r) => r.family), ...(d.examples.requires ?? [])].filter((n) => n !== d.name && known.has(n));
  const left = [...families].sort((a, b) => (a.name < b.name ? -1 : 1));
  const placed = new Set<string>();
  const order: FamilyDescriptor[] = [];
  while (left.length) {
    const index = Math.max(0, left.findIndex((d) => needs(d).every((n) => placed.has(n))));
    const [next] = left.splice(index, 1);
    placed.add(next!.name);
    order.push(next!);
  }
  return order;
}

export const variableName = (name: string) => `VIGIL_VAR_${name}`;

/** The variables a write-only value names that the environment does not set. */
export function unsetVariables(source: SecretSource, env: Record<string, string | undefined>): string[] {
  const texts = 'entries' in source ? Object.values(source.entries) : [source];
  const unset = texts.flatMap((t) => ('variable' in t && env[variableName(t.variable)] === undefined ? [t.variable] : []));
  return [...new Set(unset)];
}

/** The value to send: a string, or an object of strings; undefined while a variable it names is not set. */
export function secretValue(source: SecretSource, env: Record<string, string | undefined>): string | Record<string, string> | undefined {
  const text = (t: SecretText) => ('literal' in t ? t.literal : env[variableName(t.variable)]);
  if (!('entries' in source)) return text(source);
  if (unsetVariables(source, env).length) return undefined;
  // keys in code-unit order, whatever order the file wrote them in: the same object is always sent the same way
  const keys = Object.keys(source.entries).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, text(source.entries[key]!)!]));
}

/** `var.a is not set (VIGIL_VAR_a), var.b is not set (VIGIL_VAR_b)` */
const unsetText = (names: string[]) => names.map((n) => `var.${n} is not set (${variableName(n)})`).join(', ');

const isEmptyObject = (value: unknown) => value !== null && typeof value === 'object' && Object.keys(value).length === 0;

const presenceFlag = (d: FamilyDescriptor, secret: string) => Object.entries(d.presence ?? {}).find(([, target]) => target === secret)?.[0];

/** A reference as the id it names now, or the Reference itself while its row is still to be created. */
function resolved(value: unknown, ids: Map<string, string>): unknown {
  return mapReferences(value, (r) => ids.get(r.address) ?? r);
}

/** Equal, and not waiting for a row still to be created (a Reference anywhere in it). */
const same = (a: unknown, b: unknown) => referencesIn(a).length === 0 && canonical(a) === canonical(b ?? null);

function referencesOf(resource: FileResource): string[] {
  return referencesIn(resource.args).map((r) => r.address);
}

/**
 * Resources in `ordered`'s order, except that one comes after the blocks of the file it refers to (a reference nested in
 * a value, such as a policy step naming a schedule, is not in the family order): the batch creates what it names first.
 */
function referencedFirst(ordered: FileResource[]): FileResource[] {
  const byAddress = new Map(ordered.map((r) => [r.address, r]));
  const out: FileResource[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (r: FileResource) => {
    if (state.has(r.address)) return;
    state.set(r.address, 'visiting');
    for (const address of referencesOf(r)) {
      const target = byAddress.get(address);
      if (target && target !== r) visit(target);
    }
    state.set(r.address, 'done');
    out.push(r);
  };
  ordered.forEach(visit);
  return out;
}

/**
 * The organization's rows by family, by import id, by natural key and by label, so matching each of 5,000 blocks
 * is a look-up rather than a scan of every row; each list keeps the export's order, and the first row not yet
 * claimed by another block is the match, as a scan in that order would find it.
 */
function currentIndex(current: ConfigFile) {
  const byFamily = new Map<string, FileResource[]>();
  const byId = new Map<string, FileResource>();
  const byKey = new Map<string, FileResource[]>();
  const byLabel = new Map<string, FileResource[]>();
  const push = (map: Map<string, FileResource[]>, key: string, r: FileResource) => (map.get(key) ?? map.set(key, []).get(key)!).push(r);
  const keyOf = (d: FamilyDescriptor, args: Row) => [d.name, ...(d.naturalKey ?? []).map((f) => canonical(args[f] ?? null))].join('\u0000');
  for (const r of current.resources) {
    const d = r.family;
    push(byFamily, d.name, r);
    if (r.importId !== undefined && !byId.has(`${d.name}\u0000${r.importId}`)) byId.set(`${d.name}\u0000${r.importId}`, r);
    if (d.naturalKey?.length) push(byKey, keyOf(d, r.args), r);
    else push(byLabel, `${d.name}\u0000${r.label}`, r);
  }
  const firstFree = (list: FileResource[] | undefined, claimed: Set<string>) => list?.find((r) => !claimed.has(r.address));
  return {
    family: (name: string) => byFamily.get(name) ?? [],
    byId: (d: FamilyDescriptor, id: string) => byId.get(`${d.name}\u0000${id}`),
    /** the first free row with the block's natural key; none when the block does not give every key field as a value */
    byKey(d: FamilyDescriptor, resource: FileResource, claimed: Set<string>) {
      const key = d.naturalKey ?? [];
      if (!key.length || !key.every((f) => f in resource.args && !(resource.args[f] instanceof Reference))) return undefined;
      return firstFree(byKey.get(keyOf(d, resource.args)), claimed);
    },
    byLabel: (d: FamilyDescriptor, label: string, claimed: Set<string>) => firstFree(byLabel.get(`${d.name}\u0000${label}`), claimed),
  };
}

/**
 * The organization's configuration as its export, read as data (format=json: no HCL to parse back); a service from
 * before that format refuses it (422), and its HCL export is read instead.
 */
export async function readCurrent(api: ConfigApi, families: readonly FamilyDescriptor[]): Promise<ConfigFile> {
  const json = await api.call('GET', `${CONFIG_PREFIX}/export?format=json`);
  const answer = json.status === 422 ? await api.call('GET', `${CONFIG_PREFIX}/export?format=hcl`) : json;
  if (answer.status !== 200) {
    const { message, details } = refusal(answer);
    throw new PlanError(`could not read the organization's configuration: ${message}`, details);
  }
  return answer === json ? readJsonConfig(answer.text, families, { lenient: true }) : readConfigFile(answer.text, families, { lenient: true });
}

export async function computePlan(api: ConfigApi, families: readonly FamilyDescriptor[], file: ConfigFile, options: PlanOptions = {}): Promise<Plan> {
  const env = options.env ?? {};
  const current = await readCurrent(api, families);
  const plan: Plan = { organization: current.organization ?? { id: '', name: '' }, actions: [], skipped: [], unchanged: 0, kept: [], warnings: [...file.warnings], ids: new Map(), refusals: [] };
  const currentIds = new Map(current.resources.map((r) => [r.address, r.importId ?? '']));
  const rank = new Map(familyOrder(families).map((d, i) => [d.name, i]));
  const index = currentIndex(current);
  const inactive = new Map(current.markers.filter((m) => m.id !== undefined).map((m) => [`${m.address.split('.')[0]}\u0000${m.id}`, m]));
  const notExported = new Map(current.markers.filter((m) => m.kind === 'not exported').map((m) => [m.address, m.reason]));
  const claimed = new Set<string>();
  const skippedAddresses = new Set<string>();
  const skip = (resource: { address: string; line?: number }, reason: string) => {
    skippedAddresses.add(resource.address);
    plan.skipped.push({ address: resource.address, reason, line: resource.line });
  };

  const ordered = referencedFirst([...file.resources].sort((a, b) => rank.get(a.family.name)! - rank.get(b.family.name)! || a.line - b.line));
  for (const resource of ordered) {
    const d = resource.family;
    const reason = notExported.get(resourceType(d.name));
    if (reason) {
      skip(resource, `not available in this organization: ${reason}`);
      continue;
    }
    const blocked = referencesOf(resource).find((a) => skippedAddresses.has(a));
    if (blocked) {
      skip(resource, `refers to ${blocked}, which is skipped`);
      continue;
    }
    let match: FileResource | undefined;
    if (d.kind === 'singleton') {
      match = index.family(d.name)[0];
      if (!match) {
        skip(resource, `the organization's ${d.name} is not in its export`);
        continue;
      }
      if (planFields(d).writable.length === 0 && resource.importId !== undefined && resource.importId !== plan.organization.id) {
        skip(resource, `every field of ${d.name} is read-only and minted by the service for each organization; it cannot be carried over`);
        continue;
      }
    } else {
      match = resource.importId === undefined ? undefined : index.byId(d, resource.importId);
      const marker = resource.importId === undefined ? undefined : inactive.get(`${resourceType(d.name)}\u0000${resource.importId}`);
      if (!match && marker) {
        skip(resource, `in this organization: ${marker.reason}`);
        continue;
      }
      match ??= index.byKey(d, resource, claimed);
      // a family without a natural key: the row whose own label is this block's (labels come from a display name)
      if (!match && !d.naturalKey?.length) match = index.byLabel(d, resource.label, claimed);
    }
    if (match && claimed.has(match.address)) {
      skip(resource, `its row is already the one of another block (${match.address} in the organization's export)`);
      continue;
    }
    if (match) {
      claimed.add(match.address);
      plan.ids.set(resource.address, match.importId ?? '');
      await planUpdate(api, plan, resource, match, currentIds, options, env, skip);
    } else planCreate(plan, resource, env, skip, skippedAddresses, file);
  }

  const exportedIds = new Set(current.resources.map((r) => `${resourceType(r.family.name)}\u0000${r.importId}`));
  for (const marker of file.markers) {
    if (marker.id === undefined || marker.kind === 'not exported') continue;
    const type = marker.address.split('.')[0]!;
    if (exportedIds.has(`${type}\u0000${marker.id}`) || inactive.has(`${type}\u0000${marker.id}`)) continue;
    skip(marker, `in the exported organization: ${marker.reason}`);
  }

  const leftOver = current.resources.filter((r) => r.family.kind === 'collection' && !claimed.has(r.address));
  leftOver.sort((a, b) => rank.get(b.family.name)! - rank.get(a.family.name)! || (a.address < b.address ? -1 : 1));
  for (const row of leftOver) {
    if (!options.prune) plan.kept.push(row.address);
    else if (!row.family.operations.includes('delete')) plan.warnings.push(`${row.address} is not in the file, but ${row.family.name} rows cannot be deleted; it is kept`);
    else {
      const got = await api.call('GET', rowPath(row.family.name, row.importId));
      if (got.status !== 200) throw new PlanError(`could not read ${row.address} (${row.importId}): ${refusal(got).message}`);
      plan.actions.push({ action: 'delete', address: row.address, family: row.family, id: row.importId, etag: got.etag, changes: [] });
    }
  }
  return plan;
}

type Skip = (resource: { address: string; line?: number }, reason: string) => void;

async function planUpdate(
  api: ConfigApi, plan: Plan, resource: FileResource, match: FileResource, currentIds: Map<string, string>,
  options: PlanOptions, env: Record<string, string | undefined>, skip: Skip,
): Promise<void> {
  const d = resource.family;
  const desired = Object.fromEntries(Object.entries(resource.args).map(([f, v]) => [f, resolved(v, plan.ids)]));
  const before = Object.fromEntries(Object.entries(match.args).map(([f, v]) => [f, mapReferences(v, (r) => currentIds.get(r.address))]));
  const differs = Object.keys(desired).some((f) => !same(desired[f], before[f]));
  if (!differs && Object.keys(resource.secrets).length === 0) {
    plan.unchanged++;
    return;
  }
  const id = d.kind === 'singleton' ? undefined : match.importId;
  const got = await api.call('GET', rowPath(d.name, id));
  if (got.status !== 200) throw new PlanError(`could not read ${resource.address}: ${refusal(got).message}`, refusal(got).details);
  const row = (got.body?.data ?? {}) as Row;
  const body: Row = {};
  const changes: Change[] = [];
  for (const [field, value] of Object.entries(desired)) {
    if (same(value, row[field])) continue;
    body[field] = resource.args[field];
    changes.push({ field, before: row[field], after: resource.args[field] });
  }
  for (const [secret, source] of Object.entries(resource.secrets)) {
    const flag = presenceFlag(d, secret);
    const stored = flag ? row[flag] === true : true;
    if (stored && !options.replaceSecrets) continue;
    const value = secretValue(source, env);
    if (value === undefined) {
      const unset = unsetVariables(source, env);
      plan.warnings.push(`${resource.address}: ${secretArgument(secret)} names ${unset.map((n) => `var.${n}`).join(', ')}, but ${unset.map(variableName).join(', ')} ${unset.length === 1 ? 'is' : 'are'} not set; ${secret} is left as it is`);
      continue;
    }
    // {} stores nothing: sent only to clear a stored value
    if (isEmptyObject(value) && !stored) continue;
    body[secret] = value;
    changes.push({ field: secret, before: stored ? '(set)' : '(not set)', after: isEmptyObject(value) ? '(none)' : SENSITIVE });
  }
  const userOnly = changes.filter((c) => d.userTokenFields?.includes(c.field));
  for (const c of userOnly) {
    delete body[c.field];
    plan.warnings.push(`${resource.address}: ${c.field} can only be changed by a user (a personal access token), not with an organization key; it is left as it is`);
  }
  const effective = changes.filter((c) => !userOnly.includes(c));
  if (effective.length === 0) {
    plan.unchanged++;
    return;
  }
  if (!d.operations.includes('update')) {
    skip(resource, `${d.name} rows have no update, so ${effective.map((c) => c.field).join(', ')} cannot change: delete the row and create it again`);
    return;
  }
  const createOnly = effective.filter((c) => d.createOnly?.includes(c.field)).map((c) => c.field);
  if (createOnly.length) {
    skip(resource, `${createOnly.join(', ')} can only be set when the row is created: delete the row and create it again`);
    return;
  }
  plan.actions.push({ action: 'update', address: resource.address, family: d, id, etag: got.etag, body, changes: effective, line: resource.line });
}

function planCreate(plan: Plan, resource: FileResource, env: Record<string, string | undefined>, skip: Skip, skipped: Set<string>, file: ConfigFile): void {
  const d = resource.family;
  const viaPut = !d.operations.includes('create');
  if (viaPut && !d.id?.upsert) {
    skip(resource, `${d.name} rows cannot be created through the API, and this organization has no row for this block`);
    return;
  }
  if (viaPut && resource.importId === undefined) {
    skip(resource, `needs its import block: a ${d.name} row is created by its id (PUT), which the import id gives`);
    return;
  }
  const body: Row = { ...resource.args };
  const changes: Change[] = Object.entries(resource.args).map(([field, after]) => ({ field, after }));
  const secrets = planFields(d).secrets;
  for (const secret of secrets) {
    const source = resource.secrets[secret];
    const value = source ? secretValue(source, env) : undefined;
    if (value !== undefined) {
      if (isEmptyObject(value)) continue; // {} stores nothing
      body[secret] = value;
      changes.push({ field: secret, after: SENSITIVE });
    } else if (source) {
      const required = d.requiredOnCreate?.includes(secret) ? ', which is required to create it' : `, which ${secretArgument(secret)} gives`;
      skip(resource, `needs a value for ${secret}${required}; ${unsetText(unsetVariables(source, env))}`);
      return;
    } else if (d.requiredOnCreate?.includes(secret)) {
      const form = secretIsObject(d, secret) ? 'an object of strings or var.<name>' : 'a string, or var.<name>';
      skip(resource, `needs a value for ${secret}, which is required to create it; an export never holds it: set ${secretArgument(secret)} (${form} read from VIGIL_VAR_<name>)`);
      return;
    }
  }
  const waiting = (d.examples.requires ?? [])
    .flatMap((family) => file.resources.filter((r) => r.family.name === family && skipped.has(r.address)).map((r) => r.address));
  plan.actions.push({
    action: 'create',
    address: resource.address,
    family: d,
    id: viaPut ? resource.importId : undefined,
    body,
    changes,
    line: resource.line,
    mayBeRefused: waiting.length ? `it needs ${waiting.join(', ')} first, which is skipped` : undefined,
  });
}
