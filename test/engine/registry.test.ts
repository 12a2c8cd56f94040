/** Descriptors are checked when the registry loads; the engine stays generic. */
import t from 'tap';
import Type from 'typebox';
import { defineFamily, type FamilyDescriptor } from '../../engine/descriptor.ts';
import { createRegistry, DescriptorError } from '../../engine/registry.ts';
import { families } from '../../resources/index.ts';
import { familyNamesInEngine } from '../../bin/lint-engine.ts';

const base = defineFamily({
  name: 'widgets',
  description: 'a throwaway family',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  fields: { id: Type.String({ readOnly: true }), name: Type.String(), secret: Type.String({ writeOnly: true }) },
  examples: { valid: [{ name: 'a' }], invalid: [], update: { name: 'b' } },
});

t.test('every registered family loads', async (t) => {
  t.doesNotThrow(() => createRegistry(families));
});

t.test('a broken descriptor stops start-up with a sentence naming family and field', async (t) => {
  const broken: [string, Partial<FamilyDescriptor>, RegExp][] = [
    ['read-only and write-only', { fields: { ...base.fields, both: Type.String({ readOnly: true, writeOnly: true }) } }, /widgets: field both is both read-only and write-only/],
    ['natural key missing', { naturalKey: ['nope'] }, /widgets: naturalKey names field nope/],
    ['natural key write-only', { naturalKey: ['secret'] }, /widgets: natural-key field secret is write-only/],
    ['unknown feature', { features: { create: 'teleport' as never } }, /widgets: operation create needs feature teleport/],
    ['unknown role', { roles: { create: 'owner' as never } }, /widgets: operation create names role owner/],
    ['unknown hook', { hooks: { beforeEverything: () => {} } as never }, /widgets: hook beforeEverything is unknown/],
    ['reference to nothing', { references: { name: { family: 'nothing', unknown: 'refuse' } } }, /widgets: field name refers to family nothing/],
    ['writable system field', { fields: { ...base.fields, updated_at: Type.String() } }, /widgets: field updated_at is engine-managed/],
    ['no examples', { examples: { valid: [], invalid: [], update: {} } }, /widgets: it needs at least one valid example/],
    ['singleton with create', { kind: 'singleton', naturalKey: undefined }, /widgets: a singleton offers read and update only, not list/],
    ['presence not read-only', { presence: { name: 'secret' } }, /widgets: presence flag name must be read-only/],
    ['unknown target policy', { fields: { ...base.fields, url: Type.String({ format: 'uri', 'x-target': 'anywhere' }) } }, /widgets: field url: x-target anywhere is not one of outbound, check, link/],
    ['target on a number', { fields: { ...base.fields, port: Type.Integer({ 'x-target': 'check' }) } }, /widgets: field port: x-target is declared on a schema that is not a string/],
    ['a link that is a host', { fields: { ...base.fields, host: Type.String({ 'x-target': 'link' }) } }, /widgets: field host: a link target must be a URL/],
  ];
  for (const [label, change, message] of broken) {
    t.throws(() => createRegistry([{ ...base, ...change } as FamilyDescriptor]), message, label);
    t.throws(() => createRegistry([{ ...base, ...change } as FamilyDescriptor]), DescriptorError, `${label}: a DescriptorError`);
  }
  t.throws(() => createRegistry([base, base]), /registered twice/);
});

t.test('no file under engine/ names a family', async (t) => {
  t.same(familyNamesInEngine(), []);
  t.ok(familyNamesInEngine(new URL('../../resources', import.meta.url).pathname).length > 0, 'the check does find names where they are');
});

t.test('configuration-file arguments: a Terraform meta-argument gets its derived name; a collision is refused at load', async (t) => {
  const withProvider = { ...base, fields: { ...base.fields, provider: Type.String() } } as FamilyDescriptor;
  t.doesNotThrow(() => createRegistry([withProvider]), 'a field named provider alone loads (it is written provider_value)');
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['derived name taken by a field', { provider: Type.String(), provider_value: Type.String() }, /widgets: field provider is written in configuration files as provider_value, which is also a field of its own/],
    ['derived name taken by a read-only field', { count: Type.Integer(), count_value: Type.Integer({ readOnly: true }) }, /widgets: field count is written in configuration files as count_value/],
    ['a secret argument taken by a field', { secret_wo: Type.String() }, /widgets: field secret(_wo)? is written in configuration files as secret_wo|widgets: field secret_wo is written/],
    ['a secret version argument taken by a field', { secret_wo_version: Type.Integer() }, /secret_wo_version/],
  ];
  for (const [label, fields, message] of refused) {
    const d = { ...base, fields: { ...base.fields, ...fields } } as FamilyDescriptor;
    t.throws(() => createRegistry([d]), message, label);
    t.throws(() => createRegistry([d]), DescriptorError, `${label}: a DescriptorError`);
  }
});
