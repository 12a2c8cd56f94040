/** `vigil plan` / `vigil apply`: write-only values that are objects (headers, credentials) given as `<field>_wo = { … }`. */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { ConfigFileError, readConfigFile } from '../../export/config-file.ts';
import { computePlan, type Plan } from '../../export/plan.ts';
import { httpConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { runCli, scratchFiles } from '../helpers/cli.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const file = await scratchFiles('vigil-secret-maps-');
const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { VIGIL_URL: vigil.url, ...env });

type Key = Client & { token: string };
const remote = (key: Key) => httpConfigApi(vigil.url, key.token);
const plan = (key: Key, text: string, options = {}) => computePlan(remote(key), families, readConfigFile(text, families), options);
const newKey = async (): Promise<Key> => (await vigil.organization('business')).key();
const action = (p: Plan, address: string) => p.actions.find((a) => a.address === address);


async function rowNamed(key: Key, family: string, name: string): Promise<any> {
  return (await key.get(`${CONFIG}/${family}`)).body.data.find((r: { name: string }) => r.name === name);
}

const OUTBOUND = (headers: string) => `
resource "vigil_outbound_configs" "ops" {
  name = "ops"
  kind = "webhook"
  url  = "https://hooks.example.com/vigil"
  headers_wo = ${headers}
}
`;

t.test('headers_wo = { Authorization = var.tok } creates the row with its headers stored, never printed', async (t) => {
  const key = await newKey();
  const token = 'Bearer map-SECRET-receiver-0001';
  const text = OUTBOUND('{ Authorization = var.tok }');
  const path = await file('outbound.hcl', text);

  const planned = await run(['plan', path, '--key', key.token], { VIGIL_VAR_tok: token });
  t.equal(planned.code, 0, planned.stderr);
  t.match(planned.stdout, /\+ create vigil_outbound_configs\.ops/);
  t.match(planned.stdout, /headers = "\(sensitive value\)"/, 'the headers are shown as a sensitive value');
  t.notOk(planned.stdout.includes('map-SECRET'), 'the printed plan never holds the value');
  const json = await run(['--json', 'plan', path, '--key', key.token], { VIGIL_VAR_tok: token });
  t.equal(json.code, 0, json.stderr);
  t.notOk(json.stdout.includes('map-SECRET'), 'nor does the JSON plan');
  const create = JSON.parse(json.stdout).plan.actions.find((a: { address: string }) => a.address === 'vigil_outbound_configs.ops');
  t.same(create.changes.find((c: { field: string }) => c.field === 'headers'), { field: 'headers', after: '(sensitive value)' });

  const applied = await run(['apply', path, '--key', key.token], { VIGIL_VAR_tok: token });
  t.equal(applied.code, 0, applied.stderr);
  t.match(applied.stdout, /created vigil_outbound_configs\.ops/);
  t.notOk(applied.stdout.includes('map-SECRET'), 'nor does the apply output');
  const row = await rowNamed(key, 'outbound_configs', 'ops');
  t.equal(row.headers_set, true, 'the headers are stored');
  // the service keeps a row whose sent headers equal the stored ones as it is (same ETag): the value stored is the one the variable held
  const rowPath = `${CONFIG}/outbound_configs/${row.id}`;
  const before = (await key.get(rowPath)).headers.get('etag');
  vigil.clock.advance(1000);
  t.equal((await key.put(rowPath, { headers: { Authorization: token } })).headers.get('etag'), before, 'the stored headers are exactly { Authorization: <the variable> }');

  const again = await plan(key, text, { env: { VIGIL_VAR_tok: token } });
  t.same(again.actions, [], 'stored headers are not sent again');
  t.equal(again.unchanged, 1);
  const replaced = await plan(key, text, { env: { VIGIL_VAR_tok: 'Bearer map-SECRET-receiver-0002' }, replaceSecrets: true });
  t.same(action(replaced, 'vigil_outbound_configs.ops')?.changes, [{ field: 'headers', before: '(set)', after: '(sensitive value)' }], 'unless --replace-secrets');
  t.same((await applyPlan(remote(key), replaced)).done, ['updated vigil_outbound_configs.ops']);
  const after = (await key.get(rowPath)).headers.get('etag');
  t.not(after, before, 'the new value replaced the old one');
  t.equal((await key.put(rowPath, { headers: { Authorization: 'Bearer map-SECRET-receiver-0002' } })).headers.get('etag'), after);
});

t.test('a variable that is not set lists the row with its reason', async (t) => {
  const key = await newKey();
  const text = OUTBOUND('{ Authorization = var.tok, "X-Team" = var.team }');
  const p = await plan(key, text, { env: { VIGIL_VAR_team: 'ops' } });
  t.same(p.actions, [], 'not created without its headers');
  t.same(p.skipped, [{ address: 'vigil_outbound_configs.ops', reason: 'needs a value for headers, which headers_wo gives; var.tok is not set (VIGIL_VAR_tok)', line: 2 }]);
  const none = await plan(key, text);
  t.match(none.skipped[0]?.reason, /var\.tok is not set \(VIGIL_VAR_tok\), var\.team is not set \(VIGIL_VAR_team\)$/, 'every missing variable is named');

  const path = await file('missing.hcl', text);
  const cli = await run(['plan', path, '--key', key.token], { VIGIL_VAR_team: 'ops' });
  t.equal(cli.code, 0, cli.stderr);
  t.match(cli.stdout, /! vigil_outbound_configs\.ops .*: needs a value for headers, which headers_wo gives; var\.tok is not set \(VIGIL_VAR_tok\)/);

  const rule = `${text}
resource "vigil_outbound_rules" "pages" {
  name               = "pages"
  outbound_config_id = vigil_outbound_configs.ops.id
}
`;
  const blocked = await plan(key, rule, { env: { VIGIL_VAR_team: 'ops' } });
  t.match(blocked.skipped.find((s) => s.address === 'vigil_outbound_rules.pages'), { reason: 'refers to vigil_outbound_configs.ops, which is skipped' }, 'what refers to it waits too');

  const provider = 'resource "vigil_ai_providers" "primary" {\n  name           = "primary"\n  provider_value = "vendor_a"\n  api_key_wo     = var.ai_key\n}\n';
  t.same((await plan(key, provider)).skipped, [{ address: 'vigil_ai_providers.primary', reason: 'needs a value for api_key, which api_key_wo gives; var.ai_key is not set (VIGIL_VAR_ai_key)', line: 1 }], 'a string secret alike');

  // a row that exists without headers: the update leaves them as they are, with a warning
  await key.post(`${CONFIG}/outbound_configs`, { name: 'ops', kind: 'webhook', url: 'https://hooks.example.com/vigil' });
  const update = await plan(key, text, { env: { VIGIL_VAR_team: 'ops' } });
  t.same(update.actions, []);
  t.same(update.warnings, ['vigil_outbound_configs.ops: headers_wo names var.tok, but VIGIL_VAR_tok is not set; headers is left as it is']);
  const given = await plan(key, text, { env: { VIGIL_VAR_team: 'ops', VIGIL_VAR_tok: 'Bearer map-SECRET-0003' } });
  t.same(action(given, 'vigil_outbound_configs.ops')?.changes, [{ field: 'headers', before: '(not set)', after: '(sensitive value)' }], 'once set, headers not stored are sent');
  t.same((await applyPlan(remote(key), given)).done, ['updated vigil_outbound_configs.ops']);
  t.equal((await rowNamed(key, 'outbound_configs', 'ops')).headers_set, true);
});

t.test('a literal object works, for headers and credentials alike', async (t) => {
  const key = await newKey();
  const text = `
resource "vigil_synthetic_checks" "home" {
  name       = "home"
  url        = "https://www.example.com/"
  headers_wo = { "X-Team" = "ops", Authorization = "Bearer lit-SECRET-0001" }
}

resource "vigil_image_targets" "checkout" {
  registry       = "ghcr.io"
  repository     = "acme/checkout"
  service        = "checkout"
  credentials_wo = {
    username = "robot"
    password = var.registry_password
  }
}

resource "vigil_connectors" "logs" {
  name           = "logs"
  kind           = "logs"
  provider_value = "loki"
  settings       = { url = "https://loki.example.com" }
  credentials_wo = { username = "vigil", password = "loki-SECRET-0001" }
}
`;
  const env = { VIGIL_VAR_registry_password: 'reg-SECRET-0001' };
  const p = await plan(key, text, { env });
  t.same(p.skipped, []);
  for (const [address, field] of [['vigil_synthetic_checks.home', 'headers'], ['vigil_image_targets.checkout', 'credentials'], ['vigil_connectors.logs', 'credentials']] as const) {
    t.same(action(p, address)?.changes.find((c) => c.field === field), { field, after: '(sensitive value)' }, `${address}: ${field} is sensitive in the plan`);
  }
  const path = await file('literal.hcl', text);
  const cli = await run(['apply', path, '--key', key.token], env);
  t.equal(cli.code, 0, cli.stderr);
  t.notOk(/SECRET/.test(cli.stdout), 'no value is printed');
  t.match(cli.stdout, /Apply complete: 3 change\(s\) in one transaction \(change id [0-9a-f-]{36}\)/);
  t.equal((await rowNamed(key, 'synthetic_checks', 'home')).headers_set, true);
  t.equal((await rowNamed(key, 'connectors', 'logs')).credentials_set, true);
  const target = (await key.get(`${CONFIG}/image_targets`)).body.data.find((r: { repository: string }) => r.repository === 'acme/checkout');
  t.equal(target.credentials_set, true);
  const targetPath = `${CONFIG}/image_targets/${target.id}`;
  const etag = (await key.get(targetPath)).headers.get('etag');
  vigil.clock.advance(1000);
  // keys in the order plan sends them (code-unit order): the service compares a sent object with the stored one as written
  t.equal((await key.put(targetPath, { credentials: { password: 'reg-SECRET-0001', username: 'robot' } })).headers.get('etag'), etag, 'the literal and the variable were stored together');

  const refused = await plan(key, text.replace('username = "vigil", ', 'token = "x", '), { env, replaceSecrets: true });
  const result = await applyPlan(remote(key), refused);
  t.equal(result.stopped?.address, 'vigil_connectors.logs', 'the service still checks the object it is sent');
  t.match(result.stopped?.details, [/credentials\.token/]);
  t.notOk(JSON.stringify(result).includes('SECRET'), 'and its refusal names the key, not the value');
});

t.test('{} means none: nothing is sent unless a stored value is to be cleared', async (t) => {
  const key = await newKey();
  const created = await plan(key, OUTBOUND('{}'));
  t.same(action(created, 'vigil_outbound_configs.ops')?.changes.map((c) => c.field).sort(), ['kind', 'name', 'url'], 'not part of the create');
  await applyPlan(remote(key), created);
  t.same((await plan(key, OUTBOUND('{}'), { replaceSecrets: true })).actions, [], 'nothing stored, nothing to clear');
  await applyPlan(remote(key), await plan(key, OUTBOUND('{ A = "x" }'), { replaceSecrets: true }));
  t.equal((await rowNamed(key, 'outbound_configs', 'ops')).headers_set, true);
  t.same((await plan(key, OUTBOUND('{}'))).actions, [], 'a stored value is kept without --replace-secrets');
  const cleared = await plan(key, OUTBOUND('{}'), { replaceSecrets: true });
  t.same(action(cleared, 'vigil_outbound_configs.ops')?.changes, [{ field: 'headers', before: '(set)', after: '(none)' }]);
  await applyPlan(remote(key), cleared);
  t.equal((await rowNamed(key, 'outbound_configs', 'ops')).headers_set, false);
});

const BROKEN: [string, string, RegExp][] = [
  ['an object secret given a variable', OUTBOUND('var.tok'), /headers_wo must be an object, \{ key = "value" or var\.<name>, … \} \(headers is one\), not var\.tok/],
  ['an object secret given a string', OUTBOUND('"Authorization: x"'), /headers_wo must be an object.*not a string/],
  ['an object secret written as a block', OUTBOUND('{}').replace('headers_wo = {}', 'headers_wo {\n    A = "x"\n  }'), /headers_wo must be an object.*not a list or a block/],
  ['a string secret given an object', OUTBOUND('{}').replace('headers_wo = {}', 'signing_secret_wo = { a = "b" }'), /signing_secret_wo must be a string or var\.<name>: signing_secret is not an object/],
  ['a number in the object', OUTBOUND('{ "X-Num" = 5 }'), /the value of "X-Num" must be a string or var\.<name>/],
  ['a nested object', OUTBOUND('{ A = { b = "c" } }'), /the value of "A" must be a string or var\.<name>/],
  ['another traversal', OUTBOUND('{ A = local.tok }'), /the value of "A" must be a string or var\.<name>, not local\.tok/],
  ['an interpolation', OUTBOUND('{ Authorization = "Bearer ${var.tok}" }'), /the value of "Authorization" holds an interpolation .*write var\.<name>/],
  ['a computed key', OUTBOUND('{ (var.k) = "v" }'), /a key must be written out, not computed/],
];

t.test('a misshapen object secret names its line', async (t) => {
  for (const [name, text, message] of BROKEN) {
    try {
      readConfigFile(text, families);
      t.fail(`${name}: read without error`);
    } catch (error) {
      t.ok(error instanceof ConfigFileError, name);
      t.equal((error as ConfigFileError).line, 6, `${name}: the line of the argument`);
      t.match((error as Error).message, message, name);
    }
  }
});

t.test('the export hints at the object form, and reads back once the hint is replaced', async (t) => {
  const key = await newKey();
  await key.post(`${CONFIG}/outbound_configs`, { name: 'ops', kind: 'webhook', url: 'https://hooks.example.com/vigil', headers: { Authorization: 'Bearer exp-SECRET-0001' }, signing_secret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5' });
  const exported = (await key.get(`${CONFIG}/export?format=hcl`)).body as string;
  t.notOk(exported.includes('exp-SECRET'));
  t.match(exported, '  # headers_wo = { … } <sensitive>  (headers is set; manage it with headers_wo and headers_wo_version)');
  t.match(exported, '  # signing_secret_wo = <sensitive>  (signing_secret is set; manage it with signing_secret_wo and signing_secret_wo_version)');
  t.same((await plan(key, exported)).actions, [], 'the export plans to nothing');

  const target = await newKey();
  const text = exported.replace(/# headers_wo = .*/, 'headers_wo = { Authorization = var.tok }');
  const p = await plan(target, text, { env: { VIGIL_VAR_tok: 'Bearer exp-SECRET-0002' } });
  t.same(action(p, 'vigil_outbound_configs.ops')?.changes.map((c) => c.field).sort(), ['enabled', 'headers', 'kind', 'name', 'timeout_ms', 'url']);
  await applyPlan(remote(target), p);
  const row = await rowNamed(target, 'outbound_configs', 'ops');
  t.same([row.headers_set, row.signing_secret_set], [true, false], 'the headers are carried, the secret the file does not give is not');
});
