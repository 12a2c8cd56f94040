/** `vigil plan` / `vigil apply`: an export plans to nothing, applies to an empty organization, and stops on a concurrent change. */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { ConfigFileError, readConfigFile, Reference, type ConfigFile } from '../../export/config-file.ts';
import { computePlan, type Plan } from '../../export/plan.ts';
import { httpConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { runCli, scratchFiles } from '../helpers/cli.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { seed } from './seed.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const file = await scratchFiles('vigil-plan-');
const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { VIGIL_URL: vigil.url, ...env });
const EXPORT = `${CONFIG}/export?format=hcl`;

const source = await vigil.organization('business', { compliance: true });
const sourceApi = await source.key();
const seeded = await seed(vigil, sourceApi);
const exported = (await sourceApi.get(EXPORT)).body as string;

const remote = (key: Client & { token: string }) => httpConfigApi(vigil.url, key.token);
const plan = (key: Client & { token: string }, file: ConfigFile | string, options = {}) =>
  computePlan(remote(key), families, typeof file === 'string' ? readConfigFile(file, families) : file, options);
const addresses = (p: Plan, action?: string) => p.actions.filter((a) => !action || a.action === action).map((a) => a.address);


/** Each block's arguments, references as addresses: what must match between two organizations. */
function blocks(text: string): Map<string, unknown> {
  const read = readConfigFile(text, families);
  const plain = (v: unknown): unknown => (v instanceof Reference ? v.address : Array.isArray(v) ? v.map(plain) : v);
  return new Map(read.resources.map((r) => [r.address, Object.fromEntries(Object.entries(r.args).map(([k, v]) => [k, plain(v)]))]));
}

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
});

t.test('applying the export to an empty organization reproduces it, secrets aside', async (t) => {
  const target = await vigil.organization('business', { compliance: true });
  const key = await target.key();
  const path = await file('export.hcl', exported);
  const planned = await run(['plan', path, '--key', key.token]);
  t.equal(planned.code, 0, planned.stderr);
  t.match(planned.stdout, /\+ create vigil_slos\.checkout_99_9/);
  t.match(planned.stdout, /sli_id = vigil_slis\.checkout_availability\.id/, 'a reference to a row still to be created is shown by address');
  t.match(planned.stdout, /! vigil_ticket_integrations\.issue_tracker .*needs a value for api_token/);
  t.match(planned.stdout, /! vigil_status_page_components\.legacy .*archived/);
  t.match(planned.stdout, /! vigil_alert_mutes\.disk_space .*history/);
  t.match(planned.stdout, /! vigil_cloud_external_id\.this .*minted by the service for each organization/);

  const applied = await run(['apply', path], { VIGIL_API_KEY: key.token });
  t.equal(applied.code, 0, applied.stderr);
  t.match(applied.stdout, /created vigil_slos\.checkout_99_9/);
  t.match(applied.stdout, /! vigil_ticket_import_rules\.issue_tracker .*refused because it needs vigil_ticket_integrations\.issue_tracker first/);
  t.match(applied.stdout, /Apply complete/);

  const before = blocks(exported);
  const after = blocks((await key.get(EXPORT)).body);
  const notCarried = ['vigil_ticket_integrations.issue_tracker', 'vigil_ticket_import_rules.issue_tracker'];
  for (const [address, args] of before) {
    if (notCarried.includes(address)) t.notOk(after.has(address), `${address} needs a secret and is not carried over`);
    else t.same(after.get(address), args, `${address} is reproduced`);
  }
  t.equal(after.size, before.size - notCarried.length, 'and nothing else is created');
  const components = (await key.get(`${CONFIG}/status_page_components`)).body.data.map((c: { display_name: string }) => c.display_name);
  const original = (await sourceApi.get(`${CONFIG}/status_page_components`)).body.data.map((c: { display_name: string }) => c.display_name);
  t.same(components, original, 'in the same public order');
  t.equal((await key.get(`${CONFIG}/ai_providers`)).body.data.find((p: { name: string }) => p.name === 'primary').api_key_set, false, 'no secret is carried');

  const again = await plan(key, exported);
  t.same(again.actions.filter((a) => !a.mayBeRefused), [], 'planning again changes nothing (but the create that waits for a secret)');
  t.same(addresses(again), ['vigil_ticket_import_rules.issue_tracker']);
});

t.test('a write-only value given as var.<name> is sent, and what needs it follows', async (t) => {
  const key = await (await vigil.organization('business', { compliance: true })).key();
  const text = exported.replace(/# api_token_wo = <sensitive>.*/, 'api_token_wo = var.tracker_token');
  const missing = await plan(key, text);
  t.match(missing.skipped.find((s) => s.address === 'vigil_ticket_integrations.issue_tracker')?.reason, /var\.tracker_token is not set \(VIGIL_VAR_tracker_token\)/);
  const token = 'tok-from-env-0001';
  const p = await plan(key, text, { env: { VIGIL_VAR_tracker_token: token } });
  const create = p.actions.find((a) => a.address === 'vigil_ticket_integrations.issue_tracker')!;
  t.same(create.changes.find((c) => c.field === 'api_token'), { field: 'api_token', after: '(sensitive value)' }, 'the plan never shows the value');
  const path = await file('with-token.hcl', text);
  const cli = await run(['--json', 'plan', path, '--key', key.token], { VIGIL_VAR_tracker_token: token });
  t.equal(cli.code, 0, cli.stderr);
  t.notOk(cli.stdout.includes(token), 'the printed plan never holds the value');
  const printed = JSON.parse(cli.stdout).plan.actions.find((a: { address: string }) => a.address === 'vigil_ticket_integrations.issue_tracker');
  t.same(printed.changes.find((c: { field: string }) => c.field === 'api_token'), { field: 'api_token', after: '(sensitive value)' });
  const result = await applyPlan(remote(key), p);
  t.notOk(result.stopped);
  t.same(result.skipped, []);
  t.equal((await key.get(`${CONFIG}/ticket_integrations/issue_tracker`)).body.data.api_token_set, true);
  t.equal((await key.get(`${CONFIG}/ticket_import_rules/issue_tracker`)).status, 200, 'the import rule that needs the credentials is created');
  const again = await plan(key, text, { env: { VIGIL_VAR_tracker_token: token } });
  t.same(again.actions, [], 'a stored secret is not sent again');
  const replaced = await plan(key, text, { env: { VIGIL_VAR_tracker_token: token }, replaceSecrets: true });
  t.same(addresses(replaced), ['vigil_ticket_integrations.issue_tracker'], 'unless --replace-secrets');
});

t.test('a concurrent change stops apply with a clear message; nothing after it is applied', async (t) => {
  const org = await vigil.organization('business', { compliance: true });
  const key = await org.key();
  await applyPlan(remote(key), await plan(key, exported));
  const changed = exported
    .replace(/(error_budget_threshold\s+=) 25\.5/, '$1 30')
    .replace(/(target_percent\s+=) 99\.9/, '$1 99.95')
    .replace(/(alert_storm_threshold\s+=) 5/, '$1 6');
  const p = await plan(key, changed);
  t.same(addresses(p), ['vigil_deploy_policies.billing_worker', 'vigil_organization_settings.this', 'vigil_slos.checkout_99_9', 'vigil_ticket_import_rules.issue_tracker']);
  t.same(p.actions[2]!.changes, [{ field: 'target_percent', before: 99.9, after: 99.95 }]);
  const slos = (await key.get(`${CONFIG}/slos`)).body.data;
  const slo = slos.find((s: { name: string }) => s.name === 'checkout 99.9');
  t.equal((await key.put(`${CONFIG}/organization_settings`, { timezone: 'Asia/Tokyo' })).status, 200, 'someone changes a row the plan will update');
  const result = await applyPlan(remote(key), p);
  t.same(result.done, ['updated vigil_deploy_policies.billing_worker']);
  t.equal(result.stopped?.address, 'vigil_organization_settings.this');
  t.match(result.stopped?.message, /vigil_organization_settings\.this changed since the plan was made, so it was not updated \(412 precondition_failed\)\. 1 change was applied before it; nothing after it was\. Run `vigil plan` again/);
  t.equal((await key.get(`${CONFIG}/organization_settings`)).body.data.timezone, 'Asia/Tokyo', 'the other change stands');
  t.equal((await key.get(`${CONFIG}/slos/${slo.id}`)).body.data.target_percent, 99.9, 'the change after it was not applied');

  const path = await file('changed.hcl', changed);
  await key.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 5 });
  const cli = await run(['apply', path, '--key', key.token]);
  t.equal(cli.code, 0, cli.stderr);
  t.equal((await key.get(`${CONFIG}/slos/${slo.id}`)).body.data.target_percent, 99.95, 'planning again and applying goes through');
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
  const cli = await run(['plan', path, '--key', sourceApi.token]);
  t.equal(cli.code, 1);
  t.equal(cli.stderr, `${path}:${brokenLine}: this string is not closed on its line (a quoted string cannot span lines)\n`);
  t.equal(cli.stdout, '');
});
