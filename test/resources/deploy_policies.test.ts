import t from 'tap';
import { ApiError } from '../../engine/errors.ts';
import { executeAction } from '../../engine/operations/action.ts';
import aiSettings from '../../resources/ai_settings.ts';
import cloudExternalId from '../../resources/cloud_external_id.ts';
import compliancePeriods from '../../resources/compliance_periods.ts';
import deployPolicies from '../../resources/deploy_policies.ts';
import { agentCaller, CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [aiSettings, cloudExternalId, compliancePeriods, deployPolicies] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/deploy_policies`;
const START = '2026-03-01T12:00:00.000Z';
type Role = 'viewer' | 'member' | 'org_admin';

async function setup() {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const act = async (id: string, action: string, body: unknown = {}, role: Role = 'member') =>
    executeAction(vigil.running.services, await agentCaller(vigil, org.id, role), { family: 'deploy_policies', id, action, body });
  const refusal = async (work: Promise<unknown>): Promise<ApiError> => {
    try {
      await work;
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };
  const audit = async () => (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'deploy_policies');
  return { org, api, act, refusal, audit };
}

t.test('a new policy: defaults, and nothing frozen', async (t) => {
  const { api } = await setup();
  const made = await api.post(PATH, { service: 'checkout-api' });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id,
    service: 'checkout-api',
    enabled: true,
    error_budget_threshold: 10,
    burn_rate_block_enabled: true,
    incident_block_enabled: true,
    frozen: false,
    freeze_reason: null,
    freeze_until: null,
    override_active: false,
    override_allow: null,
    override_by: null,
    override_until: null,
    override_reason: null,
    updated_at: START,
  });
  const read = await api.get(`${PATH}/${made.body.data.id}`);
  t.same(read.body.data, made.body.data);
  t.equal(read.headers.get('etag'), made.headers.get('etag'));
  for (const field of ['frozen', 'freeze_reason', 'freeze_until', 'override_active']) {
    const refused = await api.post(PATH, { service: 'other', [field]: field === 'frozen' || field === 'override_active' ? true : 'x' });
    t.equal(refused.status, 422, `create cannot set ${field}`);
    t.same(refused.body.errors, [{ field, message: 'is read-only' }]);
  }
  const custom = await api.post(PATH, { service: 'batch', enabled: false, error_budget_threshold: 0, burn_rate_block_enabled: false, incident_block_enabled: false });
  t.match(custom.body.data, { enabled: false, error_budget_threshold: 0, burn_rate_block_enabled: false, incident_block_enabled: false, frozen: false });
  t.equal((await api.post(PATH, { service: 'frac', error_budget_threshold: 12.5 })).body.data.error_budget_threshold, 12.5, 'a fractional percent is kept');
  t.equal((await api.post(PATH, { service: 'all', error_budget_threshold: 100 })).status, 201);
});

t.test('refused values', async (t) => {
  const { api } = await setup();
  const made = await api.post(PATH, { service: 'api' });
  const rowPath = `${PATH}/${made.body.data.id}`;
  for (const [body, field] of [
    [{ service: 'x', error_budget_threshold: 101 }, 'error_budget_threshold'],
    [{ service: 'x', error_budget_threshold: -0.5 }, 'error_budget_threshold'],
    [{ service: '' }, 'service'],
    [{ service: 's'.repeat(201) }, 'service'],
    [{ enabled: true }, 'service'],
  ] as const) {
    const refused = await api.post(PATH, body);
    t.equal(refused.status, 422, `create refuses ${field}`);
    t.same(refused.body.errors.map((e: { field: string }) => e.field), [field]);
  }
  const over = await api.put(rowPath, { error_budget_threshold: 101 });
  t.equal(over.status, 422);
  t.same(over.body.errors.map((e: { field: string }) => e.field), ['error_budget_threshold']);
  const frozen = await api.put(rowPath, { frozen: true });
  t.equal(frozen.status, 422, 'a freeze cannot be set by PUT');
  t.same(frozen.body.errors, [{ field: 'frozen', message: 'is read-only' }]);
  const read = await api.get(rowPath);
  t.same(read.body.data, made.body.data, 'nothing was written');
});

t.test('rename through service; a rename onto another policy is refused', async (t) => {
  const { api } = await setup();
  const a = (await api.post(PATH, { service: 'payments' })).body.data;
  const b = (await api.post(PATH, { service: 'ledger', error_budget_threshold: 30 })).body.data;
  const renamed = await api.put(`${PATH}/${a.id}`, { service: 'payments-v2' });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.data.service, 'payments-v2');
  t.equal(renamed.body.data.id, a.id, 'the same policy, renamed');
  t.equal((await api.post(PATH, { service: 'payments' })).status, 201, 'the old name is free again');

  const clash = await api.put(`${PATH}/${a.id}`, { service: 'ledger', error_budget_threshold: 50 });
  t.equal(clash.status, 409);
  t.equal(clash.body.error, 'conflict');
  t.same(clash.body.data, b, 'with the policy that holds the name');
  t.equal((await api.get(`${PATH}/${a.id}`)).body.data.service, 'payments-v2', 'nothing was written');
  t.equal((await api.post(PATH, { service: 'ledger' })).status, 409, 'one policy per service');
  t.equal((await api.put(`${PATH}/no-such-id`, { enabled: false })).status, 404);
});

t.test('a freeze is state: set and cleared by actions, outside the ETag, audited', async (t) => {
  const { api, act, audit } = await setup();
  const made = await api.post(PATH, { service: 'checkout-api' });
  const id = made.body.data.id;
  const etag = made.headers.get('etag')!;

  const set = await act(id, 'set_deploy_freeze', { reason: 'quarter close', until: '2026-03-05T00:00:00+02:00' });
  t.equal(set.status, 200);
  t.match(set.data, { frozen: true, freeze_reason: 'quarter close', freeze_until: '2026-03-04T22:00:00.000Z' });
  t.equal(set.etag, etag, 'the action leaves the ETag alone');
  const read = await api.get(`${PATH}/${id}`);
  t.match(read.body.data, { frozen: true, freeze_reason: 'quarter close', freeze_until: '2026-03-04T22:00:00.000Z', error_budget_threshold: 10 });
  t.equal(read.headers.get('etag'), etag, 'the ETag read before the freeze still matches');
  const listed = (await api.get(PATH)).body.data[0];
  t.equal(listed.frozen, true, 'the list says frozen too');

  const put = await api.put(`${PATH}/${id}`, { error_budget_threshold: 20 }, { 'if-match': etag });
  t.equal(put.status, 200, 'an If-Match PUT with the pre-freeze ETag succeeds');
  t.match(put.body.data, { error_budget_threshold: 20, frozen: true, freeze_reason: 'quarter close' }, 'and keeps the freeze');

  const cleared = await act(id, 'clear_deploy_freeze');
  t.match(cleared.data, { frozen: false, freeze_reason: null, freeze_until: null });
  t.match((await api.get(`${PATH}/${id}`)).body.data, { frozen: false, freeze_reason: null, freeze_until: null, error_budget_threshold: 20 });

  const entries = await audit();
  const freeze = entries.filter((e: { action: string }) => e.action === 'action:set_deploy_freeze');
  const clear = entries.filter((e: { action: string }) => e.action === 'action:clear_deploy_freeze');
  t.equal(freeze.length, 1, 'one entry for the freeze');
  t.equal(clear.length, 1, 'one entry for the clear');
  t.equal(freeze[0].row_id, id);
  t.equal(freeze[0].transport, 'mcp');
  t.same(freeze[0].changes.freeze_reason, { before: null, after: 'quarter close' });
  t.same(clear[0].changes.freeze_until, { before: '2026-03-04T22:00:00.000Z', after: null });

  await act(id, 'clear_deploy_freeze');
  t.equal((await audit()).filter((e: { action: string }) => e.action === 'action:clear_deploy_freeze').length, 1, 'clearing a policy without a freeze changes and audits nothing');
});

t.test('a freeze without until lasts until cleared; a timed one lapses', async (t) => {
  t.teardown(() => vigil.clock.set(START));
  const { api, act } = await setup();
  const open = (await api.post(PATH, { service: 'open-ended' })).body.data.id;
  const timed = (await api.post(PATH, { service: 'timed' })).body.data.id;
  t.match((await act(open, 'set_deploy_freeze', { reason: 'incident' })).data, { frozen: true, freeze_until: null });
  await act(timed, 'set_deploy_freeze', { reason: 'release train', until: '2026-03-02T12:00:00Z' });

  vigil.clock.set('2026-03-02T11:59:59.999Z');
  t.equal((await api.get(`${PATH}/${timed}`)).body.data.frozen, true, 'frozen until the last moment');
  vigil.clock.set('2026-03-02T12:00:00.000Z');
  const lapsed = (await api.get(`${PATH}/${timed}`)).body.data;
  t.match(lapsed, { frozen: false, freeze_reason: 'release train', freeze_until: '2026-03-02T12:00:00.000Z' }, 'a lapsed freeze reads not frozen, and still says what it was');
  vigil.clock.set('2027-01-01T00:00:00.000Z');
  t.equal((await api.get(`${PATH}/${open}`)).body.data.frozen, true, 'an open-ended freeze holds');

  const renewed = await act(timed, 'set_deploy_freeze', { reason: 'new freeze' });
  t.match(renewed.data, { frozen: true, freeze_reason: 'new freeze', freeze_until: null }, 'a new freeze replaces the lapsed one');
  const cleared = await act(timed, 'clear_deploy_freeze');
  t.match(cleared.data, { frozen: false, freeze_reason: null, freeze_until: null });
});

t.test('freeze refusals', async (t) => {
  const { api, act, refusal } = await setup();
  const id = (await api.post(PATH, { service: 'api' })).body.data.id;
  const fieldsOf = (e: ApiError) => (e.errors ?? []).map((x) => x.field);

  for (const until of [START, '2026-03-01T11:00:00Z']) {
    const e = await refusal(act(id, 'set_deploy_freeze', { reason: 'r', until }));
    t.equal(e.status, 422, `until ${until} (not after now) is refused`);
    t.same(fieldsOf(e), ['until']);
  }
  for (const [body, field] of [
    [{}, 'reason'],
    [{ reason: '' }, 'reason'],
    [{ reason: 'r'.repeat(501) }, 'reason'],
    [{ reason: 'r', until: 'tomorrow' }, 'until'],
    [{ reason: 'r', frozen: true }, 'frozen'],
  ] as const) {
    const e = await refusal(act(id, 'set_deploy_freeze', body));
    t.equal(e.code, 'validation_failed', `${JSON.stringify(body)} is refused`);
    t.same(fieldsOf(e), [field]);
  }
  t.same(fieldsOf(await refusal(act(id, 'clear_deploy_freeze', { reason: 'x' }))), ['reason'], 'clear takes no input');

  const viewer = await refusal(act(id, 'set_deploy_freeze', { reason: 'r' }, 'viewer'));
  t.equal(viewer.status, 403, 'a viewer cannot freeze');
  t.equal((await refusal(act(id, 'clear_deploy_freeze', {}, 'viewer'))).status, 403, 'nor clear');
  t.equal((await refusal(act('no-such-id', 'set_deploy_freeze', { reason: 'r' }))).status, 404);
  t.equal((await refusal(act(id, 'set_deploy_override', { allow: true }))).status, 404, 'the override is not offered to agents (REST only)');

  const other = await setup();
  t.equal((await refusal(other.act(id, 'set_deploy_freeze', { reason: 'r' }))).status, 404, 'another organization\'s policy is not found');

  const read = (await api.get(`${PATH}/${id}`)).body.data;
  t.match(read, { frozen: false, freeze_reason: null, freeze_until: null }, 'no refusal froze anything');
  t.equal((await act(id, 'set_deploy_freeze', { reason: 'r' }, 'org_admin')).data?.frozen, true, 'an org admin may freeze');
});

t.test('delete removes the policy', async (t) => {
  const { api, audit } = await setup();
  const id = (await api.post(PATH, { service: 'gone' })).body.data.id;
  t.equal((await api.del(`${PATH}/${id}`)).status, 204);
  t.equal((await api.get(`${PATH}/${id}`)).status, 404);
  t.same((await audit()).map((e: { action: string }) => e.action).sort(), ['create', 'delete']);
});
