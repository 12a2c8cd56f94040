/** change_notifications: the destination's cross-field rules, families and actions. */
import t from 'tap';
import changeNotifications from '../../resources/change_notifications.ts';
import outboundConfigs from '../../resources/outbound_configs.ts';
import outboundRules from '../../resources/outbound_rules.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [outboundConfigs, outboundRules, changeNotifications] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/change_notifications`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();
const config = async (api: Client, name = 'hook') =>
  (await api.post(`${CONFIG}/outbound_configs`, { name, kind: 'webhook', url: 'https://hooks.example.com/changes' })).body.data.id as string;

t.test('defaults: every family, every action', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { name: 'all', destination_kind: 'chat', chat_channel: '#ops-changes' });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id, name: 'all', families: ['*'], actions: ['create', 'update', 'delete', 'archive', 'action'],
    destination_kind: 'chat', chat_channel: '#ops-changes', outbound_config_id: null, enabled: true, updated_at: '2026-03-01T12:00:00.000Z',
  });
});

t.test('the destination: each target required with its kind and refused with the other', async (t) => {
  const api = await (await vigil.organization()).key();
  const target = await config(api);
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['chat without a channel', { destination_kind: 'chat' }, ['chat_channel']],
    ['chat with an outbound config', { destination_kind: 'chat', chat_channel: '#ops', outbound_config_id: target }, ['outbound_config_id']],
    ['outbound without a config', { destination_kind: 'outbound' }, ['outbound_config_id']],
    ['outbound with a channel', { destination_kind: 'outbound', outbound_config_id: target, chat_channel: '#ops' }, ['chat_channel']],
    ['outbound with a channel and no config', { destination_kind: 'outbound', chat_channel: '#ops' }, ['chat_channel', 'outbound_config_id']],
    ['no destination kind', { chat_channel: '#ops' }, ['destination_kind']],
    ['a channel without #', { destination_kind: 'chat', chat_channel: 'ops' }, ['chat_channel']],
    ['a channel with capitals', { destination_kind: 'chat', chat_channel: '#Ops' }, ['chat_channel']],
    ['a channel over 80 characters', { destination_kind: 'chat', chat_channel: `#${'a'.repeat(80)}` }, ['chat_channel']],
  ];
  for (const [name, body, fields] of cases) {
    const refused = await api.post(PATH, { name: 'n', ...body });
    t.equal(refused.status, 422, `${name} is refused`);
    t.same(fieldsOf(refused), fields, `${name}: the refusal names ${fields.join(' and ')}`);
  }
  t.equal((await api.post(PATH, { name: 'max', destination_kind: 'chat', chat_channel: `#${'a'.repeat(79)}` })).status, 201, 'an 80-character channel is accepted');
  const openapi = await api.get(`${CONFIG}/openapi.json`);
  t.equal(openapi.status, 200);
  t.ok(JSON.stringify(openapi.body).includes('chat_channel must be set when destination_kind is chat, and only then'), 'the rule documents itself in OpenAPI');
});

t.test('switching destination_kind needs the new target and null for the old one', async (t) => {
  const api = await (await vigil.organization()).key();
  const target = await config(api);
  const made = await api.post(PATH, { name: 'n', destination_kind: 'chat', chat_channel: '#ops' });
  const path = `${PATH}/${made.body.data.id}`;
  const half = await api.put(path, { destination_kind: 'outbound', outbound_config_id: target });
  t.equal(half.status, 422, 'the old channel left in place is refused');
  t.same(fieldsOf(half), ['chat_channel']);
  const whole = await api.put(path, { destination_kind: 'outbound', outbound_config_id: target, chat_channel: null });
  t.equal(whole.status, 200);
  t.same([whole.body.data.destination_kind, whole.body.data.chat_channel, whole.body.data.outbound_config_id], ['outbound', null, target]);
  const foreign = await config(await (await vigil.organization()).key(), 'theirs');
  const refused = await api.put(path, { outbound_config_id: foreign });
  t.equal(refused.status, 422, 'another organization\'s config is refused');
  t.same(fieldsOf(refused), ['outbound_config_id']);
  t.same(fieldsOf(await api.put(path, { outbound_config_id: 'no-such-config' })), ['outbound_config_id'], 'so is an unknown id');
});

t.test('families: names or "*" alone, none repeated; actions from the list', async (t) => {
  const api = await (await vigil.organization()).key();
  const base = { name: 'n', destination_kind: 'chat', chat_channel: '#ops' };
  const cases: [Record<string, unknown>, string[]][] = [
    [{ families: ['*', 'slos'] }, ['families']],
    [{ families: ['*', '*'] }, ['families']],
    [{ families: ['slos', 'slos'] }, ['families']],
    [{ families: [] }, ['families']],
    [{ families: ['SLOs', 'deploy-policies', '9lives'] }, ['families[0]', 'families[1]', 'families[2]']],
    [{ actions: [] }, ['actions']],
    [{ actions: ['create', 'rename'] }, ['actions[1]']],
    [{ actions: ['update', 'update'] }, ['actions']],
  ];
  for (const [extra, fields] of cases) {
    const refused = await api.post(PATH, { ...base, ...extra });
    t.equal(refused.status, 422, JSON.stringify(extra));
    t.same(fieldsOf(refused), fields);
  }
  const made = await api.post(PATH, { ...base, families: ['deploy_policies', 'alert_mutes'], actions: ['action'] });
  t.same([made.body.data.families, made.body.data.actions], [['deploy_policies', 'alert_mutes'], ['action']]);
  const star = await api.put(`${PATH}/${made.body.data.id}`, { families: ['*'] });
  t.same(star.body.data.families, ['*'], 'a sent list replaces the stored one');
});
