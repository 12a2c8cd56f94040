import t from 'tap';
import codeHostSettings from '../../resources/code_host_settings.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [serviceBindings, ticketIntegrations, codeHostSettings, ticketImportRules] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/service_bindings`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('PUT of a new pair creates the binding; the id is service/environment', async (t) => {
  const api = await (await vigil.organization()).key();
  t.equal((await api.get(`${PATH}/checkout%2Fprod`)).status, 404, 'no binding before the first PUT');

  const made = await api.put(`${PATH}/checkout/prod`, { account_id: '123456789012', log_groups: ['/aws/lambda/checkout'] });
  t.equal(made.status, 200);
  t.same(made.body.data, {
    id: 'checkout/prod', service: 'checkout', environment: 'prod', account_id: '123456789012', region: null,
    log_groups: ['/aws/lambda/checkout'], log_filter: null, trace_service_names: null, metric_selectors: null,
    updated_at: '2026-03-01T12:00:00.000Z',
  }, 'omitted fields stay unbound (null)');
  t.match(made.headers.get('etag'), /^"[\w-]+"$/);

  const read = await api.get(`${PATH}/checkout%2Fprod`);
  t.equal(read.status, 200, 'an encoded slash reads the same row');
  t.same(read.body.data, made.body.data);
  t.equal(read.headers.get('etag'), made.headers.get('etag'));
  t.same((await api.get(`${PATH}/checkout/prod`)).body.data, made.body.data, 'and so does the plain path');

  const bare = await api.put(`${PATH}/checkout`, {});
  t.equal(bare.status, 200, 'a service alone is a binding with an empty environment');
  t.equal(bare.body.data.id, 'checkout');
  t.equal(bare.body.data.environment, '');
  t.equal((await api.get(`${PATH}/checkout/staging`)).status, 404, 'a pair without an override is not found');

  const list = await api.get(PATH);
  t.same(list.body.data.map((r: { id: string }) => r.id), ['checkout', 'checkout/prod'], 'the list holds only stored overrides, by service then environment');
  t.equal(list.body.truncated, false);
});

t.test('update rules: omitted keeps, a sent list replaces, [] binds nothing, null clears', async (t) => {
  const api = await (await vigil.organization()).key();
  const url = `${PATH}/payments/prod`;
  await api.put(url, {
    account_id: '123456789012', region: 'eu-central-1', log_groups: ['a', 'b'], trace_service_names: ['payments'], log_filter: 'level=error',
    metric_selectors: [{ namespace: 'AWS/ELB', metric_name: 'Latency', dimensions: [{ name: 'LoadBalancer', value: 'pay' }] }],
  });

  const replaced = await api.put(url, { log_groups: ['c'] });
  t.same(replaced.body.data.log_groups, ['c'], 'a sent list replaces the stored one');
  t.same(replaced.body.data.trace_service_names, ['payments'], 'an omitted list keeps its value');
  t.equal(replaced.body.data.region, 'eu-central-1', 'an omitted pin keeps its value');
  t.equal(replaced.body.data.log_filter, 'level=error');

  const emptied = await api.put(url, { trace_service_names: [], metric_selectors: [] });
  t.same(emptied.body.data.trace_service_names, [], '[] deliberately binds nothing');
  t.same(emptied.body.data.metric_selectors, []);
  t.same((await api.get(url)).body.data.trace_service_names, [], '[] is stored, not turned into unbound');

  const unbound = await api.put(url, { log_groups: null, account_id: null, region: null });
  t.equal(unbound.body.data.log_groups, null, 'null falls back to discovery (unbound)');
  t.equal(unbound.body.data.account_id, null, 'null clears the account pin');
  t.equal(unbound.body.data.region, null, 'null clears the region pin');

  const cleared = await api.put(url, { log_filter: '' });
  t.equal(cleared.status, 200);
  t.equal(cleared.body.data.log_filter, null, 'an empty log_filter clears it to unbound');
  t.same(cleared.body.data.trace_service_names, [], 'and touches nothing else');
});

t.test('refusals', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, string, unknown, string][] = [
    ['an 11-digit account', 'checkout/prod', { account_id: '12345678901' }, 'account_id'],
    ['a non-numeric account', 'checkout/prod', { account_id: '12345678901x' }, 'account_id'],
    ['a region that is no region', 'checkout/prod', { region: 'Mars' }, 'region'],
    ['service in the body', 'checkout/prod', { service: 'other' }, 'service'],
    ['environment in the body', 'checkout/prod', { environment: 'dev' }, 'environment'],
    ['an empty log group', 'checkout/prod', { log_groups: [''] }, 'log_groups[0]'],
    ['a repeated log group', 'checkout/prod', { log_groups: ['a', 'a'] }, 'log_groups'],
    ['a selector without metric_name', 'checkout/prod', { metric_selectors: [{ namespace: 'AWS/EC2' }] }, 'metric_selectors[0].metric_name'],
    ['an unknown selector key', 'checkout/prod', { metric_selectors: [{ namespace: 'n', metric_name: 'm', unit: 'x' }] }, 'metric_selectors[0].unit'],
    ['a dimension without value', 'checkout/prod', { metric_selectors: [{ namespace: 'n', metric_name: 'm', dimensions: [{ name: 'd' }] }] }, 'metric_selectors[0].dimensions[0].value'],
    ['a log filter over 2000 characters', 'checkout/prod', { log_filter: 'x'.repeat(2001) }, 'log_filter'],
    ['an id with a second slash', 'checkout/prod/eu', {}, 'id'],
  ];
  for (const [name, id, body, field] of cases) {
    const refused = await api.put(`${PATH}/${id}`, body);
    t.equal(refused.status, 422, `${name} is refused`);
    t.equal(refused.body.error, 'validation_failed');
    t.ok(fieldsOf(refused).includes(field), `${name}: the refusal names ${field}`);
  }
  t.same((await api.get(PATH)).body.data, [], 'a refused PUT creates nothing');

  const post = await api.post(PATH, { account_id: '123456789012' });
  t.equal(post.status, 405, 'there is no POST; a binding is created by PUT');
  t.equal(post.body.error, 'method_not_allowed');

  const reader = await (await vigil.organization()).key(['api:config_read']);
  const readOnly = await reader.put(`${PATH}/checkout/prod`, {});
  t.equal(readOnly.status, 403);
  t.equal(readOnly.body.error, 'read_only_key');
});

t.test('If-Match, delete and the audit log', async (t) => {
  const api = await (await vigil.organization()).key();
  const url = `${PATH}/search/prod`;
  const made = await api.put(url, { region: 'us-east-1' });
  const firstTag = made.headers.get('etag')!;
  t.equal((await api.put(`${PATH}/search/dev`, {}, { 'if-match': '"anything"' })).status, 412, 'If-Match on a pair with no binding is refused');
  t.equal((await api.get(`${PATH}/search/dev`)).status, 404, 'and creates nothing');

  vigil.clock.advance(60_000);
  const changed = await api.put(url, { region: 'eu-west-1' }, { 'if-match': firstTag });
  t.equal(changed.status, 200, 'the current ETag lets the update through');
  t.not(changed.headers.get('etag'), firstTag, 'the ETag follows the configuration');
  t.equal(changed.body.data.updated_at, '2026-03-01T12:01:00.000Z');

  const stale = await api.put(url, { region: 'ap-south-1' }, { 'if-match': firstTag });
  t.equal(stale.status, 412, 'a stale ETag is refused');
  t.equal(stale.body.error, 'precondition_failed');
  t.equal(stale.body.data.region, 'eu-west-1', 'with the current row');
  t.equal((await api.get(url)).body.data.region, 'eu-west-1', 'nothing was written');

  const audit = (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'service_bindings');
  t.same(audit.map((e: { action: string }) => e.action), ['update', 'create'], 'the create and the update are audited, newest first');
  t.equal(audit[0].row_id, 'search/prod');
  t.same(audit[0].changes, { region: { before: 'us-east-1', after: 'eu-west-1' } }, 'the update entry holds before and after');
  t.same(audit[1].changes.service, { before: null, after: 'search' });

  vigil.clock.advance(60_000); // audit entries order by time; a later delete is listed first
  t.equal((await api.del(url, { 'if-match': firstTag })).status, 412, 'a stale ETag stops a delete');
  t.equal((await api.del(url)).status, 204, 'delete removes the override');
  t.equal((await api.get(url)).status, 404);
  t.equal((await api.del(url)).status, 404, 'deleting a missing binding is 404');
  const deleted = (await api.get(`${CONFIG}/audit_log`)).body.data[0];
  t.equal(deleted.action, 'delete', 'the delete is audited');
  t.same(deleted.changes.region, { before: 'eu-west-1', after: null });
});
