/** GET /export?format=hcl through HTTP: the file parses, matches the API, names every row, holds no secret, and is stable. */
import t from 'tap';
import Type from 'typebox';
import { defineFamily, type FamilyDescriptor } from '../../engine/descriptor.ts';
import { familyArguments } from '../../engine/config-arguments.ts';
import { planFields } from '../../engine/fields.ts';
import { parseHcl, traversalOf } from '../../export/hcl-reader.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { seed } from './seed.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const EXPORT = `${CONFIG}/export?format=hcl`;
const org = await vigil.organization('business', { compliance: true });
const api = await org.key();
const seeded = await seed(vigil, api, { dangling: true });
const first = await api.get(EXPORT);
const text = first.body as string;

type Blocks = Record<string, Record<string, Record<string, unknown>[]>>;
const parsed = parseHcl(text) as { resource: Blocks; import: { to: string; id: string }[] };
const imports = new Map(parsed.import.map((i) => [traversalOf(i.to)!, i.id]));
const family = (type: string) => families.find((f) => `vigil_${f.name}` === type)!;

t.test('the export answers text/plain and parses with hcl2-parser', async (t) => {
  t.equal(first.status, 200);
  t.match(first.headers.get('content-type'), /^text\/plain; charset=utf-8/);
  t.ok(parsed.resource, 'it holds resource blocks');
  t.ok(Object.keys(parsed.resource).length >= 12, 'of most families');
});

t.test('two exports of an unchanged organization are byte-identical', async (t) => {
  const again = await api.get(EXPORT);
  t.equal(again.body, text);
  t.equal((await api.get(`${CONFIG}/export`)).body, text, 'format defaults to hcl');
});

t.test('every row has one import block; every import names a resource block', async (t) => {
  for (const [type, labelled] of Object.entries(parsed.resource)) {
    for (const label of Object.keys(labelled)) t.ok(imports.has(`${type}.${label}`), `${type}.${label} has an import block`);
  }
  for (const address of imports.keys()) {
    const [type, label] = address.split('.');
    t.ok(parsed.resource[type!]?.[label!], `import ${address} names a block`);
  }
  t.equal(imports.size, parsed.import.length, 'one import block per row');
  for (const d of families.filter((f) => f.kind === 'collection')) {
    const listed = await api.get(`${CONFIG}/${d.name}?include_archived=true`);
    for (const row of listed.body.data) {
      const named = [...imports.values()].includes(row.id) || text.includes(`id=${JSON.stringify(row.id)}`);
      t.ok(named, `${d.name} ${row.id} is in the export (as a block, or as an archived or history comment)`);
    }
  }
  t.equal(imports.get('vigil_organization_settings.this'), org.id, 'a singleton\'s import id is the organization id');
});

t.test('every argument equals what the API answers; read-only fields are left out', async (t) => {
  for (const [type, labelled] of Object.entries(parsed.resource)) {
    const d = family(type);
    const { writable, secrets } = planFields(d);
    for (const [label, [block]] of Object.entries(labelled)) {
      const id = imports.get(`${type}.${label}`)!;
      const answer = await api.get(d.kind === 'singleton' ? `${CONFIG}/${d.name}` : `${CONFIG}/${d.name}/${encodeURIComponent(id)}`);
      t.equal(answer.status, 200);
      const row = answer.body.data;
      const fieldOf = new Map(familyArguments(d).map((a) => [a.argument, a.field]));
      t.same(Object.keys(block!).map((a) => fieldOf.get(a)).sort(), writable.filter((f) => !secrets.includes(f)).sort(), `${type}.${label}: exactly the settable arguments`);
      for (const [argument, value] of Object.entries(block!)) {
        const field = fieldOf.get(argument)!;
        const ref = d.references?.[field];
        const asId = (v: unknown) => {
          const traversal = traversalOf(v);
          if (!traversal) return v;
          t.match(traversal, new RegExp(`^vigil_${ref!.family}\\.[a-z_][a-z0-9_]*\\.id$`), `${type}.${label}.${field} refers to a ${ref!.family} block`);
          return imports.get(traversal.replace(/\.id$/, ''));
        };
        const actual = ref ? (Array.isArray(value) ? value.map(asId) : asId(value)) : value;
        t.same(actual, row[field], `${type}.${label}.${field}`);
      }
    }
  }
});

t.test('references are HCL references; an id whose row is gone stays literal with a comment', async (t) => {
  t.match(text, /sli_id\s+= vigil_slis\.checkout_availability\.id/);
  t.match(text, /slo_ids\s+= \[vigil_slos\.checkout_99_9\.id, vigil_slos\.checkout_p99\.id\]/);
  t.match(text, new RegExp(`"${seeded.ids.doomed}",\\s+# no vigil_slos block in this export has this id`));
});

t.test('labels come from natural keys, id rules and display names, deduplicated in public order', async (t) => {
  t.ok(parsed.resource.vigil_slos!.checkout_99_9, 'natural key');
  t.ok(parsed.resource.vigil_service_bindings!.checkout_prod && parsed.resource.vigil_service_bindings!.checkout, 'id rule');
  t.ok(parsed.resource.vigil_ticket_import_rules!.code_host, 'id rule of one field');
  const components = Object.keys(parsed.resource.vigil_status_page_components!).sort();
  t.same(components, ['api', 'checkout', 'checkout_2', 'orphan'], 'display names, the second "Checkout" suffixed');
  const ids = ['checkout', 'checkout_2'].map((l) => imports.get(`vigil_status_page_components.${l}`)!);
  const positions = await Promise.all(ids.map(async (id) => (await api.get(`${CONFIG}/status_page_components/${id}`)).body.data.position));
  t.ok(positions[0] < positions[1], 'the one first in public order keeps the plain label');
  t.ok(parsed.resource.vigil_ai_settings!.this, 'singletons are "this"');
});

t.test('no secret value anywhere; a stored secret is a comment naming its write-only argument', async (t) => {
  for (const secret of seeded.secrets) t.notOk(text.includes(secret), 'a secret value never appears');
  t.notMatch(text, /digest:|\bv1\.[\w-]{10,}\./, 'nor a digest or a sealed value');
  t.match(text, '# api_key_wo = <sensitive>  (api_key is set; manage it with api_key_wo and api_key_wo_version)');
  t.match(text, '# api_token_wo = <sensitive>  (api_token is set; manage it with api_token_wo and api_token_wo_version)');
  const fallback = text.slice(text.indexOf('resource "vigil_ai_providers" "fallback"'), text.indexOf('resource "vigil_ai_providers" "primary"'));
  t.notMatch(fallback, /api_key_wo/, 'a provider without a key has no such comment');
});

t.test('archived and expired rows are written commented out, under a marker', async (t) => {
  t.match(text, new RegExp(`^# \\(archived\\) vigil_status_page_components\\.legacy id="${seeded.ids.legacy}": archived at `, 'm'));
  t.match(text, /^# resource "vigil_status_page_components" "legacy" \{$/m);
  t.match(text, new RegExp(`^# \\(history\\) vigil_alert_mutes\\.disk_space id="${seeded.ids.expired}": kept as history`, 'm'));
  t.notOk(parsed.resource.vigil_alert_mutes!.disk_space, 'the parser does not see them');
  t.ok(parsed.resource.vigil_alert_mutes!.flappy_check, 'the mute in force is a block');
  t.match(text, /resource "vigil_cloud_external_id" "this" \{\n  # Every field of cloud_external_id is read-only/, 'a read-only singleton is an empty block with its import');
});

t.test('positioned rows follow their public order; families follow their names', async (t) => {
  const order = [...text.matchAll(/^resource "vigil_status_page_components" "([a-z0-9_]+)"/gm)].map((m) => m[1]);
  const byId = new Map([...imports].map(([address, id]) => [id, address.split('.')[1]]));
  const listed = (await api.get(`${CONFIG}/status_page_components`)).body.data as { id: string }[];
  t.same(order, listed.map((c) => byId.get(c.id)), 'the order of the public list');
  const types = [...new Set([...text.matchAll(/^resource "([a-z_]+)"/gm)].map((m) => m[1]))];
  t.same(types, [...types].sort());
});

t.test('format=xml is refused naming format; an api:config_read key may export', async (t) => {
  const refused = await api.get(`${CONFIG}/export?format=xml`);
  t.equal(refused.status, 422);
  t.same(refused.body.errors, [{ field: 'format', message: 'must be one of: hcl, json' }]);
  const reader = await org.key(['api:config_read']);
  const read = await reader.get(EXPORT);
  t.equal(read.status, 200);
  t.equal(read.body, text, 'the same file');
  t.equal((await reader.post(`${CONFIG}/export`, {})).status, 405, 'only GET');
});

t.test('a family the plan lacks is left out and named at the top', async (t) => {
  const lacking = await vigil.organization('business', { status_page: false });
  const key = await lacking.key();
  const sli = await key.post(`${CONFIG}/slis`, { name: 'a', service: 's', indicator: 'availability' });
  t.equal(sli.status, 201);
  const out = (await key.get(EXPORT)).body as string;
  t.match(out, /^# \(not exported\) vigil_status_page_components: The status page is not included in the business plan\.$/m);
  t.match(out, /^# \(not exported\) vigil_compliance_periods: /m);
  t.notMatch(out, /resource "vigil_status_page_components"/);
  t.match(out, /resource "vigil_slis" "a"/);
  const lines = out.split('\n');
  t.ok(lines.findIndex((l) => l.startsWith('# (not exported)')) < lines.findIndex((l) => l.startsWith('resource')), 'at the top of the file');
});

t.test('a throwaway family appears in the export with no other change', async (t) => {
  const widget: FamilyDescriptor = defineFamily({
    name: 'widgets',
    description: 'A throwaway family that only this test registers.',
    kind: 'collection',
    operations: ['list', 'read', 'create', 'update', 'delete'],
    naturalKey: ['name'],
    requiredOnCreate: ['name'],
    fields: {
      id: Type.String({ readOnly: true }),
      name: Type.String({ minLength: 1, maxLength: 100 }),
      size: Type.Integer({ minimum: 0, default: 1 }),
      tags: Type.Array(Type.String(), { default: [] }),
      secret: Type.String({ minLength: 1, writeOnly: true }),
      secret_set: Type.Boolean({ readOnly: true }),
      updated_at: Type.String({ format: 'date-time', readOnly: true }),
    },
    presence: { secret_set: 'secret' },
    examples: { valid: [{ name: 'w' }], invalid: [], update: { size: 2 } },
  });
  const other = await startVigil({ extraFamilies: [widget] });
  t.teardown(() => other.close());
  const key = await (await other.organization()).key();
  const made = await key.post(`${CONFIG}/widgets`, { name: 'Big One!', size: 7, tags: ['a b'], secret: 'widget-SECRET-value' });
  t.equal(made.status, 201);
  const out = (await key.get(EXPORT)).body as string;
  t.match(out, `resource "vigil_widgets" "big_one" {\n  name = "Big One!"\n  size = 7\n  tags = ["a b"]\n  # secret_wo = <sensitive>  (secret is set; manage it with secret_wo and secret_wo_version)\n}`);
  t.match(out, `import {\n  id = "${made.body.data.id}"\n  to = vigil_widgets.big_one\n}`);
  t.notOk(out.includes('widget-SECRET-value'));
});

export type { Client };

t.test('no argument of any block is a Terraform meta-argument or reserved name; such a field is written under its derived name', async (t) => {
  const { TERRAFORM_RESERVED } = await import('../../engine/config-arguments.ts');
  for (const [type, labelled] of Object.entries(parsed.resource)) {
    for (const [label, bodies] of Object.entries(labelled)) {
      const reserved = Object.keys(bodies[0] ?? {}).filter((a) => TERRAFORM_RESERVED.includes(a));
      t.same(reserved, [], `${type}.${label} holds no reserved argument`);
    }
  }
  t.equal(parsed.resource.vigil_ai_providers!.primary![0]!.provider_value, 'vendor_a', 'ai_providers.provider is written provider_value');
});
