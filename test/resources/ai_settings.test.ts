import t from 'tap';
import aiSettings from '../../resources/ai_settings.ts';
import cloudExternalId from '../../resources/cloud_external_id.ts';
import compliancePeriods from '../../resources/compliance_periods.ts';
import deployPolicies from '../../resources/deploy_policies.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [aiSettings, cloudExternalId, compliancePeriods, deployPolicies] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/ai_settings`;

t.test('first read answers the defaults, with the retry budget in force', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, {
    own_providers_only: false,
    anonymization_enabled: false,
    retry_budget: 2,
    retry_budget_configured: false,
    multi_agent_investigation: false,
    updated_at: null,
  });
  t.equal(read.body.organization.id, org.id);
  t.match(read.headers.get('etag'), /^"[\w-]+"$/);
  const viewer = await org.key(['api:config_read']);
  t.equal((await viewer.get(PATH)).body.data.retry_budget, 2, 'a read-only key reads it too');
});

t.test('retry_budget: stored, then returned to the default with null', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const four = await api.put(PATH, { retry_budget: 4 });
  t.equal(four.status, 200);
  t.equal(four.body.data.retry_budget, 4);
  t.equal(four.body.data.retry_budget_configured, true);
  t.equal(four.body.data.updated_at, '2026-03-01T12:00:00.000Z');
  t.same((await api.get(PATH)).body.data.retry_budget, 4, 'the stored value reads back');

  const zero = await api.put(PATH, { retry_budget: 0 });
  t.equal(zero.body.data.retry_budget, 0, '0 is a stored value, not the default');
  t.equal(zero.body.data.retry_budget_configured, true);

  const cleared = await api.put(PATH, { retry_budget: null });
  t.equal(cleared.status, 200);
  t.equal(cleared.body.data.retry_budget, 2, 'null returns to the default');
  t.equal(cleared.body.data.retry_budget_configured, false);
  const again = await api.get(PATH);
  t.equal(again.body.data.retry_budget, 2);
  t.equal(again.body.data.retry_budget_configured, false);
});

t.test('an update changes only the fields sent', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  await api.put(PATH, { own_providers_only: true, retry_budget: 3 });
  const next = await api.put(PATH, { multi_agent_investigation: true });
  t.same(next.body.data, {
    own_providers_only: true,
    anonymization_enabled: false,
    retry_budget: 3,
    retry_budget_configured: true,
    multi_agent_investigation: true,
    updated_at: '2026-03-01T12:00:00.000Z',
  });
  const other = await vigil.organization('business');
  t.equal((await (await other.key()).get(PATH)).body.data.own_providers_only, false, 'another organization keeps its own settings');
});

t.test('refusals', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  await api.put(PATH, { retry_budget: 1 });
  for (const bad of [6, -1, 2.5, '3']) {
    const refused = await api.put(PATH, { retry_budget: bad });
    t.equal(refused.status, 422, `retry_budget ${JSON.stringify(bad)} is refused`);
    t.equal(refused.body.error, 'validation_failed');
    t.same(refused.body.errors.map((e: { field: string }) => e.field), ['retry_budget']);
  }
  const readOnly = await api.put(PATH, { retry_budget_configured: true });
  t.equal(readOnly.status, 422);
  t.same(readOnly.body.errors, [{ field: 'retry_budget_configured', message: 'is read-only' }]);

  const viewer = await org.key(['api:config_read']);
  const denied = await viewer.put(PATH, { retry_budget: 4 });
  t.equal(denied.status, 403);
  t.equal(denied.body.error, 'read_only_key');
  t.equal((await api.get(PATH)).body.data.retry_budget, 1, 'nothing was written by the refusals');
});

t.test('If-Match follows the settable configuration', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const etag = (await api.get(PATH)).headers.get('etag')!;
  const changed = await api.put(PATH, { anonymization_enabled: true }, { 'if-match': etag });
  t.equal(changed.status, 200);
  const stale = await api.put(PATH, { anonymization_enabled: false }, { 'if-match': etag });
  t.equal(stale.status, 412);
  t.equal(stale.body.data.anonymization_enabled, true, 'the answer carries the current row');
});
