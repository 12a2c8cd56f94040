/**
 * `vigil apply`: an export applies to an empty organization, write-only values come from variables, and a concurrent
 * change stops it. Planning: plan.test.ts.
 */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { CONFIG } from '../helpers/harness.ts';
import { vigil, file, run, EXPORT, sourceApi, exported, remote, plan, addresses, blocks } from './plan-setup.ts';

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
  t.same(addresses(again), [], 'planning again changes nothing');
  t.match(again.skipped.find((s) => s.address === 'vigil_ticket_import_rules.issue_tracker'), { reason: /^refused because it needs vigil_ticket_integrations\.issue_tracker first/ }, 'the create that waits for a secret is listed: the dry run refused it');
  t.same(again.refusals, []);
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

t.test('a concurrent change stops apply on its If-Match; nothing at all is applied', async (t) => {
  const org = await vigil.organization('business', { compliance: true });
  const key = await org.key();
  await applyPlan(remote(key), await plan(key, exported));
  const changed = exported
    .replace(/(error_budget_threshold\s+=) 25\.5/, '$1 30')
    .replace(/(target_percent\s+=) 99\.9/, '$1 99.95')
    .replace(/(alert_storm_threshold\s+=) 5/, '$1 6');
  const p = await plan(key, changed);
  t.same(addresses(p), ['vigil_deploy_policies.billing_worker', 'vigil_organization_settings.this', 'vigil_slos.checkout_99_9']);
  t.same(p.actions[2]!.changes, [{ field: 'target_percent', before: 99.9, after: 99.95 }]);
  const slos = (await key.get(`${CONFIG}/slos`)).body.data;
  const slo = slos.find((s: { name: string }) => s.name === 'checkout 99.9');
  const policies = async () => (await key.get(`${CONFIG}/deploy_policies`)).body.data;
  const policiesBefore = await policies();
  t.equal((await key.put(`${CONFIG}/organization_settings`, { timezone: 'Asia/Tokyo' })).status, 200, 'someone changes a row the plan will update');
  const auditBefore = (await key.get(`${CONFIG}/audit_log`)).body.data;
  const result = await applyPlan(remote(key), p);
  t.same(result.done, [], 'nothing is reported done');
  t.equal(result.stopped?.address, 'vigil_organization_settings.this');
  t.match(result.stopped?.message, /the service refused 1 of 3 changes, so nothing was applied \(the apply is one transaction\)\. vigil_organization_settings\.this changed since the plan was made \(412 precondition_failed\): run `vigil plan` again/);
  t.equal((await key.get(`${CONFIG}/organization_settings`)).body.data.timezone, 'Asia/Tokyo', 'the other change stands');
  t.same(await policies(), policiesBefore, 'the change before it was rolled back');
  t.equal((await key.get(`${CONFIG}/slos/${slo.id}`)).body.data.target_percent, 99.9, 'the change after it was not applied');
  t.same((await key.get(`${CONFIG}/audit_log`)).body.data, auditBefore, 'and nothing was audited');

  const path = await file('changed.hcl', changed);
  await key.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 5 });
  const cli = await run(['apply', path, '--key', key.token]);
  t.equal(cli.code, 0, cli.stderr);
  t.equal((await key.get(`${CONFIG}/slos/${slo.id}`)).body.data.target_percent, 99.95, 'planning again and applying goes through');
});

t.test('the plan predicts the apply: the service\'s dry run lists the chat secret and a deployment-wide taken slug as refusals', async (t) => {
  const holder = await (await vigil.organization('business', { compliance: true })).key();
  t.equal((await holder.put(`${CONFIG}/status_page_settings`, { slug: 'taken-by-another' })).status, 200);
  const org = await vigil.organization('business', { compliance: true });
  const key = await org.key();
  const text = [
    'resource "vigil_slis" "fine" {\n  name      = "fine"\n  service   = "checkout"\n  indicator = "availability"\n}\n',
    'resource "vigil_chat" "this" {\n  workspace_id = "T0001"\n}\n',
    'resource "vigil_status_page_settings" "this" {\n  slug = "taken-by-another"\n}\n',
  ].join('\n');
  const auditBefore = (await key.get(`${CONFIG}/audit_log`)).body.data;
  const p = await plan(key, text);
  t.same(p.refusals.map((r) => r.address).sort(), ['vigil_chat.this', 'vigil_status_page_settings.this']);
  t.match(p.refusals.find((r) => r.address === 'vigil_chat.this')!.details, [/^bot_token: is required while workspace_id is set/]);
  t.match(p.refusals.find((r) => r.address === 'vigil_status_page_settings.this')!.details, [/^slug: .*taken/]);

  const path = await file('refused.hcl', text);
  const planned = await run(['plan', path, '--key', key.token]);
  t.equal(planned.code, 1, 'a plan the service would refuse fails');
  t.match(planned.stdout, /x update vigil_chat\.this .*\n\s+bot_token: is required while workspace_id is set/);
  t.match(planned.stdout, /x update vigil_status_page_settings\.this/);
  const applied = await run(['apply', path, '--key', key.token]);
  t.equal(applied.code, 1);
  t.match(applied.stderr, /would refuse 2 changes of this plan \(listed above\), so nothing was applied/);
  t.equal((await key.get(`${CONFIG}/slis`)).body.data.length, 0, 'not even the change that was fine');
  t.same((await key.get(`${CONFIG}/audit_log`)).body.data, auditBefore, 'and the dry runs audited nothing');
});
