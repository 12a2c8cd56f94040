/** outbound_rules: event kinds named by index, the config reference, filters. */
import t from 'tap';
import changeNotifications from '../../resources/change_notifications.ts';
import outboundConfigs from '../../resources/outbound_configs.ts';
import outboundRules from '../../resources/outbound_rules.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [outboundConfigs, outboundRules, changeNotifications] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/outbound_rules`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const config = async (api: Client, name = 'pager') =>
  (await api.post(`${CONFIG}/outbound_configs`, { name, kind: 'pager', url: 'https://events.pager.example.com/v2/enqueue', routing_key: 'R0ut1ngKeyOfTheServic3Integrat10n' })).body.data.id as string;

t.test('defaults, and events and filters replaced whole', async (t) => {
  const api = await (await vigil.organization()).key();
  const target = await config(api);
  const made = await api.post(PATH, { name: 'alerts', events: ['alert.fired', 'alert.resolved'], outbound_config_id: target });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id, name: 'alerts', events: ['alert.fired', 'alert.resolved'], outbound_config_id: target,
    filters: {}, enabled: true, updated_at: '2026-03-01T12:00:00.000Z',
  });
  const path = `${PATH}/${made.body.data.id}`;
  const filtered = await api.put(path, { filters: { services: ['checkout'], severities: ['critical', 'high'] } });
  t.same(filtered.body.data.filters, { services: ['checkout'], severities: ['critical', 'high'] });
  const narrowed = await api.put(path, { filters: { sources: ['monitoring-a'] }, events: ['incident.opened'] });
  t.same(narrowed.body.data.filters, { sources: ['monitoring-a'] }, 'a sent filters object replaces the stored one');
  t.same(narrowed.body.data.events, ['incident.opened'], 'a sent events list replaces the stored one');
  t.same((await api.put(path, { enabled: false })).body.data.filters, { sources: ['monitoring-a'] }, 'an omitted one is kept');
  t.same((await api.put(path, { filters: {} })).body.data.filters, {}, '{} removes every filter');
});

t.test('event kinds: an unknown one is named by its index; none repeated; at least one', async (t) => {
  const api = await (await vigil.organization()).key();
  const target = await config(api);
  const body = (events: unknown) => ({ name: 'r', events, outbound_config_id: target });
  const unknown = await api.post(PATH, body(['alert.fired', 'card.created', 'alert.exploded', 'incident.reopened']));
  t.equal(unknown.status, 422);
  t.same(fieldsOf(unknown), ['events[2]', 'events[3]']);
  t.match(unknown.body.errors[0].message, /alert\.fired, alert\.resolved, alert\.acknowledged, incident\.opened/, 'the message lists the event kinds');
  const repeated = await api.post(PATH, body(['alert.fired', 'alert.fired']));
  t.same(fieldsOf(repeated), ['events']);
  t.same(fieldsOf(await api.post(PATH, body([]))), ['events'], 'an empty list is refused');
  t.same(fieldsOf(await api.post(PATH, { name: 'r', outbound_config_id: target })), ['events'], 'events is required');
  const all = ['alert.fired', 'alert.resolved', 'alert.acknowledged', 'incident.opened', 'incident.closed', 'card.created', 'card.updated', 'deployment.recorded', 'fix_request.finished'];
  t.equal((await api.post(PATH, body(all))).status, 201, 'every event kind is accepted');
});

t.test('outbound_config_id: unknown and foreign ids are refused by name, through REST and MCP', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const other = await (await vigil.organization()).key();
  const foreign = await config(other, 'theirs');
  const mine = await config(api);
  for (const id of [foreign, 'no-such-config']) {
    const refused = await api.post(PATH, { name: 'r', events: ['alert.fired'], outbound_config_id: id });
    t.equal(refused.status, 422);
    t.same(fieldsOf(refused), ['outbound_config_id']);
  }
  const made = await api.post(PATH, { name: 'r', events: ['alert.fired'], outbound_config_id: mine });
  const moved = await api.put(`${PATH}/${made.body.data.id}`, { outbound_config_id: foreign });
  t.equal(moved.status, 422, 'an update cannot point a rule at another organization\'s config');
  t.same(fieldsOf(moved), ['outbound_config_id']);
  t.same(fieldsOf(await api.put(`${PATH}/${made.body.data.id}`, { outbound_config_id: null })), ['outbound_config_id'], 'a rule always names a config');

  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => agent.close());
  const viaMcp = await agent.call('create_outbound_rule', { name: 'mcp', events: ['alert.fired'], outbound_config_id: foreign });
  t.equal(viaMcp.isError, true);
  t.same(viaMcp.body.errors.map((e: { field: string }) => e.field), ['outbound_config_id'], 'the agent-tool endpoint refuses the same way');
  const ok = await agent.call('create_outbound_rule', { name: 'mcp', events: ['alert.fired'], outbound_config_id: mine });
  t.equal(ok.isError, false, 'a member may create rules');
});

t.test('filters: unknown keys, severities and repeats are named', async (t) => {
  const api = await (await vigil.organization()).key();
  const target = await config(api);
  const cases: [unknown, string[]][] = [
    [{ teams: ['a'] }, ['filters.teams']],
    [{ severities: ['critical', 'urgent'] }, ['filters.severities[1]']],
    [{ services: ['a', 'a'], sources: ['x', 'x'] }, ['filters.services', 'filters.sources']],
    [{ services: [''] }, ['filters.services[0]']],
    [{ services: 'checkout' }, ['filters.services']],
  ];
  for (const [filters, fields] of cases) {
    const refused = await api.post(PATH, { name: 'r', events: ['alert.fired'], outbound_config_id: target, filters });
    t.equal(refused.status, 422, JSON.stringify(filters));
    t.same(fieldsOf(refused), fields);
  }
});
