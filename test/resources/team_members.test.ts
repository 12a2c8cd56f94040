/** team_members: one store with the operator API, users looked up by email, the last org admin kept, org-admin writes. */
import t from 'tap';
import teamMembers from '../../resources/team_members.ts';
import { CONFIG, client, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [teamMembers] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/team_members`;
const ADMIN = '/api/admin/v1';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
let n = 0;

async function user(email = `person${++n}@example.com`): Promise<{ id: string; email: string }> {
  const made = await vigil.operator.post(`${ADMIN}/users`, { email });
  if (made.status !== 201) throw new Error(`user not created: ${JSON.stringify(made.body)}`);
  return made.body;
}

async function personalToken(userId: string, orgId: string): Promise<string> {
  const made = await vigil.operator.post(`${ADMIN}/users/${userId}/tokens`, { name: 't', organizations: [orgId], max_role: 'unlimited' });
  return made.body.token;
}

t.test('one store: operator memberships show in the API and API members act through personal tokens', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const lead = await user(`Ops.Lead${++n}@Example.com`);
  t.equal((await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${lead.id}`, { role: 'org_admin' })).status, 200);
  const listed = await api.get(PATH);
  t.match(listed.body.data, [{ email: lead.email, user_id: lead.id, role: 'org_admin' }], 'a member the operator added is listed');

  const dev = await user();
  const added = await api.post(PATH, { email: dev.email.toUpperCase() });
  t.equal(added.status, 201);
  t.match(added.body.data, { email: dev.email, user_id: dev.id, role: 'member' }, 'stored lowercased, user looked up, role defaults to member');
  const path = `${PATH}/${added.body.data.id}`;

  const token = await personalToken(dev.id, org.id);
  const agent = await connectAgent(vigil.url, token);
  t.notOk((await agent.call('list_team_members')).isError, 'the new member can use a personal token');
  t.notOk((await agent.call('create_alert_mute', { pattern: 'disk full' })).isError, 'and, as a member, write');
  t.equal((await agent.call('create_team_member', { email: lead.email })).body.error, 'forbidden', 'but not manage members');
  await agent.close();

  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${dev.id}`, { role: 'viewer' });
  t.equal((await api.get(path)).body.data.role, 'viewer', 'an operator role change shows in the API');
  const viewer = await connectAgent(vigil.url, token);
  t.equal((await viewer.call('create_alert_mute', { pattern: 'cpu' })).body.error, 'forbidden', 'and caps the personal token');
  await viewer.close();

  t.equal((await api.del(path)).status, 204);
  await t.rejects(connectAgent(vigil.url, token), 'a member removed through the API loses the organization');
  t.equal((await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${dev.id}`, { role: 'member' })).status, 200, 'the operator can add them again');
  t.match((await api.get(PATH)).body.data.map((m: { email: string }) => m.email), [lead.email, dev.email]);
  const again = await api.post(PATH, { email: dev.email });
  t.equal(again.status, 409, 'adding an existing member is a conflict');
  t.equal(again.body.data.user_id, dev.id, 'with the existing row');
  t.equal((await vigil.operator.del(`${ADMIN}/organizations/${org.id}/members/${dev.id}`)).status, 204);
  t.same((await api.get(PATH)).body.data.map((m: { email: string }) => m.email), [lead.email], 'an operator removal shows too');

  const other = await (await vigil.organization()).key();
  t.equal((await other.get(`${PATH}/${listed.body.data[0].id}`)).status, 404, 'another organization never sees the row');
  t.same((await other.get(PATH)).body.data, []);
});

t.test('an email that matches no user is refused: Vigil never invites', async (t) => {
  const api = await (await vigil.organization()).key();
  const refused = await api.post(PATH, { email: 'nobody-at-all@example.com', role: 'org_admin' });
  t.equal(refused.status, 422);
  t.same(fieldsOf(refused), ['email']);
  t.notMatch(refused.body.message + JSON.stringify(refused.body.errors), 'nobody-at-all', 'the answer does not repeat the email');
  t.same((await api.get(PATH)).body.data, [], 'nothing was stored');
  const dev = await user();
  const made = await api.post(PATH, { email: dev.email, role: 'viewer' });
  const email = await api.put(`${PATH}/${made.body.data.id}`, { email: 'other@example.com' });
  t.equal(email.status, 422, 'the email is set on create only');
  t.same(fieldsOf(email), ['email']);
  t.same(fieldsOf(await api.put(`${PATH}/${made.body.data.id}`, { user_id: dev.id })), ['user_id'], 'user_id is read-only');
});

t.test('the last org admin can be neither removed nor demoted', async (t) => {
  const api = await (await vigil.organization()).key();
  const [a, b] = [await user(), await user()];
  const first = (await api.post(PATH, { email: a.email, role: 'org_admin' })).body.data.id;
  const demote = await api.put(`${PATH}/${first}`, { role: 'member' });
  t.equal(demote.status, 422, 'demoting the only admin is refused');
  t.same(fieldsOf(demote), ['role']);
  const remove = await api.del(`${PATH}/${first}`);
  t.equal(remove.status, 422, 'removing the only admin is refused');
  t.same(fieldsOf(remove), ['role']);
  t.equal((await api.get(`${PATH}/${first}`)).body.data.role, 'org_admin', 'nothing changed');

  const second = (await api.post(PATH, { email: b.email, role: 'org_admin' })).body.data.id;
  t.equal((await api.put(`${PATH}/${first}`, { role: 'member' })).status, 200, 'with a second admin, one can be demoted');
  t.equal((await api.del(`${PATH}/${second}`)).status, 422, 'and then the other is the last one');
  t.equal((await api.del(`${PATH}/${first}`)).status, 204, 'a plain member can always be removed');
});

t.test('every write needs the org admin role', async (t) => {
  const org = await vigil.organization();
  const admin = await org.key();
  const dev = await user();
  const id = (await admin.post(PATH, { email: dev.email })).body.data.id;
  const reader = await org.key(['api:config_read']);
  t.equal((await reader.get(PATH)).status, 200, 'a read-only key reads');
  for (const answer of [await reader.post(PATH, { email: (await user()).email }), await reader.put(`${PATH}/${id}`, { role: 'org_admin' }), await reader.del(`${PATH}/${id}`)]) {
    t.equal(answer.status, 403);
    t.equal(answer.body.error, 'read_only_key');
  }
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.equal((await agent.call('update_team_member', { id, role: 'org_admin' })).body.error, 'forbidden', 'a member-level key cannot promote anyone');
  t.notOk((await agent.call('get_team_member', { id })).isError);
  await agent.close();
  t.equal((await client(vigil.url, (await org.key(['mcp:admin'])).token).get(PATH)).status, 403, 'mcp keys stay at /api/mcp');
});
