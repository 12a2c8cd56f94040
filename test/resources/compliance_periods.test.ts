import t from 'tap';
import aiSettings from '../../resources/ai_settings.ts';
import cloudExternalId from '../../resources/cloud_external_id.ts';
import compliancePeriods from '../../resources/compliance_periods.ts';
import deployPolicies from '../../resources/deploy_policies.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [aiSettings, cloudExternalId, compliancePeriods, deployPolicies] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/compliance_periods`;
const START = '2026-03-01T12:00:00.000Z';
const soc2 = { name: 'SOC 2 2026', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' };

const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

t.test('an enterprise organization creates, reads, lists and deletes periods', async (t) => {
  const api = await (await vigil.organization('enterprise')).key();
  const made = await api.post(PATH, soc2);
  t.equal(made.status, 201);
  const row = made.body.data;
  t.same(row, {
    id: row.id,
    ...soc2,
    status: 'active',
    export_top_hash: null,
    inserted_at: START,
  }, 'the period as created: active today, not exported, inserted now');
  t.equal(made.headers.get('location'), `${vigil.url}${PATH}/${row.id}`);

  const read = await api.get(`${PATH}/${row.id}`);
  t.equal(read.status, 200);
  t.same(read.body.data, row);
  const list = await api.get(PATH);
  t.same(list.body.data, [row]);
  t.equal(list.body.truncated, false);

  const put = await api.put(`${PATH}/${row.id}`, { name: 'renamed' });
  t.equal(put.status, 405, 'periods have no update');
  t.equal(put.body.error, 'method_not_allowed');

  t.equal((await api.del(`${PATH}/${row.id}`)).status, 204);
  t.equal((await api.get(`${PATH}/${row.id}`)).status, 404);
  t.same((await api.get(PATH)).body.data, []);
});

t.test('a plan without compliance is refused on every operation', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  for (const answer of [await api.get(PATH), await api.post(PATH, soc2), await api.get(`${PATH}/anything`), await api.del(`${PATH}/anything`)]) {
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'plan_required');
    t.equal(answer.body.feature, 'compliance');
    t.match(answer.body.message, /business plan/);
  }
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { compliance: true } });
  t.equal((await api.post(PATH, soc2)).status, 201, 'the compliance add-on opens it on a business plan');
});

t.test('dates: real calendar days, ends_on after starts_on, all fields required', async (t) => {
  const api = await (await vigil.organization('enterprise')).key();
  const same = await api.post(PATH, { ...soc2, ends_on: soc2.starts_on });
  t.equal(same.status, 422, 'a window of zero days is refused');
  t.same(fieldsOf(same.body), ['ends_on']);
  const before = await api.post(PATH, { ...soc2, starts_on: '2026-06-01', ends_on: '2026-05-31' });
  t.equal(before.status, 422);
  t.same(fieldsOf(before.body), ['ends_on']);
  const feb30 = await api.post(PATH, { ...soc2, starts_on: '2026-02-30' });
  t.equal(feb30.status, 422);
  t.same(fieldsOf(feb30.body), ['starts_on']);
  for (const bad of ['2026-1-01', '01/02/2026', '2026-01-01T00:00:00Z', '2026-13-01']) {
    const refused = await api.post(PATH, { ...soc2, ends_on: bad });
    t.equal(refused.status, 422, `ends_on ${bad} is refused`);
    t.same(fieldsOf(refused.body), ['ends_on']);
  }
  const missing = await api.post(PATH, {});
  t.equal(missing.status, 422);
  t.same(fieldsOf(missing.body).sort(), ['ends_on', 'framework', 'name', 'starts_on']);
  t.same(fieldsOf((await api.post(PATH, { ...soc2, framework: 'pci_dss' })).body), ['framework']);
  t.same(fieldsOf((await api.post(PATH, { ...soc2, name: 'n'.repeat(121) })).body), ['name']);
  t.same(fieldsOf((await api.post(PATH, { ...soc2, name: '' })).body), ['name']);
  t.same(fieldsOf((await api.post(PATH, { ...soc2, status: 'exported' })).body), ['status']);
  t.same(fieldsOf((await api.post(PATH, { ...soc2, export_top_hash: 'abc' })).body), ['export_top_hash']);
  t.equal((await api.post(PATH, { ...soc2, name: 'n'.repeat(120), starts_on: '2028-02-28', ends_on: '2028-02-29' })).status, 201, 'a one-day step into a leap day is accepted');
  t.same((await api.get(PATH)).body.data.length, 1, 'only the accepted period was stored');
});

t.test('status follows the clock: upcoming, active (inclusive UTC days), ended', async (t) => {
  t.teardown(() => vigil.clock.set(START));
  const api = await (await vigil.organization('enterprise')).key();
  const made = await api.post(PATH, { name: 'Q2 audit', framework: 'iso27001_2022', starts_on: '2026-04-01', ends_on: '2026-06-30' });
  const path = `${PATH}/${made.body.data.id}`;
  const status = async () => (await api.get(path)).body.data.status;
  t.equal(made.body.data.status, 'upcoming');
  vigil.clock.set('2026-03-31T23:59:59.999Z');
  t.equal(await status(), 'upcoming', 'the day before starts_on');
  vigil.clock.set('2026-04-01T00:00:00.000Z');
  t.equal(await status(), 'active', 'from the first moment of starts_on');
  vigil.clock.set('2026-06-30T23:59:59.999Z');
  t.equal(await status(), 'active', 'through the last moment of ends_on');
  vigil.clock.set('2026-07-01T00:00:00.000Z');
  t.equal(await status(), 'ended');
  t.equal((await api.get(PATH)).body.data[0].status, 'ended', 'the list says the same');
  t.equal((await api.get(path)).body.data.export_top_hash, null, 'no export is made by this service');
});

t.test('a duplicate name is refused with the existing row', async (t) => {
  const api = await (await vigil.organization('enterprise')).key();
  const first = await api.post(PATH, soc2);
  const dup = await api.post(PATH, { ...soc2, framework: 'nist_csf_2', starts_on: '2027-01-01', ends_on: '2027-12-31' });
  t.equal(dup.status, 409);
  t.equal(dup.body.error, 'conflict');
  t.same(dup.body.data, first.body.data, 'the answer is the existing row, unchanged');
  t.equal((await api.get(PATH)).body.data.length, 1);
  const other = await (await vigil.organization('enterprise')).key();
  t.equal((await other.post(PATH, soc2)).status, 201, 'names are unique per organization only');
});

t.test('lists answer the latest window first', async (t) => {
  const api = await (await vigil.organization('enterprise')).key();
  const periods = [
    { name: 'old', framework: 'soc2', starts_on: '2024-01-01', ends_on: '2024-12-31' },
    { name: 'latest', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' },
    { name: 'middle', framework: 'cis_cloud', starts_on: '2025-01-01', ends_on: '2025-12-31' },
    { name: 'latest, shorter', framework: 'nist_csf_2', starts_on: '2026-07-01', ends_on: '2026-12-31' },
  ];
  for (const p of periods) t.equal((await api.post(PATH, p)).status, 201);
  const names = (await api.get(PATH)).body.data.map((r: { name: string }) => r.name);
  t.same(names, ['latest, shorter', 'latest', 'middle', 'old'], 'by ends_on, then starts_on, descending');
});

t.test('deleting and creating are audited', async (t) => {
  const api = await (await vigil.organization('enterprise')).key();
  const made = await api.post(PATH, soc2);
  await api.del(`${PATH}/${made.body.data.id}`);
  const entries = (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'compliance_periods');
  t.same(entries.map((e: { action: string }) => e.action).sort(), ['create', 'delete'], 'one entry each (both at the same instant)');
  const created = entries.find((e: { action: string }) => e.action === 'create');
  t.equal(created.row_id, made.body.data.id);
  t.equal(created.changes.name.after, soc2.name);
});
