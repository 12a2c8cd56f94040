/** alert_routes: matchers checked by path, the team a reference of this organization, order and move. */
import t from 'tap';
import alertRoutes from '../../resources/alert_routes.ts';
import teamMembers from '../../resources/team_members.ts';
import teams from '../../resources/teams.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [teamMembers, teams, alertRoutes] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/alert_routes`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const TITLE = { field: 'title', operator: 'contains', value: 'disk' };

async function team(api: Client, name = 'Payments'): Promise<string> {
  return (await api.post(`${CONFIG}/teams`, { name })).body.data.id;
}

t.test('matchers are checked one by one and refused by path', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, unknown[], string[]][] = [
    ['a regex that does not compile', [TITLE, { field: 'title', operator: 'regex', value: '([a-z' }], ['matchers[1].value']],
    ['a nested quantifier', [{ field: 'service', operator: 'regex', value: '^(\\w+\\s?)*$' }], ['matchers[0].value']],
    ['a label without its key', [{ field: 'label', operator: 'equals', value: 'prod' }], ['matchers[0].label_key']],
    ['a key on a non-label field', [{ field: 'source', operator: 'equals', value: 'pager', label_key: 'env' }], ['matchers[0].label_key']],
    ['an unknown severity', [{ field: 'severity', operator: 'equals', value: 'urgent' }], ['matchers[0].value']],
    ['an unknown operator', [{ field: 'title', operator: 'starts_with', value: 'x' }], ['matchers[0].operator']],
    ['an over-long value', [{ field: 'title', operator: 'regex', value: 'a'.repeat(201) }], ['matchers[0].value']],
    ['an extra key', [{ ...TITLE, negate: true }], ['matchers[0].negate']],
    ['no matcher', [], ['matchers']],
    ['21 matchers', Array.from({ length: 21 }, () => TITLE), ['matchers']],
  ];
  for (const [name, matchers, fields] of cases) {
    const refused = await api.post(PATH, { name: 'r', pages: false, matchers });
    t.equal(refused.status, 422, `${name} is refused`);
    t.same(fieldsOf(refused), fields, `${name}: named ${fields.join(', ')}`);
  }
  const ok = await api.post(PATH, { name: 'r', pages: false, matchers: [{ field: 'label', label_key: 'env', operator: 'regex', value: '^prod-(eu|us)-\\d+$' }, { field: 'severity', operator: 'contains', value: 'crit' }] });
  t.equal(ok.status, 201, 'a sound regex and a label with its key are accepted');
  const replaced = await api.put(`${PATH}/${ok.body.data.id}`, { matchers: [TITLE] });
  t.same(replaced.body.data.matchers, [TITLE], 'matchers are replaced whole');
  t.same(fieldsOf(await api.put(`${PATH}/${ok.body.data.id}`, { matchers: [{ field: 'title', operator: 'regex', value: '*' }] })), ['matchers[0].value'], 'an update is checked the same way');
});

t.test('the team is a team of this organization; paging needs one', async (t) => {
  const api = await (await vigil.organization()).key();
  const other = await (await vigil.organization()).key();
  const theirs = await team(other);
  const foreign = await api.post(PATH, { name: 'r', team_id: theirs, matchers: [TITLE] });
  t.equal(foreign.status, 422, 'another organization\'s team is refused');
  t.same(fieldsOf(foreign), ['team_id']);
  t.same(fieldsOf(await api.post(PATH, { name: 'r', team_id: 'no-such-team', matchers: [TITLE] })), ['team_id'], 'so is an unknown id');
  t.same(fieldsOf(await api.post(PATH, { name: 'r', matchers: [TITLE] })), ['team_id'], 'a paging route needs a team');
  const mine = await team(api);
  const made = await api.post(PATH, { name: 'r', team_id: mine, matchers: [TITLE] });
  t.equal(made.status, 201);
  t.match(made.body.data, { team_id: mine, pages: true, enabled: true, continue: false, severity_override: null, position: 1 }, 'defaults');
  const path = `${PATH}/${made.body.data.id}`;
  t.same(fieldsOf(await api.put(path, { team_id: null })), ['team_id'], 'the team cannot be dropped while the route pages');
  t.match((await api.put(path, { team_id: null, pages: false })).body.data, { team_id: null, pages: false }, 'a route that pages no one needs none');
  t.same(fieldsOf(await api.put(path, { team_id: theirs })), ['team_id'], 'an update is checked the same way');
});

t.test('routes keep their order: appended last, moved one place', async (t) => {
  const api = await (await vigil.organization()).key();
  const ids: string[] = [];
  for (const name of ['first', 'second', 'third']) ids.push((await api.post(PATH, { name, pages: false, matchers: [TITLE] })).body.data.id);
  const order = async () => (await api.get(PATH)).body.data.map((r: { name: string; position: number }) => `${r.position}:${r.name}`);
  t.same(await order(), ['1:first', '2:second', '3:third']);
  t.equal((await api.put(`${PATH}/${ids[2]}`, { move: 'up' })).body.data.position, 2);
  t.same(await order(), ['1:first', '2:third', '3:second']);
  const top = await api.put(`${PATH}/${ids[0]}`, { move: 'up' });
  t.equal(top.status, 422, 'the first route cannot move up');
  t.same(fieldsOf(top), ['move']);
  t.equal((await api.put(`${PATH}/${ids[0]}`, { position: 3 })).status, 422, 'the position is not written directly');
  t.equal((await api.del(`${PATH}/${ids[2]}`)).status, 204, 'removing a route leaves a gap, not a renumbering');
  t.equal((await api.post(PATH, { name: 'fourth', pages: false, matchers: [TITLE] })).body.data.position, 4, 'a new route is appended last');
  t.same(await order(), ['1:first', '3:second', '4:fourth']);
});

t.test('the agent-tool endpoint refuses the same way', async (t) => {
  const org = await vigil.organization();
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  const refused = await agent.call('create_alert_route', { name: 'r', pages: false, matchers: [{ field: 'title', operator: 'regex', value: '(a+)+' }] });
  t.ok(refused.isError);
  t.equal(refused.body.error, 'validation_failed');
  t.same(refused.body.errors.map((e: { field: string }) => e.field), ['matchers[0].value']);
  t.notOk((await agent.call('create_alert_route', { name: 'r', pages: false, severity_override: 'info', matchers: [TITLE] })).isError, 'a member may create routes');
  await agent.close();
});
