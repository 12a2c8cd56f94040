import t from 'tap';
import codeHostSettings from '../../resources/code_host_settings.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [serviceBindings, ticketIntegrations, codeHostSettings, ticketImportRules] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/ticket_integrations`;
const TOKEN = 'tok-very-secret-0001';
const NEW_TOKEN = 'tok-very-secret-0002';
const BODY = { provider: 'issue_tracker', base_url: 'https://acme.tracker.example.com', account: 'ops@acme.example', api_token: TOKEN };
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
/** whether a token value, or an `api_token` member of a row, appears anywhere in an answer */
const leaks = (answer: unknown) => /tok-very-secret/.test(JSON.stringify(answer)) || /"api_token":/.test(JSON.stringify((answer as { data?: unknown })?.data ?? null));

t.test('create, read and list never answer the token', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, BODY);
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: 'issue_tracker', provider: 'issue_tracker', base_url: 'https://acme.tracker.example.com', account: 'ops@acme.example',
    api_token_set: true, signing_secret_set: false, enabled: true, updated_at: '2026-03-01T12:00:00.000Z',
  });
  t.equal(made.headers.get('location'), `${vigil.url}${PATH}/issue_tracker`, 'the path id is the tracker kind');
  t.notOk(leaks(made.body), 'not in the create answer');

  const read = await api.get(`${PATH}/issue_tracker`);
  t.same(read.body.data, made.body.data);
  t.notOk(leaks(read.body), 'not in a read');
  const list = await api.get(PATH);
  t.same(list.body.data, [made.body.data]);
  t.notOk(leaks(list.body), 'not in a list');
  t.equal((await api.get(`${PATH}/sprint_tracker`)).status, 404, 'a tracker without credentials is not found');

  const dup = await api.post(PATH, { ...BODY, api_token: NEW_TOKEN, account: 'someone-else' });
  t.equal(dup.status, 409, 'one row per tracker');
  t.equal(dup.body.error, 'conflict');
  t.same(dup.body.data, made.body.data, 'the 409 carries the existing row, unchanged');
  t.notOk(leaks(dup.body), 'not in the 409 data');

  const stale = await api.put(`${PATH}/issue_tracker`, { api_token: NEW_TOKEN }, { 'if-match': '"stale"' });
  t.equal(stale.status, 412);
  t.notOk(leaks(stale.body), 'not in the 412 data');
});

t.test('an omitted token is kept; a sent one replaces it; the audit log shows markers only', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, BODY);
  vigil.clock.advance(1000);
  const renamed = await api.put(`${PATH}/issue_tracker`, { account: 'oncall@acme.example', enabled: false });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.data.api_token_set, true, 'an omitted token keeps the stored one');
  t.equal(renamed.body.data.account, 'oncall@acme.example');
  t.equal(renamed.body.data.enabled, false);

  vigil.clock.advance(1000);
  const rotated = await api.put(`${PATH}/issue_tracker`, { api_token: NEW_TOKEN });
  t.equal(rotated.status, 200);
  t.equal(rotated.body.data.api_token_set, true);
  t.not(rotated.headers.get('etag'), renamed.headers.get('etag'), 'a new token changes the ETag');
  t.not(made.headers.get('etag'), renamed.headers.get('etag'));

  const audit = await api.get(`${CONFIG}/audit_log`);
  t.notOk(/tok-very-secret/.test(JSON.stringify(audit.body)), 'no audit entry holds the token');
  const entries = audit.body.data.filter((e: { family: string }) => e.family === 'ticket_integrations');
  t.same(entries.map((e: { action: string }) => e.action), ['update', 'update', 'create']);
  t.equal(entries[2].changes.api_token, '(set)', 'the create says the token was set');
  t.notOk('api_token' in entries[1].changes, 'the update without a token does not mention it');
  t.equal(entries[0].changes.api_token, '(changed)', 'a new token shows as changed');
});

t.test('refusals', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, unknown, string][] = [
    ['a missing provider', { ...BODY, provider: undefined }, 'provider'],
    ['code_host, which needs no credentials', { ...BODY, provider: 'code_host' }, 'provider'],
    ['a base_url that is no URL', { ...BODY, base_url: 'tracker' }, 'base_url'],
    ['a plain-http base_url', { ...BODY, base_url: 'http://acme.tracker.example.com' }, 'base_url'],
    ['a missing base_url', { ...BODY, base_url: undefined }, 'base_url'],
    ['a missing account', { ...BODY, account: undefined }, 'account'],
    ['an empty account', { ...BODY, account: '' }, 'account'],
    ['a missing token', { ...BODY, api_token: undefined }, 'api_token'],
    ['an empty token', { ...BODY, api_token: '' }, 'api_token'],
    ['a URL given as the token', { ...BODY, api_token: 'https://acme.tracker.example.com' }, 'api_token'],
    ['the read-only presence flag', { ...BODY, api_token_set: true }, 'api_token_set'],
  ];
  for (const [name, body, field] of cases) {
    const refused = await api.post(PATH, body);
    t.equal(refused.status, 422, `${name} is refused`);
    t.ok(fieldsOf(refused).includes(field), `${name}: the refusal names ${field}`);
    t.notOk(leaks(refused.body), `${name}: the refusal does not echo the token`);
  }
  t.same((await api.get(PATH)).body.data, [], 'nothing was stored');

  await api.post(PATH, BODY);
  const move = await api.put(`${PATH}/issue_tracker`, { provider: 'sprint_tracker' });
  t.equal(move.status, 422, 'the tracker cannot be changed after create');
  t.same(fieldsOf(move), ['provider']);
  t.equal((await api.put(`${PATH}/sprint_tracker`, { account: 'x' })).status, 404, 'an update of a tracker without a row is 404');
});

t.test('plan: every operation but delete needs ticket systems', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  t.equal((await api.post(PATH, BODY)).status, 201);
  const off = await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { ticket_systems: false } });
  t.equal(off.status, 200);

  const create = await api.post(PATH, { ...BODY, provider: 'sprint_tracker' });
  t.equal(create.status, 403, 'create is refused');
  t.equal(create.body.error, 'plan_required');
  t.match(create.body.message, /not included in the business plan/);
  for (const [name, answer] of [
    ['list', await api.get(PATH)],
    ['read', await api.get(`${PATH}/issue_tracker`)],
    ['update', await api.put(`${PATH}/issue_tracker`, { enabled: false })],
  ] as const) {
    t.equal(answer.status, 403, `${name} is refused`);
    t.equal(answer.body.error, 'plan_required');
  }
  t.equal((await api.del(`${PATH}/issue_tracker`)).status, 204, 'delete still works, so a token cannot be trapped');

  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { ticket_systems: true } });
  t.same((await api.get(PATH)).body.data, [], 'the credentials are gone');
});
