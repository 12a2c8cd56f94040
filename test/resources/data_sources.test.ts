/** data_sources: account id format and natural key, create-only account, regions as a set, the role answered but never the external id. */
import t from 'tap';
import dataSources from '../../resources/data_sources.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [dataSources] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/data_sources`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const BODY = { account_id: '123456789012', role_name: 'VigilReadOnly', regions: ['us-east-1', 'eu-west-1'] };

t.test('the role is answered; the organization\'s external id never is', async (t) => {
  const api = await (await vigil.organization()).key();
  const externalId = (await api.get(`${CONFIG}/cloud_external_id`)).body.data.external_id as string;
  const made = await api.post(PATH, BODY);
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id, account_id: '123456789012', role_name: 'VigilReadOnly', regions: ['us-east-1', 'eu-west-1'], enabled: true,
    last_verified_at: null, last_error: null, created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z',
  });
  for (const answer of [made, await api.get(`${PATH}/${made.body.data.id}`), await api.get(PATH), await api.get(`${CONFIG}/export?format=hcl`)]) {
    t.notOk(JSON.stringify(answer.body).includes(externalId), 'the external id is not answered with a data source');
  }
  const cloud = await api.get(`${CONFIG}/cloud_external_id`);
  t.notOk(JSON.stringify(cloud.body).includes('VigilReadOnly'), 'and cloud_external_id never answers the role');
  t.equal((await api.post(PATH, { ...BODY, external_id: externalId })).status, 422, 'an external id cannot be sent');
});

t.test('account ids', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const [name, account_id] of [
    ['eleven digits', '12345678901'], ['thirteen digits', '1234567890123'], ['a letter', '12345678901a'],
    ['dashes', '1234-5678-9012'], ['a number', 123456789012], ['spaces around', ' 123456789012 '], ['empty', ''],
  ] as const) {
    const answer = await api.post(PATH, { ...BODY, account_id });
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), ['account_id'], `${name} names account_id`);
  }
  t.equal((await api.post(PATH, { ...BODY, account_id: '000000000001' })).status, 201, 'leading zeros are part of the id');
});

t.test('one data source per account: a duplicate answers 409; the account is set on create only', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, BODY);
  const dup = await api.post(PATH, { ...BODY, role_name: 'Other', regions: ['eu-central-1'] });
  t.equal(dup.status, 409);
  t.equal(dup.body.error, 'conflict');
  t.same(dup.body.data, made.body.data, 'with the existing row, unchanged');
  const moved = await api.put(`${PATH}/${made.body.data.id}`, { account_id: '210987654321' });
  t.equal(moved.status, 422, 'the account cannot be changed');
  t.same(fieldsOf(moved), ['account_id']);
  const other = await (await vigil.organization()).key();
  t.equal((await other.post(PATH, BODY)).status, 201, 'another organization may use the same account');
});

t.test('regions: at least one, none repeated, the full list', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, unknown, string][] = [
    ['a repeated region', ['us-east-1', 'eu-west-1', 'us-east-1'], 'regions'],
    ['no region', [], 'regions'],
    ['a region that is no region name', ['us-east-1', 'Moon'], 'regions[1]'],
    ['a string instead of a list', 'us-east-1', 'regions'],
    ['51 regions', Array.from({ length: 51 }, (_, i) => `us-east-${i + 1}`), 'regions'],
  ];
  for (const [name, regions, field] of cases) {
    const answer = await api.post(PATH, { ...BODY, regions });
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), [field], `${name} names ${field}`);
  }
  const made = await api.post(PATH, BODY);
  const path = `${PATH}/${made.body.data.id}`;
  t.same((await api.put(path, { regions: ['ap-southeast-2'] })).body.data.regions, ['ap-southeast-2'], 'a sent list replaces the stored one');
  const repeated = await api.put(path, { regions: ['ap-southeast-2', 'ap-southeast-2'] });
  t.same(fieldsOf(repeated), ['regions'], 'on update too');
  t.same(fieldsOf(await api.put(path, { regions: [] })), ['regions']);
});

t.test('role names', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const [role_name, status] of [['a+b=c,d.e@f_g-h', 201], ['r'.repeat(64), 201], ['r'.repeat(65), 422], ['with space', 422], ['path/role', 422], ['', 422]] as const) {
    const answer = await api.post(PATH, { ...BODY, account_id: String(100000000000 + role_name.length), role_name });
    t.equal(answer.status, status, `${JSON.stringify(role_name).slice(0, 20)}`);
    if (status === 422) t.same(fieldsOf(answer), ['role_name']);
  }
});

t.test('writes need the org admin role; results are read-only and never change the ETag', async (t) => {
  const org = await vigil.organization();
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => member.close());
  const refused = await member.call('create_data_source', BODY);
  t.ok(refused.isError);
  t.equal(refused.body.error, 'forbidden');
  const api = await org.key();
  const made = await api.post(PATH, BODY);
  t.notOk((await member.call('get_data_source', { id: made.body.data.id })).isError, 'a member reads');
  const path = `${PATH}/${made.body.data.id}`;
  for (const field of ['last_verified_at', 'last_error']) t.same(fieldsOf(await api.put(path, { [field]: null })), [field], `${field} is read-only`);
  const db = vigil.running.services.db.em.fork();
  await db.execute(`update cfg_data_sources set last_verified_at = ?, last_error = 'AccessDenied' where id = ?`, ['2026-03-01T11:00:00Z', made.body.data.id]);
  const read = await api.get(path);
  t.match(read.body.data, { last_verified_at: '2026-03-01T11:00:00.000Z', last_error: 'AccessDenied' });
  t.equal(read.headers.get('etag'), made.headers.get('etag'), 'a verification is not configuration');
});
