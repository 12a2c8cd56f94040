/** Credentials at the configuration API: who gets in, who is refused, and with which code. */
import t from 'tap';
import { CONFIG, client, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const SETTINGS = `${CONFIG}/organization_settings`;

t.test('missing, malformed and unknown credentials answer 401', async (t) => {
  for (const [label, headers] of [
    ['no header', {}],
    ['not bearer', { authorization: 'Basic abc' }],
    ['unknown key', { authorization: 'Bearer vigil_ak_nothing' }],
    ['foreign format', { authorization: 'Bearer something' }],
  ] as const) {
    const answer = await client(vigil.url).get(SETTINGS, headers);
    t.equal(answer.status, 401, label);
    t.equal(answer.body.error, 'unauthorized', label);
    t.equal(answer.headers.get('www-authenticate'), 'Bearer');
  }
});

t.test('an api:admin key reads and writes; a revoked key stops at once', async (t) => {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  t.equal((await api.get(SETTINGS)).status, 200);
  t.equal((await api.put(SETTINGS, { investigation_paused: true })).status, 200);
  const revoked = await vigil.operator.del(`/api/admin/v1/organizations/${org.id}/api_keys/${api.keyId}`);
  t.equal(revoked.status, 204);
  t.equal((await api.get(SETTINGS)).status, 401, 'the revoked key is refused');
  t.equal((await vigil.operator.del(`/api/admin/v1/organizations/${org.id}/api_keys/${api.keyId}`)).status, 404, 'revoking twice is 404');
});

t.test('api:config_read reads but every write is read_only_key', async (t) => {
  const org = await vigil.organization();
  const reader = await org.key(['api:config_read']);
  t.equal((await reader.get(SETTINGS)).status, 200);
  t.equal((await reader.get(`${CONFIG}/ai_providers`)).status, 200);
  for (const answer of [
    await reader.put(SETTINGS, { investigation_paused: true }),
    await reader.post(`${CONFIG}/alert_mutes`, { pattern: 'disk' }),
    await reader.del(`${CONFIG}/alert_mutes/whatever`),
  ]) {
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'read_only_key');
  }
  const audit = await reader.get(`${CONFIG}/audit_log`);
  t.equal(audit.status, 403, 'the audit log needs an org-admin key');
  t.equal(audit.body.error, 'forbidden');
});

t.test('scopes: config_read alone, one endpoint per key, known scopes only', async (t) => {
  const org = await vigil.organization();
  const path = `/api/admin/v1/organizations/${org.id}/api_keys`;
  for (const scopes of [['api:config_read', 'api:admin'], ['api:admin', 'mcp:read'], ['api:everything'], [], 'api:admin']) {
    const answer = await vigil.operator.post(path, { name: 'k', scopes });
    t.equal(answer.status, 422, `refused: ${JSON.stringify(scopes)}`);
    t.equal(answer.body.errors[0].field, 'scopes');
  }
});

t.test('agent-tool keys and personal tokens are refused here with where they work', async (t) => {
  const org = await vigil.organization();
  const mcp = await org.key(['mcp:admin']);
  const refused = await mcp.get(SETTINGS);
  t.equal(refused.status, 403);
  t.equal(refused.body.error, 'forbidden');
  t.match(refused.body.message, /\/api\/mcp/);

  const user = await vigil.operator.post('/api/admin/v1/users', { email: 'ops@example.com' });
  await vigil.operator.put(`/api/admin/v1/organizations/${org.id}/members/${user.body.id}`, { role: 'org_admin' });
  const pat = await vigil.operator.post(`/api/admin/v1/users/${user.body.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' });
  const answer = await client(vigil.url, pat.body.token).get(SETTINGS);
  t.equal(answer.status, 403);
  t.equal(answer.body.error, 'personal_token_not_accepted');
  t.equal((await client(vigil.url, 'vigil_pat_forged').get(SETTINGS)).status, 401, 'an unknown personal token is 401');
});

t.test('below business the configuration API answers plan_required', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { plan: 'team' });
  const answer = await api.get(SETTINGS);
  t.equal(answer.status, 403);
  t.equal(answer.body.error, 'plan_required');
  t.equal(answer.body.message, 'The configuration API is not included in the team plan.');
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { config_api: true } });
  t.equal((await api.get(SETTINGS)).status, 200, 'an operator add-on switches the feature on for one organization');
});

t.test('a disabled organization: its keys answer organization_disabled', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { disabled: true });
  const answer = await api.get(SETTINGS);
  t.equal(answer.status, 403);
  t.equal(answer.body.error, 'organization_disabled');
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { disabled: false });
  t.equal((await api.get(SETTINGS)).status, 200);
});

t.test('organizations never see each other', async (t) => {
  const a = await (await vigil.organization()).key();
  const b = await (await vigil.organization()).key();
  const mute = await a.post(`${CONFIG}/alert_mutes`, { pattern: 'private' });
  t.equal((await b.get(`${CONFIG}/alert_mutes/${mute.body.data.id}`)).status, 404);
  t.equal((await b.del(`${CONFIG}/alert_mutes/${mute.body.data.id}`)).status, 404);
  t.same((await b.get(`${CONFIG}/alert_mutes`)).body.data, []);
  t.equal((await b.post(`${CONFIG}/alert_mutes`, { pattern: 'private' })).status, 201, 'natural keys are per organization');
});
