/**
 * `vigil plan`: an export plans to nothing; rows no block names are kept unless pruned; what cannot be applied is
 * listed; a broken file names its line. Applying: plan-apply.test.ts (two files, each within a busy machine's timeout).
 */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { ConfigFileError, readConfigFile } from '../../export/config-file.ts';
import { families } from '../../resources/index.ts';
import { CONFIG } from '../helpers/harness.ts';
import { vigil, file, run, source, sourceApi, seeded, exported, remote, plan, addresses } from './plan-setup.ts';

t.test('planning an export against its own organization is a no-op', async (t) => {
  const p = await plan(sourceApi, exported);
  t.same(p.actions, [], 'no create, update or delete');
  t.same(p.skipped, [], 'nothing listed as impossible');
  t.same(p.kept, [], 'every row is a block of the file');
  t.ok(p.unchanged >= 20);
  const path = await file('unchanged.hcl', exported);
  const cli = await run(['plan', path, '--key', sourceApi.token]);
  t.equal(cli.code, 0, cli.stderr);
  t.match(cli.stdout, /No changes: the organization matches the file/);
  const reader = await source.key(['api:config_read']);
  t.same((await plan(reader, exported)).actions, [], 'a read-only key may plan');
  const changed = await plan(reader, exported.replace(/(target_percent\s+=) 99\.9/, '$1 99.95'));
  t.equal(changed.actions.length, 1, 'and is shown the change');
  t.same(changed.refusals, [], 'which its key alone does not make a refusal');
  t.match(changed.warnings, [/this key is read-only, so the service could not check the 1 change/]);
});

t.test('rows no block names are kept, and deleted only with --prune', async (t) => {
  const org = await vigil.organization('business', { compliance: true });
  const key = await org.key();
  await applyPlan(remote(key), await plan(key, exported));
  const extra = await key.post(`${CONFIG}/deploy_policies`, { service: 'extra' });
  const doomed = await key.post(`${CONFIG}/status_page_components`, { display_name: 'Extra' });
  await key.del(`${CONFIG}/status_page_components/${doomed.body.data.id}`);
  const kept = await plan(key, exported);
  t.same(kept.kept, ['vigil_deploy_policies.extra'], 'listed, not deleted; an archived row is not listed');
  t.same(kept.actions.filter((a) => !a.mayBeRefused), []);
  const pruned = await plan(key, exported, { prune: true });
  t.same(addresses(pruned, 'delete'), ['vigil_deploy_policies.extra']);
  const result = await applyPlan(remote(key), pruned);
  t.ok(result.done.includes('deleted vigil_deploy_policies.extra'));
  t.equal((await key.get(`${CONFIG}/deploy_policies/${extra.body.data.id}`)).status, 404);
});

t.test('what cannot be applied is listed with its reason', async (t) => {
  const changed = exported
    .replace(/(pattern\s+=) "flappy-check"\n(\s+reason\s+=) null/, '$1 "flappy-check"\n$2 "noisy"')
    .replace(/(restrict_domain_signups\s+=) false/, '$1 true');
  const p = await plan(sourceApi, changed);
  t.same(p.actions, []);
  t.match(p.skipped, [{ address: 'vigil_alert_mutes.flappy_check', reason: /alert_mutes rows have no update, so reason cannot change/ }]);
  t.match(p.warnings, [/restrict_domain_signups can only be changed by a user/]);
  const other = await (await vigil.organization('business')).key();
  const lacking = await plan(other, exported);
  t.match(lacking.skipped.find((s) => s.address.startsWith('vigil_compliance_periods.')), { reason: /not available in this organization: Compliance is not included/ });
  t.ok(seeded.ids.legacy);
});

const BROKEN: [string, string, number, RegExp][] = [
  ['an unterminated string', 'resource "vigil_slis" "a" {\n  name = "x\n}\n', 2, /string is not closed/],
  ['an unclosed block', 'resource "vigil_slis" "a" {\n  name = "x"\n\nresource "vigil_slis" "b" {\n}\n', 1, /the "\{" opened here is never closed/],
  ['a stray brace', 'resource "vigil_slis" "a" {\n  name = "x"\n}\n}\n', 4, /unexpected "}"/],
  ['a broken value', 'resource "vigil_slis" "a" {\n  name = "x"\n  service = 1 +\n  indicator = "latency"\n}\n', 3, /value of "service"/],
  ['an argument set twice', 'resource "vigil_slis" "a" {\n  name = "x"\n  service = "s"\n  name = "y"\n}\n', 4, /"name" is set twice \(first on line 2\)/],
  ['a read-only argument', 'resource "vigil_slis" "a" {\n  name = "x"\n  updated_at = "2026-01-01T00:00:00Z"\n}\n', 3, /"updated_at" is read-only/],
  ['a secret written as its field', 'resource "vigil_ai_providers" "a" {\n  name = "x"\n  api_key = "sk"\n}\n', 3, /write-only: set it with api_key_wo/],
  ['a Terraform meta-argument as an argument', 'resource "vigil_ai_providers" "a" {\n  name = "x"\n  provider = "vendor_a"\n}\n', 3, /"provider" is reserved by Terraform: write it as provider_value/],
  ['a reference to a missing block', 'resource "vigil_slos" "a" {\n  name = "x"\n  sli_id = vigil_slis.nope.id\n}\n', 1, /refers to vigil_slis\.nope, which has no resource block/],
  ['a reference of the wrong family', 'resource "vigil_slos" "a" {\n  name = "x"\n  sli_id = vigil_slos.a.id\n}\n', 3, /must refer to a vigil_slis block/],
  ['an unknown Vigil type', '\nresource "vigil_gadgets" "a" {\n}\n', 2, /vigil_gadgets is not a Vigil family/],
  ['a block declared twice', 'resource "vigil_slis" "a" {}\nresource "vigil_slis" "a" {}\n', 2, /declared more than once/],
  ['an import of nothing', 'import {\n  to = vigil_slis.a\n  id = "x"\n}\n', 1, /has no resource block/],
];

t.test('a broken file names the line', async (t) => {
  for (const [name, text, line, message] of BROKEN) {
    try {
      readConfigFile(text, families);
      t.fail(`${name}: read without error`);
    } catch (error) {
      t.ok(error instanceof ConfigFileError, name);
      t.equal((error as ConfigFileError).line, line, `${name}: line ${line}`);
      t.match((error as Error).message, message, name);
    }
  }
  const path = await file('broken.hcl', exported.replace('name                 = "checkout availability"', 'name = "checkout availability'));
  const brokenLine = exported.split('\n').findIndex((l) => l.includes('"checkout availability"')) + 1;
  const column = 'name = "checkout availability'.indexOf('"') + 1 + exported.split('\n')[brokenLine - 1]!.indexOf('name');
  const cli = await run(['plan', path, '--key', sourceApi.token]);
  t.equal(cli.code, 1);
  t.equal(cli.stderr, `${path}:${brokenLine}:${column}: this string is not closed on its line (a quoted string cannot span lines)\n`, 'line and column');
  t.equal(cli.stdout, '');
});
