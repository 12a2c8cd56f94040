/**
 * The registry of families. Every descriptor is checked when it loads; a broken one stops start-up with a
 * sentence naming the family and the field.
 */
import { argumentMistake } from './config-arguments.ts';
import { OPERATIONS, type FamilyDescriptor } from './descriptor.ts';
import { isReadOnly, isWriteOnly, planFields, SYSTEM_FIELDS, withColumnBounds } from './fields.ts';
import { SHARED_TABLES } from './persistence/entities.ts';
import { isFeature, isRole } from './plans.ts';
import { subschemas, targetMistake } from './targets.ts';

const HOOKS = ['prepare', 'validate', 'validateDelete', 'afterCommit'];

export class DescriptorError extends Error {
  override name = 'DescriptorError';
}

export interface Registry {
  readonly families: readonly FamilyDescriptor[];
  /** a family by a name that came from data (an audit entry, a URL): absent when not served */
  get(name: string): FamilyDescriptor | undefined;
  /**
   * The served form of a family the code imports. Its module declared it (`Module.families`), so a registry without
   * it stopped the start (engine/module.ts); reaching here without it is a missing declaration, and says so.
   */
  family(descriptor: Pick<FamilyDescriptor, 'name'>): FamilyDescriptor;
}

/** Families are served with their integer fields bounded by their columns (engine/fields.ts), on every surface. */
export function createRegistry(declared: readonly FamilyDescriptor[]): Registry {
  const families = declared.map(withColumnBounds);
  const byName = new Map<string, FamilyDescriptor>();
  for (const family of families) {
    if (byName.has(family.name)) throw new DescriptorError(`Family ${family.name} is registered twice.`);
    byName.set(family.name, family);
  }
  for (const family of families) checkDescriptor(family, byName);
  const family = ({ name }: Pick<FamilyDescriptor, 'name'>) => {
    const found = byName.get(name);
    if (!found) throw new Error(`The family ${name} is not served: the module reading it must name it in its families, so that its absence stops the start.`);
    return found;
  };
  return { families, get: (name) => byName.get(name), family };
}

function checkDescriptor(d: FamilyDescriptor, all: Map<string, FamilyDescriptor>): void {
  const fail = (what: string): never => {
    throw new DescriptorError(`Family ${d.name}: ${what}`);
  };
  const field = (name: string, role: string) => {
    if (!(name in d.fields)) fail(`${role} names field ${name}, which is not among its fields.`);
    return d.fields[name]!;
  };
  if (!/^[a-z][a-z0-9_]*$/.test(d.name)) fail('its name must be lowercase letters, digits and underscores.');
  if (!d.description) fail('it needs a description.');
  for (const [name, schema] of Object.entries(d.fields)) {
    if (isReadOnly(schema) && isWriteOnly(schema)) fail(`field ${name} is both read-only and write-only.`);
    if ((SYSTEM_FIELDS as readonly string[]).includes(name) && !isReadOnly(schema)) fail(`field ${name} is engine-managed and must be read-only.`);
    for (const sub of subschemas(schema)) {
      const mistake = targetMistake(sub);
      if (mistake) fail(`field ${name}: ${mistake}.`);
    }
  }
  for (const op of d.operations) if (!OPERATIONS.includes(op)) fail(`operation ${op} is unknown.`);
  if (d.kind === 'singleton') {
    for (const op of d.operations) if (op !== 'read' && op !== 'update') fail(`a singleton offers read and update only, not ${op}.`);
    if (d.naturalKey || d.id || d.archive || d.positioned) fail('a singleton has no natural key, id rule, archive or order.');
  }
  for (const name of d.naturalKey ?? []) if (isWriteOnly(field(name, 'naturalKey'))) fail(`natural-key field ${name} is write-only.`);
  for (const name of d.requiredOnCreate ?? []) if (isReadOnly(field(name, 'requiredOnCreate'))) fail(`required field ${name} is read-only.`);
  for (const name of d.createOnly ?? []) if (isReadOnly(field(name, 'createOnly'))) fail(`create-only field ${name} is read-only.`);
  for (const name of d.userTokenFields ?? []) field(name, 'userTokenFields');
  if (d.table) {
    const shared = SHARED_TABLES[d.table];
    if (!shared) fail(`table ${d.table} is not one the engine shares (${Object.keys(SHARED_TABLES).join(', ')}).`);
    const columns = Object.keys(shared!.meta.properties);
    for (const name of planFields(d).stored) if (!columns.includes(name)) fail(`field ${name} has no column in the shared table ${d.table}.`);
  }
  for (const name of d.uniqueAcrossOrganizations ?? []) if (isWriteOnly(field(name, 'uniqueAcrossOrganizations'))) fail(`deployment-unique field ${name} is write-only.`);
  for (const name of d.id?.from ?? []) field(name, 'id');
  for (const [flag, target] of Object.entries(d.presence ?? {})) {
    if (!isReadOnly(field(flag, 'presence'))) fail(`presence flag ${flag} must be read-only.`);
    field(target, `presence flag ${flag}`);
  }
  for (const name of Object.keys(d.computed ?? {})) if (!isReadOnly(field(name, 'computed'))) fail(`computed field ${name} must be read-only.`);
  for (const name of Object.keys(d.fallbacks ?? {})) field(name, 'fallbacks');
  for (const name of Object.keys(d.generated ?? {})) field(name, 'generated');
  for (const spec of [d.archive, d.positioned]) {
    if (spec && !isReadOnly(field(spec.field, 'archive/positioned'))) fail(`field ${spec.field} is engine-managed and must be read-only.`);
  }
  for (const o of d.order ?? []) field(o.field, 'order');
  for (const [name, ref] of Object.entries(d.references ?? {})) {
    field(name, 'references');
    const target = all.get(ref.family);
    if (!target) fail(`field ${name} refers to family ${ref.family}, which is not registered.`);
    else if (target.kind !== 'collection') fail(`field ${name} refers to ${ref.family}, which has no row ids.`);
  }
  for (const nested of d.nestedReferences ?? []) {
    field(nested.path[0] ?? '', 'nestedReferences');
    const target = all.get(nested.family);
    if (!target || target.kind !== 'collection') fail(`nested reference ${nested.path.join('.')} refers to ${nested.family}, which is not a registered collection.`);
  }
  for (const [op, feature] of Object.entries(d.features ?? {})) {
    if (!isFeature(feature)) fail(`operation ${op} needs feature ${String(feature)}, which is not in the plan table.`);
  }
  for (const [op, role] of Object.entries(d.roles ?? {})) if (!isRole(role)) fail(`operation ${op} names role ${String(role)}, which does not exist.`);
  for (const hook of Object.keys(d.hooks ?? {})) if (!HOOKS.includes(hook)) fail(`hook ${hook} is unknown (known: ${HOOKS.join(', ')}).`);
  for (const [name, action] of Object.entries(d.actions ?? {})) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) fail(`action ${name} must be a snake_case name.`);
    if (!isRole(action.role)) fail(`action ${name} names an unknown role.`);
    if (action.feature && !isFeature(action.feature)) fail(`action ${name} needs an unknown feature.`);
    if (action.transports && (action.transports.length === 0 || action.transports.some((t) => t !== 'rest' && t !== 'mcp'))) fail(`action ${name} must name rest and/or mcp as its transports.`);
  }
  const argument = argumentMistake(d);
  if (argument) fail(argument);
  for (const rule of d.rules ?? []) for (const name of rule.fields) field(name, `rule "${rule.description}"`);
  if (d.operations.includes('create') && d.examples.valid.length === 0) fail('it needs at least one valid example body for the conformance suite.');
  if (d.operations.includes('update') && !d.examples.update) fail('it needs an example update body for the conformance suite.');
}
