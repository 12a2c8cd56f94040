/** The operator API: organizations, plans, features, members, tokens, webhook rotation, audit. */
import t from 'tap';
import { CONFIG, client, startVigil, OPERATOR_TOKEN } from '../helpers/harness.ts';
import { organizationByWebhookToken } from '../../engine/admin/organizations.ts';
import { SEGMENTS } from '../../webhooks/sources/index.ts';

const vigil = await startVigil({ publicUrl: 'https://vigil.example.com' });
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';

t.test('the operator token is required', async (t) => {
  t.equal((await client(vigil.url).post(`${ADMIN}/organizations`, { name: 'x' })).status, 401);
  t.equal((await client(vigil.url, `${OPERATOR_TOKEN}x`).post(`${ADMIN}/organizations`, { name: 'x' })).status, 401);
  const org = await vigil.organization();
  const key = await org.key();
  t.equal((await client(vigil.url, key.token).get(`${ADMIN}/organizations/${org.id}`)).status, 401, 'an API key is not an operator token');
});

t.test('organizations: create, read, patch; webhook URLs built from PUBLIC_URL', async (t) => {
  const made = await vigil.operator.post(`${ADMIN}/organizations`, { name: 'Acme', plan: 'team' });
  t.equal(made.status, 201);
  t.match(made.body, { name: 'Acme', plan: 'team', disabled: false });
  t.match(made.body.webhook_token, /^vigil_wh_/);
  t.equal(made.body.webhook_urls['metric-dashboard'], `https://vigil.example.com/webhooks/metric-dashboard/${made.body.webhook_token}`);
  t.equal(Object.keys(made.body.webhook_urls).length, SEGMENTS.length, 'one ready-made URL per source');
  const read = await vigil.operator.get(`${ADMIN}/organizations/${made.body.id}`);
  t.same(read.body, made.body);
  const patched = await vigil.operator.patch(`${ADMIN}/organizations/${made.body.id}`, { plan: 'business', features: { compliance: true } });
  t.equal(patched.body.plan, 'business');
  t.equal(patched.body.features.compliance, true);
  t.equal(patched.body.features.status_page, true);
  const back = await vigil.operator.patch(`${ADMIN}/organizations/${made.body.id}`, { features: { compliance: null } });
  t.equal(back.body.features.compliance, false, 'null returns a feature to the plan');
});

t.test('operator refusals name the field and change nothing', async (t) => {
  const bad = await vigil.operator.post(`${ADMIN}/organizations`, { name: '', plan: 'gold' });
  t.equal(bad.status, 422);
  t.same(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['name', 'plan']);
  const org = await vigil.organization();
  const patch = await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, { plan: 'business', features: { teleport: true }, disabled: 'yes' });
  t.equal(patch.status, 422);
  t.same(patch.body.errors.map((e: { field: string }) => e.field).sort(), ['disabled', 'features.teleport']);
  t.equal((await vigil.operator.get(`${ADMIN}/organizations/${org.id}`)).body.disabled, false, 'nothing was written');
  t.equal((await vigil.operator.get(`${ADMIN}/organizations/not-a-uuid`)).status, 404);
  t.equal((await vigil.operator.get(`${ADMIN}/organizations/00000000-0000-0000-0000-000000000000`)).status, 404);
  t.equal((await vigil.operator.post(`${ADMIN}/organizations`, '{"name":')).status, 400, 'broken JSON is 400');
});

t.test('issue 41: flags are typed; an unknown name, a wrong type or an unknown source is a 422 naming it', async (t) => {
  const org = await vigil.organization();
  const url = `${ADMIN}/organizations/${org.id}`;
  const cases: [string, Record<string, unknown>, string][] = [
    ['a string where a list is meant', { signing_enabled_sources: 'cloud-alarms' }, 'flags.signing_enabled_sources'],
    ['"True" for a boolean', { automatic_runbook_approved: 'True' }, 'flags.automatic_runbook_approved'],
    ['a misspelt name', { signing_enabled_source: ['cloud-alarms'] }, 'flags.signing_enabled_source'],
    ['an unknown source', { signing_enabled_sources: ['cloud-alarms', 'clowd-alarms'] }, 'flags.signing_enabled_sources[1]'],
    ['false where true or a list is meant', { signing_enabled_sources: false }, 'flags.signing_enabled_sources'],
  ];
  for (const [name, flags, field] of cases) {
    const answer = await vigil.operator.patch(url, { flags });
    t.equal(answer.status, 422, name);
    t.equal(answer.body.error, 'validation_failed', name);
    t.ok(answer.body.errors.some((e: { field: string }) => e.field === field), `${name} names ${field}`);
  }
  t.same((await vigil.operator.get(url)).body.flags, {}, 'nothing was stored');
  const set = await vigil.operator.patch(url, { flags: { signing_enabled_sources: ['cloud-alarms'], automatic_runbook_approved: true } });
  t.equal(set.status, 200);
  t.same(set.body.flags, { signing_enabled_sources: ['cloud-alarms'], automatic_runbook_approved: true });
  const removed = await vigil.operator.patch(url, { flags: { automatic_runbook_approved: null } });
  t.same(removed.body.flags, { signing_enabled_sources: ['cloud-alarms'] }, 'null removes a flag');
});

t.test('keys for an endpoint the plan lacks are refused at creation', async (t) => {
  const org = await vigil.organization('free');
  for (const scopes of [['api:admin'], ['mcp:read']]) {
    const answer = await vigil.operator.post(`${ADMIN}/organizations/${org.id}/api_keys`, { name: 'k', scopes });
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'plan_required');
  }
});

t.test('users, memberships and personal tokens', async (t) => {
  const org = await vigil.organization();
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: 'Dana@Example.com', name: 'Dana' });
  t.equal(user.status, 201);
  t.equal(user.body.email, 'dana@example.com');
  t.equal((await vigil.operator.post(`${ADMIN}/users`, { email: 'dana@example.com' })).status, 409, 'one user per email');
  t.equal((await vigil.operator.post(`${ADMIN}/users`, { email: 'nope' })).status, 422);
  const member = await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role: 'member' });
  t.same(member.body, { organization_id: org.id, user_id: user.body.id, role: 'member' });
  t.equal((await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role: 'owner' })).status, 422);
  const token = await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 'laptop', organizations: [org.id], max_role: 'viewer' });
  t.equal(token.status, 201);
  t.match(token.body.token, /^vigil_pat_/);
  t.equal((await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 'x', organizations: [], max_role: 'god' })).status, 422);
  t.equal((await vigil.operator.del(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`)).status, 204);
  t.equal((await vigil.operator.del(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`)).status, 404);
});

t.test('webhook token rotation keeps the old token for 72 hours', async (t) => {
  const org = await vigil.organization();
  const services = vigil.running.services;
  const old = org.webhookToken;
  const rotated = await vigil.operator.post(`${ADMIN}/organizations/${org.id}/webhook_token/rotate`);
  t.equal(rotated.status, 200);
  t.not(rotated.body.webhook_token, old);
  t.equal(rotated.body.previous_valid_until, new Date(vigil.clock.now().getTime() + 72 * 3600_000).toISOString());
  t.equal((await organizationByWebhookToken(services, old))?.organization.id, org.id, 'the old token still selects the organization');
  t.equal((await organizationByWebhookToken(services, rotated.body.webhook_token))?.organization.id, org.id);
  vigil.clock.advance(72 * 3600_000 - 1000);
  t.equal((await organizationByWebhookToken(services, old))?.organization.id, org.id, 'inside the grace');
  vigil.clock.advance(2000);
  t.equal(await organizationByWebhookToken(services, old), null, 'after 72 hours the old token selects nothing');

  const again = await vigil.operator.post(`${ADMIN}/organizations/${org.id}/webhook_token/rotate`);
  t.equal((await organizationByWebhookToken(services, rotated.body.webhook_token))?.organization.id, org.id);
  t.equal((await vigil.operator.post(`${ADMIN}/organizations/${org.id}/webhook_token/revoke_previous`)).status, 204);
  t.equal(await organizationByWebhookToken(services, rotated.body.webhook_token), null, 'revoke now stops the old token at once');
  t.equal((await organizationByWebhookToken(services, again.body.webhook_token))?.organization.id, org.id);
  await vigil.operator.patch(`${ADMIN}/organizations/${org.id}`, { disabled: true });
  t.equal(await organizationByWebhookToken(services, again.body.webhook_token), null, 'a disabled organization selects nothing');
});

t.test('the audit log: one entry per write, readable by operator and org admins, refusals not audited', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  await api.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 7 });
  await api.put(`${CONFIG}/organization_settings`, { alert_storm_threshold: 1 });
  await api.post(`${CONFIG}/ai_providers`, { name: 'p', provider: 'vendor_a', api_key: 'sk-secret-value-123' });
  await api.put(`${CONFIG}/ai_providers/none`, { priority: 2 });
  const operatorView = await vigil.operator.get(`${ADMIN}/organizations/${org.id}/audit_log`);
  const own = await api.get(`${CONFIG}/audit_log`);
  t.same(own.body.data, operatorView.body.data, 'the organization and the operator see the same entries');
  const entries = own.body.data;
  t.equal(entries.length, 2, 'refused writes are not audited');
  t.match(entries[0], { family: 'ai_providers', action: 'create', transport: 'rest', actor: { kind: 'api_key', id: api.keyId } });
  t.equal(entries[0].changes.api_key, '(set)');
  t.notOk(JSON.stringify(entries).includes('sk-secret-value-123'), 'the key never reaches the audit log');
  t.same(entries[1].changes, { alert_storm_threshold: { before: 10, after: 7 } });
});
