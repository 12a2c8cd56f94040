import t from 'tap';
import codeHostSettings from '../../resources/code_host_settings.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [serviceBindings, ticketIntegrations, codeHostSettings, ticketImportRules] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/ticket_import_rules`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

async function saveCredentials(api: Client, provider: string) {
  const made = await api.post(`${CONFIG}/ticket_integrations`, { provider, base_url: 'https://tracker.example.com', account: 'ops@acme.example', api_token: 'tok-0001' });
  if (made.status !== 201) throw new Error(`credentials not saved: ${JSON.stringify(made.body)}`);
}

async function connectCodeHost(api: Client) {
  const saved = await api.put(`${CONFIG}/code_host_settings`, { installation_id: '4815162342', account: 'acme' });
  if (saved.status !== 200) throw new Error(`code host not connected: ${JSON.stringify(saved.body)}`);
}

t.test('a tracker\'s prerequisite must be in place first', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const provider of ['issue_tracker', 'sprint_tracker', 'code_host']) {
    const refused = await api.post(PATH, { provider });
    t.equal(refused.status, 422, `${provider} is refused before its prerequisite exists`);
    t.same(fieldsOf(refused), ['provider'], 'the refusal names provider');
    const disabled = await api.post(PATH, { provider, enabled: false });
    t.equal(disabled.status, 422, `${provider}: a disabled rule is refused too`);
  }
  t.match((await api.post(PATH, { provider: 'issue_tracker' })).body.errors[0].message, /credentials/, 'the reason says credentials are needed');
  t.match((await api.post(PATH, { provider: 'code_host' })).body.errors[0].message, /installation/, 'and for code_host the app installation');

  await saveCredentials(api, 'sprint_tracker');
  t.equal((await api.post(PATH, { provider: 'issue_tracker' })).status, 422, 'another tracker\'s credentials do not count');
  t.equal((await api.post(PATH, { provider: 'sprint_tracker' })).status, 201, 'with its credentials saved the rule is created');

  await api.put(`${CONFIG}/code_host_settings`, { account: 'acme' });
  t.equal((await api.post(PATH, { provider: 'code_host' })).status, 422, 'code host settings without an installation id are not enough');
  await connectCodeHost(api);
  t.equal((await api.post(PATH, { provider: 'code_host', config: { repo: 'acme/checkout' } })).status, 201, 'a connected code host is enough');
});

t.test('one rule per tracker, read by tracker kind; saving imports nothing', async (t) => {
  const api = await (await vigil.organization()).key();
  await saveCredentials(api, 'issue_tracker');
  const made = await api.post(PATH, { provider: 'issue_tracker', config: { project: 'OPS', label: 'incident' } });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: 'issue_tracker', provider: 'issue_tracker', config: { project: 'OPS', label: 'incident' }, enabled: true,
    last_run_at: null, last_run_counts: null, updated_at: '2026-03-01T12:00:00.000Z',
  }, 'no run has happened: saving imports nothing');
  t.equal(made.headers.get('location'), `${vigil.url}${PATH}/issue_tracker`);

  const read = await api.get(`${PATH}/issue_tracker`);
  t.equal(read.status, 200, 'the path id is the tracker kind');
  t.same(read.body.data, made.body.data);
  t.equal((await api.get(`${PATH}/sprint_tracker`)).status, 404, 'a tracker without a rule is not found');
  t.equal((await api.get(`${PATH}/code_host`)).status, 404);
  t.same((await api.get(PATH)).body.data.map((r: { id: string }) => r.id), ['issue_tracker'], 'and absent from the list');

  const dup = await api.post(PATH, { provider: 'issue_tracker', config: { project: 'OTHER' } });
  t.equal(dup.status, 409, 'a second rule for the same tracker is refused');
  t.equal(dup.body.error, 'conflict');
  t.same(dup.body.data, made.body.data, 'with the existing rule, unchanged');

  const readOnly = await api.put(`${PATH}/issue_tracker`, { last_run_at: '2026-03-01T12:00:00Z', last_run_counts: {} });
  t.equal(readOnly.status, 422, 'run results cannot be written');
  t.same(fieldsOf(readOnly).sort(), ['last_run_at', 'last_run_counts']);
  const move = await api.put(`${PATH}/issue_tracker`, { provider: 'sprint_tracker' });
  t.equal(move.status, 422, 'the tracker is fixed at create');
  t.same(fieldsOf(move), ['provider']);
  t.equal((await api.put(`${PATH}/sprint_tracker`, { enabled: false })).status, 404, 'an update of a tracker without a rule is 404');
});

t.test('config is rebuilt whole when sent and kept when omitted', async (t) => {
  const api = await (await vigil.organization()).key();
  await saveCredentials(api, 'issue_tracker');
  const url = `${PATH}/issue_tracker`;
  await api.post(PATH, { provider: 'issue_tracker', config: { project: 'OPS', label: 'incident' } });

  const rebuilt = await api.put(url, { config: { project: 'SRE' } });
  t.equal(rebuilt.status, 200);
  t.same(rebuilt.body.data.config, { project: 'SRE' }, 'a key left out is dropped, not merged');
  const kept = await api.put(url, { enabled: false });
  t.same(kept.body.data.config, { project: 'SRE' }, 'an omitted config is kept');
  t.equal(kept.body.data.enabled, false, 'a disabled rule is kept');
  const cleared = await api.put(url, { config: {} });
  t.same(cleared.body.data.config, {}, '{} clears it');
  t.same((await api.get(url)).body.data.config, {});
});

t.test('config keys and values are checked per tracker', async (t) => {
  const api = await (await vigil.organization()).key();
  await saveCredentials(api, 'issue_tracker');
  await saveCredentials(api, 'sprint_tracker');
  await connectCodeHost(api);
  const cases: [string, unknown, string][] = [
    ['a key issue_tracker does not have', { provider: 'issue_tracker', config: { project: 'OPS', item_type: 'Bug' } }, 'config.item_type'],
    ['a key sprint_tracker does not have', { provider: 'sprint_tracker', config: { label: 'x' } }, 'config.label'],
    ['a key code_host does not have', { provider: 'code_host', config: { project: 'OPS' } }, 'config.project'],
    ['a repo that is not owner/name', { provider: 'code_host', config: { repo: 'checkout' } }, 'config.repo'],
    ['a repo with a third part', { provider: 'code_host', config: { repo: 'acme/checkout/extra' } }, 'config.repo'],
    ['a blank value', { provider: 'issue_tracker', config: { project: '   ' } }, 'config.project'],
    ['an empty value', { provider: 'sprint_tracker', config: { item_type: '' } }, 'config.item_type'],
    ['a value that is no string', { provider: 'issue_tracker', config: { project: 12 } }, 'config.project'],
    ['config that is no object', { provider: 'issue_tracker', config: ['OPS'] }, 'config'],
    ['an unknown tracker', { provider: 'pager' }, 'provider'],
    ['no tracker', { config: {} }, 'provider'],
  ];
  for (const [name, body, field] of cases) {
    const refused = await api.post(PATH, body);
    t.equal(refused.status, 422, `${name} is refused`);
    t.ok(fieldsOf(refused).includes(field), `${name}: the refusal names ${field}`);
  }
  t.same((await api.get(PATH)).body.data, [], 'no refused rule was stored');

  for (const [provider, config] of [
    ['issue_tracker', { project: 'OPS', label: 'incident' }],
    ['sprint_tracker', { project: '10042', item_type: 'Bug' }],
    ['code_host', { repo: 'acme/checkout.web', label: 'vigil' }],
  ] as const) {
    t.equal((await api.post(PATH, { provider, config })).status, 201, `${provider} accepts its own keys`);
  }
  const update = await api.put(`${PATH}/code_host`, { config: { repo: 'acme/x', item_type: 'Bug' } });
  t.equal(update.status, 422, 'an update is checked the same way');
  t.same(fieldsOf(update), ['config.item_type']);
});

t.test('credentials deleted after the rule was saved', async (t) => {
  const api = await (await vigil.organization()).key();
  await saveCredentials(api, 'issue_tracker');
  const url = `${PATH}/issue_tracker`;
  await api.post(PATH, { provider: 'issue_tracker', config: { project: 'OPS' } });
  t.equal((await api.del(`${CONFIG}/ticket_integrations/issue_tracker`)).status, 204);

  t.equal((await api.get(url)).status, 200, 'the rule stays');
  const edit = await api.put(url, { config: { project: 'SRE' } });
  t.equal(edit.status, 422, 'an enabled rule cannot be changed without credentials');
  t.same(fieldsOf(edit), ['provider']);
  t.equal((await api.put(url, { enabled: false })).status, 200, 'it can be disabled');
  t.same((await api.put(url, { config: { project: 'SRE' } })).body.data.config, { project: 'SRE' }, 'a disabled rule can be changed');
  t.equal((await api.put(url, { enabled: true })).status, 422, 'it cannot be enabled again until credentials are saved');
  await saveCredentials(api, 'issue_tracker');
  t.equal((await api.put(url, { enabled: true })).body.data.enabled, true, 'with credentials it can');
});

t.test('plan: every operation but delete needs ticket systems', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key();
  await saveCredentials(api, 'issue_tracker');
  t.equal((await api.post(PATH, { provider: 'issue_tracker' })).status, 201);
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { ticket_systems: false } });

  for (const [name, answer] of [
    ['create', await api.post(PATH, { provider: 'sprint_tracker' })],
    ['list', await api.get(PATH)],
    ['read', await api.get(`${PATH}/issue_tracker`)],
    ['update', await api.put(`${PATH}/issue_tracker`, { enabled: false })],
  ] as const) {
    t.equal(answer.status, 403, `${name} is refused`);
    t.equal(answer.body.error, 'plan_required');
  }
  t.equal((await api.del(`${PATH}/issue_tracker`)).status, 204, 'delete is allowed on a plan without ticket systems');
  t.equal((await api.del(`${PATH}/issue_tracker`)).status, 404, 'and the rule is gone');
});
