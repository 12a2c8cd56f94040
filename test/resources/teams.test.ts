/** teams: members must be members of the organization, escalation a subset, lists replaced whole, org-admin writes. */
import t from 'tap';
import teamMembers from '../../resources/team_members.ts';
import teams from '../../resources/teams.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [teamMembers, teams] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/teams`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
let n = 0;

/** A user of the deployment who is a member of the organization `api` belongs to; answers the email. */
async function member(api: Client): Promise<string> {
  const email = `oncall${++n}@example.com`;
  await vigil.operator.post('/api/admin/v1/users', { email });
  const added = await api.post(`${CONFIG}/team_members`, { email });
  if (added.status !== 201) throw new Error(`member not added: ${JSON.stringify(added.body)}`);
  return email;
}

t.test('a team of members with an escalation order; emails lowercased, defaults filled', async (t) => {
  const api = await (await vigil.organization()).key();
  const [a, b] = [await member(api), await member(api)];
  const made = await api.post(PATH, { name: 'Payments', member_emails: [a.toUpperCase(), b], escalation: [b, a] });
  t.equal(made.status, 201);
  t.match(made.body.data, { name: 'Payments', description: null, member_emails: [a, b], escalation: [b, a], timezone: 'UTC' });
  const empty = await api.post(PATH, { name: 'Nobody yet' });
  t.same([empty.body.data.member_emails, empty.body.data.escalation], [[], []], 'a team may start empty');
  t.same((await api.get(PATH)).body.data.map((r: { name: string }) => r.name), ['Nobody yet', 'Payments'], 'listed by name');
  t.equal((await api.post(PATH, { name: 'Payments' })).status, 409, 'the name is unique');
});

t.test('an email that is not a member of this organization is named', async (t) => {
  const api = await (await vigil.organization()).key();
  const other = await (await vigil.organization()).key();
  const mine = await member(api);
  const theirs = await member(other);
  const refused = await api.post(PATH, { name: 'Ops', member_emails: [mine, theirs, 'stranger@example.com'] });
  t.equal(refused.status, 422);
  t.same(fieldsOf(refused), ['member_emails[1]', 'member_emails[2]'], 'another organization\'s member and an unknown email, by index');
  t.same(fieldsOf(await api.post(PATH, { name: 'Ops', member_emails: [mine, mine.toUpperCase()] })), ['member_emails'], 'an email twice is refused');
  t.same(fieldsOf(await api.post(PATH, { name: 'Ops', member_emails: ['not an email'] })), ['member_emails[0]']);
  t.same((await api.get(PATH)).body.data, [], 'nothing was stored');
});

t.test('escalation names only the team\'s members; both lists are replaced whole', async (t) => {
  const api = await (await vigil.organization()).key();
  const [a, b, c] = [await member(api), await member(api), await member(api)];
  const notSubset = await api.post(PATH, { name: 'SRE', member_emails: [a], escalation: [a, b] });
  t.equal(notSubset.status, 422);
  t.same(fieldsOf(notSubset), ['escalation[1]']);
  const id = (await api.post(PATH, { name: 'SRE', member_emails: [a, b], escalation: [b] })).body.data.id;
  const path = `${PATH}/${id}`;
  const dropping = await api.put(path, { member_emails: [a, c] });
  t.equal(dropping.status, 422, 'removing someone who is in the escalation alone is refused');
  t.same(fieldsOf(dropping), ['escalation[0]']);
  const replaced = await api.put(path, { member_emails: [a, c], escalation: [c, a] });
  t.equal(replaced.status, 200, 'sent together, both are replaced');
  t.match(replaced.body.data, { member_emails: [a, c], escalation: [c, a] });
  t.same((await api.put(path, { description: 'site reliability' })).body.data.member_emails, [a, c], 'omitted lists are kept');
  t.same(fieldsOf(await api.put(path, { escalation: [a, a] })), ['escalation'], 'the escalation may not repeat anyone');
  t.same(fieldsOf(await api.put(path, { timezone: 'Mars/Olympus' })), ['timezone']);
  t.equal((await api.put(path, { timezone: 'Asia/Kolkata' })).body.data.timezone, 'Asia/Kolkata');
});

t.test('a member who leaves the organization stays listed until the list is changed', async (t) => {
  const api = await (await vigil.organization()).key();
  const [a, b, c] = [await member(api), await member(api), await member(api)];
  const id = (await api.post(PATH, { name: 'Infra', member_emails: [a, b] })).body.data.id;
  const gone = (await api.get(`${CONFIG}/team_members`)).body.data.find((m: { email: string }) => m.email === b).id;
  t.equal((await api.del(`${CONFIG}/team_members/${gone}`)).status, 204);
  const path = `${PATH}/${id}`;
  t.equal((await api.put(path, { description: 'kept' })).status, 200, 'other changes are not blocked');
  t.equal((await api.put(path, { member_emails: [a, b] })).status, 200, 'sending the same list changes nothing');
  const changed = await api.put(path, { member_emails: [a, b, c] });
  t.equal(changed.status, 422, 'a changed list must drop them');
  t.same(fieldsOf(changed), ['member_emails[1]']);
  t.same((await api.put(path, { member_emails: [a, c] })).body.data.member_emails, [a, c]);
});

t.test('every write needs the org admin role', async (t) => {
  const org = await vigil.organization();
  const id = (await (await org.key()).post(PATH, { name: 'Payments' })).body.data.id;
  const reader = await org.key(['api:config_read']);
  t.equal((await reader.get(`${PATH}/${id}`)).status, 200);
  t.equal((await reader.post(PATH, { name: 'Other' })).body.error, 'read_only_key');
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  for (const [tool, args] of [['create_team', { name: 'Other' }], ['update_team', { id, description: 'x' }], ['delete_team', { id }]] as const) {
    t.equal((await agent.call(tool, args)).body.error, 'forbidden', `${tool} needs an org admin`);
  }
  await agent.close();
});
