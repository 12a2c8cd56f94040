/**
 * `vigil plan` reads the organization's current configuration as its export in JSON (GET /export?format=json)
 * instead of parsing its HCL export back: on the plan fixtures (seed.ts: references, singletons, archived and
 * expired rows, `${…}` and `%{…}` in values; every-family.ts: every family) both read the same rows, and the plans
 * made from either are the same, for a no-op, for creates into an empty organization and for updates and a prune.
 */
import t, { type Test } from 'tap';
import { checkedPlan } from '../../export/batch.ts';
import { readConfigFile, readJsonConfig, Reference, type ConfigFile } from '../../export/config-file.ts';
import type { Plan } from '../../export/plan.ts';
import { httpConfigApi, type ConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { seedEveryFamily } from './every-family.ts';
import { seed } from './seed.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const plain = (v: unknown): unknown => (v instanceof Reference ? { ref: v.address } : Array.isArray(v) ? v.map(plain) : v);
/** What a plan uses of a read configuration: rows in order with their arguments, secrets and ids; markers; the organization. */
const readable = (file: ConfigFile) => ({
  organization: file.organization,
  resources: file.resources.map((r) => ({ address: r.address, family: r.family.name, label: r.label, importId: r.importId, args: plain(r.args), secrets: r.secrets })),
  markers: file.markers.map(({ line: _line, ...m }) => m),
  warnings: file.warnings,
});
/** A plan as a person reads it (the family by name, references as addresses). */
const shown = (p: Plan) => ({
  ...p,
  ids: [...p.ids],
  actions: p.actions.map((a) => ({ ...a, family: a.family.name, body: plain(a.body && Object.fromEntries(Object.entries(a.body).map(([k, v]) => [k, plain(v)]))), changes: a.changes.map((c) => ({ ...c, after: plain(c.after) })) })),
});

/** The API as a service from before format=json answers it: 422 naming format, so the plan reads the HCL export. */
const hclOnly = (api: ConfigApi): ConfigApi => ({
  call: (method, path, body, headers) =>
    path.endsWith('/export?format=json')
      ? Promise.resolve({ status: 422, body: { error: 'validation_failed', message: 'format', errors: [{ field: 'format', message: 'must be hcl' }] }, text: '' })
      : api.call(method, path, body, headers),
});

async function samePlans(t: Test, key: Client & { token: string }, text: string, options = {}) {
  const api = httpConfigApi(vigil.url, key.token);
  const fast = await checkedPlan(api, families, readConfigFile(text, families), options);
  const before = await checkedPlan(hclOnly(api), families, readConfigFile(text, families), options);
  t.same(shown(fast), shown(before), 'the same plan as from the HCL export');
  return fast;
}

for (const [name, fill] of [['seed.ts', (key: Client) => seed(vigil, key)], ['every-family.ts', (key: Client) => seedEveryFamily(vigil, key)]] as const) {
  t.test(`${name}: the JSON export reads as the HCL export does, and plans the same`, async (t) => {
    const source = await vigil.organization('business', { compliance: true });
    const key = await source.key();
    await fill(key);
    const hcl = (await key.get(`${CONFIG}/export?format=hcl`)).body as string;
    const json = await key.get(`${CONFIG}/export?format=json`);
    t.equal(json.status, 200);
    const text = typeof json.body === 'string' ? json.body : JSON.stringify(json.body);
    const fromJson = readJsonConfig(text, families, { lenient: true });
    const fromHcl = readConfigFile(hcl, families, { lenient: true });
    t.ok(fromHcl.resources.length > 10, `${fromHcl.resources.length} rows`);
    t.same(readable(fromJson), readable(fromHcl), 'the same rows, in the same order, with the same markers');

    const noop = await samePlans(t, key, hcl);
    t.same(noop.actions, [], 'its own export plans to nothing');
    const empty = await vigil.organization('business', { compliance: true });
    const creates = await samePlans(t, await empty.key(), hcl);
    t.ok(creates.actions.filter((a) => a.action === 'create').length > 10, 'creates (and the singletons as updates)');
    const edited = hcl.replace(/(target_percent\s+=) [0-9.]+/, '$1 97.5');
    const updated = await samePlans(t, key, edited, { prune: true });
    t.ok(updated.actions.some((a) => a.action === 'update'), 'an update');
  });
}

t.test('the JSON export escapes templates and holds no secret', async (t) => {
  const source = await vigil.organization('business', { compliance: true });
  const key = await source.key();
  const seeded = await seed(vigil, key);
  const json = await key.get(`${CONFIG}/export?format=json`);
  t.match(json.headers.get('content-type'), /^application\/json/);
  const text = typeof json.body === 'string' ? json.body : JSON.stringify(json.body);
  for (const secret of seeded.secrets) t.notOk(text.includes(secret), 'no stored secret');
  t.ok(text.includes('$${not_a_var} %%{x}'), 'a literal ${ and %{ are escaped as the JSON syntax requires');
  const document = JSON.parse(text);
  t.match(document['//'][0], /^Vigil configuration of organization /, 'the comments are the "//" lines');
  t.ok(document.import.every((i: { to: string }) => /^vigil_[a-z0-9_]+\.[A-Za-z_][A-Za-z0-9_-]*$/.test(i.to)), 'import blocks name their address');
});
