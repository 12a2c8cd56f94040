/**
 * sso_settings (issue 39): defaults, the client secret never answered (REST, MCP, audit, HCL export), a provider
 * saved whole, an email domain claimed by one organization of the deployment only (422 naming allowed_domains, REST
 * and MCP alike, nothing about the holder), domains freed by their holder, an org admin's to change.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/sso_settings`;
const SECRET = 'the-sso-client-secret-never-shown-0123';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();
const provider = (domains: string[]) => ({ issuer: 'https://login.example.com', client_id: 'vigil', client_secret: SECRET, allowed_domains: domains });

t.test('defaults: no provider, passwords allowed', async (t) => {
  const api = await (await vigil.organization()).key();
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, {
    issuer: null, client_id: null, client_secret_set: false, provider_name: 'your identity provider', allowed_domains: [], groups_claim: 'groups',
    role_mappings: {}, default_role: null, password_sign_in: true, updated_at: null,
  });
});

t.test('the client secret is stored, never answered, audited or exported', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const saved = await api.put(PATH, { ...provider(['secret-test.example']), role_mappings: { sre: 'member' }, password_sign_in: false });
  t.equal(saved.status, 200);
  t.match(saved.body.data, { client_secret_set: true, allowed_domains: ['secret-test.example'], role_mappings: { sre: 'member' }, password_sign_in: false });
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const viaAgent = await agent.call('get_sso_settings', {});
  t.equal(viaAgent.body.data?.client_secret_set ?? viaAgent.body.client_secret_set, true);
  const exported = await api.get(`${CONFIG}/export?format=hcl`);
  t.equal(exported.status, 200);
  t.match(String(exported.body), /sso_settings/);
  const audit = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/audit_log`);
  for (const [name, answer] of [['answer', saved.body], ['read', (await api.get(PATH)).body], ['mcp', viaAgent.body], ["export", exported.body], ['audit', audit.body]] as const) {
    t.notOk(JSON.stringify(answer).includes(SECRET), `no secret in the ${name}`);
  }
  t.equal((await api.put(PATH, { provider_name: 'Acme Login' })).body.data.client_secret_set, true, 'an omitted secret is kept');
});

t.test('a provider is saved whole; passwords can be turned off only with a provider', async (t) => {
  const api = await (await vigil.organization()).key();
  const partial = await api.put(PATH, { issuer: 'https://login.example.com' });
  t.equal(partial.status, 422);
  t.same(fieldsOf(partial), ['allowed_domains', 'client_id', 'client_secret']);
  const noProvider = await api.put(PATH, { password_sign_in: false });
  t.equal(noProvider.status, 422);
  t.same(fieldsOf(noProvider), ['password_sign_in']);
  const internal = await api.put(PATH, { ...provider(['internal.example']), issuer: 'https://10.1.2.3' });
  t.equal(internal.status, 422, 'an issuer on an internal address is refused when saved');
  t.same(fieldsOf(internal), ['issuer']);
  t.equal((await api.get(PATH)).body.data.issuer, null, 'nothing of a refusal was stored');
});

t.test('an email domain belongs to one organization of the deployment', async (t) => {
  const firstOrg = await vigil.organization();
  const first = await firstOrg.key();
  t.equal((await first.put(PATH, { ...provider(['acme.example', 'acme-corp.example']), provider_name: 'Acme Secret Login' })).status, 200);
  const secondOrg = await vigil.organization();
  const second = await secondOrg.key();
  const refused = await second.put(PATH, provider(['other.example', 'acme-corp.example']));
  t.equal(refused.status, 422);
  t.equal(refused.body.error, 'validation_failed');
  t.same(fieldsOf(refused), ['allowed_domains']);
  t.match(refused.body.errors[0].message, /entry 2 is already claimed by another organization/);
  const text = JSON.stringify(refused.body);
  t.notOk(text.includes(firstOrg.id) || text.includes('Acme Secret Login'), 'nothing about the holder');
  t.equal((await second.get(PATH)).body.data.issuer, null, 'nothing was stored');

  const agent = await connectAgent(vigil.url, (await secondOrg.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  const viaAgent = await agent.call('update_sso_settings', provider(['acme.example']));
  t.ok(viaAgent.isError, 'the agent-tool endpoint refuses it alike');
  t.same(viaAgent.body.errors.map((e: { field: string }) => e.field), ['allowed_domains']);

  t.equal((await first.put(PATH, { allowed_domains: ['acme.example', 'acme-corp.example'] })).status, 200, 'the holder may send its own domains again');
  t.equal((await first.put(PATH, { allowed_domains: ['acme.example'] })).status, 200, 'the holder drops one');
  const freed = await second.put(PATH, provider(['acme-corp.example']));
  t.equal(freed.status, 200, 'a freed domain can be claimed');
});

t.test('two organizations claiming one domain at once: one wins, the other is refused', async (t) => {
  const keys = await Promise.all([vigil.organization(), vigil.organization()].map(async (org) => (await org).key()));
  const answers = await Promise.all(keys.map((api) => api.put(PATH, provider(['race.example']))));
  t.same(answers.map((a) => a.status).sort(), [200, 422]);
  t.same(fieldsOf(answers.find((a) => a.status === 422)!), ['allowed_domains']);
});

t.test('only an org admin changes them; a viewer reads them', async (t) => {
  const org = await vigil.organization();
  const viewer = await org.key(['api:config_read']);
  t.equal((await viewer.put(PATH, { provider_name: 'x' })).status, 403);
  t.equal((await viewer.get(PATH)).status, 200);
});
