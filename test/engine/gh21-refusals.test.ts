/**
 * Issue 21, refusals that misled: each answered through REST and the agent tools alike (the rule lives once, in
 * engine/operations). `If-Match` on a row that does not exist says so; a row tool without its id is a validation error
 * naming `id`; an ETag sent without its quotes is the same ETag.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

async function setUp() {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  return { api, agent };
}

t.test('If-Match on a service binding that does not exist: 412 saying no row exists, nothing created', async (t) => {
  const { api, agent } = await setUp();
  t.teardown(() => agent.close());
  for (const tag of ['*', '"stale-tag"']) {
    const rest = await api.put(`${CONFIG}/service_bindings/checkout/prod`, { region: 'eu-west-1' }, { 'if-match': tag });
    t.equal(rest.status, 412, `REST, If-Match ${tag}`);
    t.equal(rest.body.error, 'precondition_failed');
    t.equal(rest.body.data, null, 'no current row to show');
    t.match(rest.body.message, /no row .*exists/i, 'the message says the row does not exist');
    t.notMatch(rest.body.message, /changed since/, 'and not that it changed');

    const mcp = await agent.call('update_service_binding', { id: 'checkout/prod', region: 'eu-west-1', if_match: tag });
    t.ok(mcp.isError, `MCP, if_match ${tag}`);
    t.equal(mcp.body.error, 'precondition_failed');
    t.equal(mcp.body.data, null);
    t.match(mcp.body.message, /no row .*exists/i);
  }
  t.equal((await api.get(`${CONFIG}/service_bindings/checkout/prod`)).status, 404, 'nothing was created');
  const created = await api.put(`${CONFIG}/service_bindings/checkout/prod`, { region: 'eu-west-1' });
  t.equal(created.status, 200, 'without If-Match the write creates it');
  t.equal((await api.put(`${CONFIG}/service_bindings/checkout/prod`, { region: 'us-east-1' }, { 'if-match': '*' })).status, 200, '* holds once the row exists');
  const stale = await api.put(`${CONFIG}/service_bindings/checkout/prod`, { region: 'eu-west-1' }, { 'if-match': created.headers.get('etag')! });
  t.equal(stale.status, 412, 'a stale tag on a stored row is still refused');
  t.match(stale.body.message, /changed since/);
  t.equal(stale.body.data.region, 'us-east-1', 'with the current row');
});

t.test('a row tool without its id: validation_failed naming id, not not_found', async (t) => {
  const { agent } = await setUp();
  t.teardown(() => agent.close());
  const cases: [string, Record<string, unknown>][] = [
    ['get_team', {}],
    ['update_team', { description: 'x' }],
    ['delete_team', {}],
    ['get_team', { id: '' }],
    ['get_team', { id: 42 }],
    ['set_deploy_freeze', { reason: 'release train' }],
  ];
  for (const [tool, args] of cases) {
    const answer = await agent.call(tool, args);
    t.ok(answer.isError, `${tool} ${JSON.stringify(args)}`);
    t.equal(answer.body.error, 'validation_failed', `${tool} ${JSON.stringify(args)}: a validation error`);
    t.equal(answer.body.errors?.[0]?.field, 'id', 'naming id');
  }
  const wrongTag = await agent.call('update_team', { id: 'x', if_match: 7 });
  t.equal(wrongTag.body.error, 'validation_failed', 'an if_match that is not a string is refused, not ignored');
  t.equal(wrongTag.body.errors[0].field, 'if_match');
  const unknown = await agent.call('get_team', { id: '00000000-0000-4000-8000-000000000000' });
  t.equal(unknown.body.error, 'not_found', 'an id with no row stays not_found');
});

t.test('an ETag sent without its quotes is the same ETag, through REST and MCP', async (t) => {
  const { api, agent } = await setUp();
  t.teardown(() => agent.close());
  const created = await api.post(`${CONFIG}/teams`, { name: 'sre' });
  const id = created.body.data.id as string;
  const quoted = created.headers.get('etag')!;
  const bare = quoted.slice(1, -1);
  t.match(quoted, /^".+"$/, 'ETags are answered quoted');

  const rest = await api.put(`${CONFIG}/teams/${id}`, { description: 'rest' }, { 'if-match': bare });
  t.equal(rest.status, 200, 'REST: the bare tag holds');
  const restStale = await api.put(`${CONFIG}/teams/${id}`, { description: 'again' }, { 'if-match': bare });
  t.equal(restStale.status, 412, 'REST: a bare tag that no longer matches is still stale');

  const read = await agent.call('get_team', { id });
  const etag = read.body.etag as string;
  const mcp = await agent.call('update_team', { id, description: 'mcp', if_match: etag.slice(1, -1) });
  t.notOk(mcp.isError, 'MCP: the bare tag holds');
  t.equal(mcp.body.data.description, 'mcp');
  const mcpStale = await agent.call('update_team', { id, description: 'again', if_match: etag.slice(1, -1) });
  t.equal(mcpStale.body.error, 'precondition_failed', 'MCP: a bare stale tag is refused');

  await api.post(`${CONFIG}/deploy_policies`, { service: 'checkout' });
  const policy = await agent.call('get_deploy_policy', { id: (await api.get(`${CONFIG}/deploy_policies`)).body.data[0].id });
  const frozen = await agent.call('set_deploy_freeze', { service: 'checkout', reason: 'train', if_match: policy.body.etag.slice(1, -1) });
  t.notOk(frozen.isError, 'a named action takes the bare tag too');

  const current = (await agent.call('get_team', { id })).body.etag as string;
  const deleted = await api.del(`${CONFIG}/teams/${id}`, { 'if-match': current.slice(1, -1) });
  t.equal(deleted.status, 204, 'REST delete: the bare tag holds');
});
