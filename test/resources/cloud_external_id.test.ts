import t from 'tap';
import aiSettings from '../../resources/ai_settings.ts';
import cloudExternalId from '../../resources/cloud_external_id.ts';
import compliancePeriods from '../../resources/compliance_periods.ts';
import deployPolicies from '../../resources/deploy_policies.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [aiSettings, cloudExternalId, compliancePeriods, deployPolicies] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/cloud_external_id`;

t.test('the first read mints an external id; later reads answer the same one', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const first = await api.get(PATH);
  t.equal(first.status, 200);
  t.same(Object.keys(first.body.data).sort(), ['external_id', 'trust_principal_id'], 'exactly the two fields, no role or credentials');
  t.match(first.body.data.external_id, /^vigil-[0-9a-f]{32}$/);
  t.equal(first.body.data.trust_principal_id, 'arn-test-principal', 'the deployment\'s trust principal');
  t.equal(first.body.organization.id, org.id);

  const second = await api.get(PATH);
  t.equal(second.body.data.external_id, first.body.data.external_id, 'stable across reads');
  const viewer = await org.key(['api:config_read']);
  t.equal((await viewer.get(PATH)).body.data.external_id, first.body.data.external_id, 'a read-only key reads the same value');

  const audit = await api.get(`${CONFIG}/audit_log`);
  const minted = audit.body.data.filter((e: { family: string }) => e.family === 'cloud_external_id');
  t.equal(minted.length, 1, 'minting is audited once');
  t.equal(minted[0].action, 'create');
});

t.test('two organizations get different external ids', async (t) => {
  const a = await (await vigil.organization('business')).key();
  const b = await (await vigil.organization('business')).key();
  const [ra, rb] = [await a.get(PATH), await b.get(PATH)];
  t.not(ra.body.data.external_id, rb.body.data.external_id);
  t.equal(ra.body.data.trust_principal_id, rb.body.data.trust_principal_id, 'the trust principal is the deployment\'s, the same for all');
});

t.test('two racing first reads answer the one stored value', async (t) => {
  const api = await (await vigil.organization('business')).key();
  const [one, two] = await Promise.all([api.get(PATH), api.get(PATH)]);
  t.equal(one.status, 200);
  t.equal(two.status, 200);
  t.equal(one.body.data.external_id, two.body.data.external_id);
  t.equal((await api.get(PATH)).body.data.external_id, one.body.data.external_id);
  const audit = await api.get(`${CONFIG}/audit_log`);
  t.equal(audit.body.data.filter((e: { family: string }) => e.family === 'cloud_external_id').length, 1, 'one row was stored and audited');
});

t.test('nothing can change it; it survives other writes', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const minted = (await api.get(PATH)).body.data.external_id;

  const put = await api.put(PATH, { external_id: 'vigil-mine' });
  t.equal(put.status, 405);
  t.equal(put.body.error, 'method_not_allowed');
  t.same(put.body.allowed, ['GET']);
  t.equal(put.headers.get('allow'), 'GET');
  t.equal((await api.del(PATH)).status, 405, 'nor can it be deleted');
  t.equal((await api.post(PATH, {})).status, 405, 'nor created');
  t.equal((await api.get(`${PATH}/x`)).status, 404, 'it has no ids');

  t.equal((await api.put(`${CONFIG}/ai_settings`, { retry_budget: 5 })).status, 200);
  t.equal((await api.post(`${CONFIG}/deploy_policies`, { service: 'api' })).status, 201);
  vigil.clock.advance(30 * 24 * 3600_000);
  const later = await api.get(PATH);
  t.equal(later.body.data.external_id, minted, 'the same value after other writes and a month');
});

t.test('a plan without the configuration API cannot read it', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { plan: 'team' });
  const refused = await api.get(PATH);
  t.equal(refused.status, 403);
  t.equal(refused.body.error, 'plan_required');
  t.notOk(JSON.stringify(refused.body).includes('vigil-'), 'no external id in the refusal');
});
