/** The `vigil` operator commands, run as a person would: a child process against a running service. */
import { execFile } from 'node:child_process';
import t from 'tap';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { CONFIG, OPERATOR_TOKEN, client, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { COMPILE_CACHE_ENV } from '../helpers/compile-cache.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
// Each CLI run is a fresh process (about a second to start); the subtests are independent, so run them side by side.
t.jobs = 4;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...COMPILE_CACHE_ENV, VIGIL_URL: vigil.url, VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/vigil.ts', ...args], { env: merged }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function json(args: string[]): Promise<any> {
  const r = await run(['--json', ...args]);
  if (r.code !== 0) throw new Error(`vigil ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

t.test('org create → org show round trip', async (t) => {
  const created = await json(['org', 'create', '--name', 'Acme', '--plan', 'team']);
  t.match(created, { name: 'Acme', plan: 'team', disabled: false, webhook_token: /^vigil_wh_/ });
  const shown = await json(['org', 'show', created.id]);
  t.equal(shown.id, created.id);
  t.equal(shown.name, 'Acme');
  t.equal(shown.webhook_token, created.webhook_token);

  const human = await run(['org', 'show', created.id]);
  t.equal(human.code, 0);
  t.match(human.stdout, `Organization ${created.id} "Acme"`);
  t.match(human.stdout, /plan:\s+team/);
  t.match(human.stdout, created.webhook_token);
});

t.test('key create prints a working key; key revoke stops it', async (t) => {
  const org = await json(['org', 'create', '--name', 'Keys Inc']);
  const made = await run(['key', 'create', org.id, '--name', 'ci', '--scope', 'api:admin']);
  t.equal(made.code, 0, made.stderr);
  t.match(made.stdout, /shown once/);
  const key = /vigil_ak_[A-Za-z0-9_-]+/.exec(made.stdout)?.[0];
  t.ok(key, 'the key is printed');
  const keyId = /API key ([0-9a-f-]{36})/.exec(made.stdout)?.[1];
  t.ok(keyId, 'the key id is printed');

  const api = client(vigil.url, key);
  t.equal((await api.get(`${CONFIG}/organization_settings`)).status, 200);

  const revoked = await run(['key', 'revoke', org.id, keyId!]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, /Revoked/);
  t.equal((await api.get(`${CONFIG}/organization_settings`)).status, 401);

  const again = await run(['key', 'revoke', org.id, keyId!]);
  t.equal(again.code, 1);
  t.match(again.stderr, /^error: /);

  const both = await json(['key', 'create', org.id, '--name', 'mcp', '--scope', 'mcp:read', '--scope', 'mcp:write']);
  t.same(both.scopes, ['mcp:read', 'mcp:write']);
});

t.test('issue 41: org update refuses an unknown flag, a wrong type and an unknown source, naming each', async (t) => {
  const org = await json(['org', 'create', '--name', 'Flags']);
  const refused = await run(['org', 'update', org.id, '--flag', 'signing_enabled_source=cloud-alarms', '--flag', 'automatic_runbook_approved=yes']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /flags\.signing_enabled_source: is not an organization flag/);
  t.match(refused.stderr, /flags\.automatic_runbook_approved: /);
  const source = await run(['org', 'update', org.id, '--flag', 'signing_enabled_sources=cloud-alarms,clowd-alarms']);
  t.equal(source.code, 1);
  t.match(source.stderr, /flags\.signing_enabled_sources\[1\]: is not a webhook source/);
  t.same((await json(['org', 'show', org.id])).flags, {}, 'nothing was stored');
});

t.test('org update changes features, plan, name, status and flags', async (t) => {
  const org = await json(['org', 'create', '--name', 'Changing', '--plan', 'team']);
  t.equal(org.features.compliance, false);
  t.equal(org.features.status_page, true);

  let updated = await json(['org', 'update', org.id, '--feature', 'compliance=on', '--feature', 'status_page=off', '--flag', 'automatic_runbook_approved=True', '--flag', 'signing_enabled_sources=cloud-alarms, metric-dashboard']);
  t.equal(updated.features.compliance, true);
  t.equal(updated.features.status_page, false);
  t.same(updated.feature_overrides, { compliance: true, status_page: false });
  t.same(updated.flags, { automatic_runbook_approved: true, signing_enabled_sources: ['cloud-alarms', 'metric-dashboard'] }, 'each flag parsed by its type');
  updated = await json(['org', 'update', org.id, '--flag', 'signing_enabled_sources=true', '--flag', 'automatic_runbook_approved=null']);
  t.same(updated.flags, { signing_enabled_sources: true }, 'true covers every source; null removes a flag');

  updated = await json(['org', 'update', org.id, '--feature', 'status_page=plan', '--plan', 'enterprise', '--name', 'Changed', '--disable']);
  t.same(updated.feature_overrides, { compliance: true });
  t.equal(updated.plan, 'enterprise');
  t.equal(updated.name, 'Changed');
  t.equal(updated.disabled, true);

  const human = await run(['org', 'update', org.id, '--enable']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /Updated organization/);
  t.equal((await vigil.operator.get(`/api/admin/v1/organizations/${org.id}`)).body.disabled, false);

  const both = await run(['org', 'update', org.id, '--enable', '--disable']);
  t.equal(both.code, 1);
  const nothing = await run(['org', 'update', org.id]);
  t.equal(nothing.code, 1);
  t.match(nothing.stderr, /nothing to change/);
  const badFeature = await run(['org', 'update', org.id, '--feature', 'compliance']);
  t.equal(badFeature.code, 1);
  const unknownFeature = await run(['org', 'update', org.id, '--feature', 'teleport=on']);
  t.equal(unknownFeature.code, 1);
  t.match(unknownFeature.stderr, /features\.teleport/);
});

t.test('user, member and token commands', async (t) => {
  const org = await json(['org', 'create', '--name', 'People']);
  const made = await run(['user', 'create', '--email', 'ada@example.com', '--name', 'Ada']);
  t.equal(made.code, 0, made.stderr);
  const userId = /user ([0-9a-f-]{36})/.exec(made.stdout)?.[1];
  t.ok(userId);
  t.match(made.stdout, 'ada@example.com');

  const dup = await run(['user', 'create', '--email', 'ada@example.com']);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /already exists/);

  const set = await json(['member', 'set', org.id, userId!, '--role', 'member']);
  t.same(set, { organization_id: org.id, user_id: userId, role: 'member' });
  const human = await run(['member', 'set', org.id, userId!, '--role', 'org_admin']);
  t.match(human.stdout, /is org_admin in organization/);
  const badRole = await run(['member', 'set', org.id, userId!, '--role', 'owner']);
  t.equal(badRole.code, 1);

  const token = await run(['token', 'create', userId!, '--name', 'laptop', '--org', org.id, '--max-role', 'viewer']);
  t.equal(token.code, 0, token.stderr);
  t.match(token.stdout, /vigil_pat_[A-Za-z0-9_-]+/);
  t.match(token.stdout, /shown once/);
  const tokenJson = await json(['token', 'create', userId!, '--name', 'ci', '--org', org.id]);
  t.match(tokenJson, { id: String, token: /^vigil_pat_/ });

  const removed = await run(['member', 'remove', org.id, userId!]);
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, /Removed user/);
  const again = await run(['member', 'remove', org.id, userId!]);
  t.equal(again.code, 1);
});

t.test('webhook rotate and revoke-previous', async (t) => {
  const org = await json(['org', 'create', '--name', 'Hooks']);
  const rotated = await json(['webhook', 'rotate', org.id]);
  t.match(rotated.webhook_token, /^vigil_wh_/);
  t.not(rotated.webhook_token, org.webhook_token);
  t.equal(rotated.previous_valid_until, new Date(vigil.clock.now().getTime() + 72 * 3600 * 1000).toISOString());

  const human = await run(['webhook', 'rotate', org.id]);
  t.match(human.stdout, /New webhook token: vigil_wh_/);
  t.match(human.stdout, /keeps working until/);

  const revoked = await run(['webhook', 'revoke-previous', org.id]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal((await json(['org', 'show', org.id])).previous_webhook_token_valid_until, null);
});

t.test('audit lists an entry after a config write', async (t) => {
  const org = await vigil.organization('business');
  const empty = await run(['audit', org.id]);
  t.match(empty.stdout, /No audit entries/);

  const api = await org.key(['api:admin']);
  const write = await api.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 5 });
  t.equal(write.status, 200, JSON.stringify(write.body));

  const answer = await json(['audit', org.id]);
  t.equal(answer.data.length, 1);
  t.match(answer.data[0], { family: 'organization_settings', transport: 'rest', actor: { id: api.keyId } });

  const human = await run(['audit', org.id]);
  const lines = human.stdout.trim().split('\n');
  t.equal(lines.length, 1);
  t.match(lines[0], /organization_settings/);
  t.match(lines[0], api.keyId);
  t.match(lines[0], /rest/);
});

t.test('audit pages: the first 1000 entries and how to go on, --cursor, --limit and --all', async (t) => {
  const org = await vigil.organization('business');
  await sqlExecutor(vigil.running.services.db)(
    `insert into audit_log (id, organization_id, at, actor_kind, actor_id, transport, family, row_id, action, changes)
     select gen_random_uuid(), ?, ?::timestamptz + make_interval(secs => g), 'api_key', 'seed', 'rest', 'teams', 'row ' || g, 'update', '{}'::jsonb
     from generate_series(1, 1203) g`,
    [org.id, '2026-03-01T10:00:00.000Z'],
  );
  const first = await run(['audit', org.id]);
  const lines = first.stdout.trim().split('\n');
  t.equal(lines.length, 1001, 'one page of 1000 entries, then how to go on');
  t.match(lines[0], /row 1203/, 'newest first');
  const hint = /--cursor (\S+) for the next page, or --all/.exec(lines[1000]!);
  t.ok(hint, 'the last line names the next cursor');
  const rest = await run(['audit', org.id, '--cursor', hint![1]!]);
  t.same(rest.stdout.trim().split('\n').map((l) => /row (\d+)/.exec(l)![1]), ['203', ...Array.from({ length: 202 }, (_, i) => String(202 - i))], 'the next page ends the log, with no hint');

  const all = await json(['audit', org.id, '--all', '--limit', '500']);
  t.equal(all.data.length, 1203, '--all follows every page');
  t.equal(new Set(all.data.map((e: { id: string }) => e.id)).size, 1203);
  t.equal(all.next_cursor, null);
  const small = await json(['audit', org.id, '--limit', '2']);
  t.same([small.data.length, typeof small.next_cursor], [2, 'string']);

  const bad = await run(['audit', org.id, '--cursor', 'garbage']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /cursor/);
  const over = await run(['audit', org.id, '--limit', '1001']);
  t.equal(over.code, 1);
  t.match(over.stderr, /limit/);
});

t.test('refusals', async (t) => {
  const wrong = await run(['org', 'show', '00000000-0000-0000-0000-000000000000'], { VIGIL_ADMIN_TOKEN: 'not-the-token' });
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, 'error: That is not the operator token.');
  t.equal(wrong.stdout, '');

  const flagToken = await run(['--token', 'nope', 'org', 'create', '--name', 'x']);
  t.equal(flagToken.code, 1);
  t.match(flagToken.stderr, /not the operator token/);

  const bad = await run(['org', 'create', '--name', 'x', '--plan', 'gold']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /^error: .*plan/);
  t.match(bad.stderr, /^\s+plan: must be one of/m);

  const missing = await run(['org', 'create', '--name', 'x'], { VIGIL_ADMIN_TOKEN: undefined });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no operator token.*--token/);

  const unknown = await run(['org', 'show', '00000000-0000-0000-0000-000000000000']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^error: /);

  const down = await run(['org', 'show', 'x'], { VIGIL_URL: 'http://127.0.0.1:9' });
  t.equal(down.code, 1);
  t.match(down.stderr, /could not reach Vigil at http:\/\/127\.0\.0\.1:9/);

  const noName = await run(['org', 'create']);
  t.equal(noName.code, 1);
  t.match(noName.stderr, /--name/);
});

t.test('org list and key list: every organization, a key\'s id, name and scopes, never a key or a webhook token', async (t) => {
  const org = await vigil.organization('business');
  const made = await org.key(['api:config_read']);
  const orgs = await json(['org', 'list']);
  const mine = orgs.data.find((o: { id: string }) => o.id === org.id);
  t.same(Object.keys(mine).sort(), ['created_at', 'disabled', 'id', 'name', 'plan']);
  t.notOk(JSON.stringify(orgs).includes(org.webhookToken), 'no webhook token in the list');
  const text = await run(['org', 'list']);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, new RegExp(`${org.id}  business  enabled`));
  const keys = await json(['key', 'list', org.id]);
  const listed = keys.data.find((k: { id: string }) => k.id === made.keyId);
  t.same(Object.keys(listed).sort(), ['created_at', 'id', 'name', 'revoked_at', 'scopes']);
  t.same(listed.scopes, ['api:config_read']);
  t.notOk(JSON.stringify(keys).includes(made.token), 'never the key');
  t.equal((await run(['key', 'revoke', org.id, made.keyId])).code, 0);
  t.match((await run(['key', 'list', org.id])).stdout, new RegExp(`${made.keyId}  api:config_read  \\S+  revoked`));
  const missing = await run(['key', 'list', '00000000-0000-4000-8000-000000000000']);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /not found|no organization|organization/i);
});

t.test('gate check: exit 0 when the gate allows, 1 with the reason when it holds', async (t) => {
  const org = await vigil.organization('business');
  const key = await org.key(['api:admin']);
  const allowed = await run(['gate', 'check', '--service', 'checkout', '--environment', 'production', '--key', key.token]);
  t.equal(allowed.code, 0, allowed.stderr);
  t.match(allowed.stdout, /The deploy gate allows checkout \(production\)\./);
  const policy = await key.post(`${CONFIG}/deploy_policies`, { service: 'checkout' });
  t.equal(policy.status, 201);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => agent.close());
  t.equal((await agent.call('set_deploy_freeze', { id: policy.body.data.id, reason: 'release week' })).isError, false, 'someone freezes deploys');
  const held = await run(['gate', 'check', '--service', 'checkout'], { VIGIL_API_KEY: key.token });
  t.equal(held.code, 1);
  t.match(held.stderr, /the deploy gate holds checkout:\n\s+.*release week/);
  const noKey = await run(['gate', 'check', '--service', 'checkout'], { VIGIL_API_KEY: undefined });
  t.equal(noKey.code, 1);
  t.match(noKey.stderr, /no organization API key/);
  const badKey = await run(['gate', 'check', '--service', 'checkout', '--key', 'vk_nope']);
  t.equal(badKey.code, 1);
});
