/** Domain tools of the families: resolving service bindings, configuring a ticket integration. */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';
import { setDiscoveryProvider, type Discovered } from '../../domain/service-bindings/discovery.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

t.test('resolve_service_bindings: override over discovery over the convention, each with its source', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  let calls = 0;
  const found: Discovered = { region: 'eu-west-1', log_groups: ['/ecs/checkout'] };
  setDiscoveryProvider({ discover: async () => (calls++, found) });
  t.teardown(async () => {
    setDiscoveryProvider(undefined);
    await agent.close();
  });
  const first = await agent.call('resolve_service_bindings', { service: 'checkout', environment: 'prod' });
  t.equal(first.body.data.override_stored, false);
  t.same(first.body.data.fields.region, { value: 'eu-west-1', source: 'discovery' });
  t.same(first.body.data.fields.trace_service_names, { value: ['checkout'], source: 'convention' });
  t.same(first.body.data.fields.log_filter, { value: 'resource.service.name = "checkout" and resource.deployment.environment = "prod"', source: 'convention' });
  t.same(first.body.data.fields.account_id, { value: null, source: 'unbound' });
  await agent.call('resolve_service_bindings', { service: 'checkout', environment: 'prod' });
  t.equal(calls, 1, 'discovery is cached');

  const api = await org.key();
  await api.put(`${CONFIG}/service_bindings/checkout/prod`, { region: 'us-east-1', log_groups: [] });
  const after = await agent.call('resolve_service_bindings', { service: 'checkout', environment: 'prod' });
  t.equal(calls, 2, 'a binding write invalidated the cache');
  t.same(after.body.data.fields.region, { value: 'us-east-1', source: 'override' });
  t.same(after.body.data.fields.log_groups, { value: [], source: 'override' }, '[] binds nothing on purpose, over discovery');
  const bad = await agent.call('resolve_service_bindings', { service: 'a/b' });
  t.equal(bad.body.error, 'validation_failed');
  t.equal(bad.body.errors[0].field, 'service');
});

t.test('configure_ticket_integration creates, then changes, the tracker\'s one row', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.teardown(() => agent.close());
  const made = await agent.call('configure_ticket_integration', { provider: 'issue_tracker', base_url: 'https://acme.tracker.example', account: 'ops@acme.example', api_token: 'trk-secret-1' });
  t.notOk(made.isError);
  t.equal(made.body.data.api_token_set, true);
  t.notOk(JSON.stringify(made.body).includes('trk-secret-1'));
  const changed = await agent.call('configure_ticket_integration', { provider: 'issue_tracker', account: 'bot@acme.example' });
  t.equal(changed.body.data.account, 'bot@acme.example');
  t.equal(changed.body.data.api_token_set, true, 'the omitted token is kept');
  const missing = await agent.call('configure_ticket_integration', { provider: 'sprint_tracker', account: 'x@y.z' });
  t.equal(missing.body.error, 'validation_failed', 'a new tracker needs its required fields');
  const rule = await agent.call('create_ticket_import_rule', { provider: 'issue_tracker', config: { project: 'OPS' } });
  t.notOk(rule.isError, 'the import rule can now be saved');
  const list = await (await org.key()).get(`${CONFIG}/ticket_integrations`);
  t.equal(list.body.data.length, 1, 'one home for the credentials');
});
