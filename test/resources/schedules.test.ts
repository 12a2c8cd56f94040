/**
 * schedules and schedule_overrides: the rules they add beyond the examples — participants and covers must be members
 * (named by their place), another organization's schedule is refused, a member writes overrides for themselves only
 * and an org admin for anyone (people act through the agent-tool endpoint: the configuration API takes no personal
 * token), the DESIGN.md window rule (from = to is refused).
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const ADMIN = '/api/admin/v1';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
let n = 0;

async function member(orgId: string, role: 'member' | 'org_admin' | 'viewer') {
  const made = await vigil.operator.post(`${ADMIN}/users`, { email: `oncall${++n}-${Math.random().toString(36).slice(2, 8)}@example.com` });
  await vigil.operator.put(`${ADMIN}/organizations/${orgId}/members/${made.body.id}`, { role });
  const token = (await vigil.operator.post(`${ADMIN}/users/${made.body.id}/tokens`, { name: 't', organizations: [orgId], max_role: 'unlimited' })).body.token;
  const agent = await connectAgent(vigil.url, token);
  agents.push(agent);
  return { email: made.body.email as string, agent };
}
const agents: Awaited<ReturnType<typeof connectAgent>>[] = [];
t.teardown(() => Promise.all(agents.map((a) => a.close())));

const layer = (participants: string[], extra: Record<string, unknown> = {}) => ({ name: 'Primary', participants, rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-07T09:00', ...extra });

t.test('schedules: members only, named by place; windows from = to refused', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const alice = await member(org.id, 'member');
  const bob = await member(org.id, 'member');
  const refused = await api.post(`${CONFIG}/schedules`, {
    name: 'S', time_zone: 'Europe/Berlin',
    layers: [layer([alice.email]), layer([bob.email, 'nobody@example.com'], { name: 'Second' })],
  });
  t.equal(refused.status, 422, JSON.stringify(refused.body));
  t.same(fieldsOf(refused), ['layers[1].participants[1]'], 'the stranger is named by layer and place');

  const empty = await api.post(`${CONFIG}/schedules`, { name: 'S', time_zone: 'UTC', layers: [layer([alice.email], { restrictions: [{ days: ['mon'], from: '08:00', to: '18:00' }, { days: ['tue'], from: '22:00', to: '22:00' }] })] });
  t.equal(empty.status, 422);
  t.same(fieldsOf(empty), ['layers[0].restrictions[1].to'], 'a window whose from equals its to is refused, not read as a whole day');

  const ends = await api.post(`${CONFIG}/schedules`, { name: 'S', time_zone: 'UTC', layers: [layer([alice.email], { ends: '2030-01-07T09:00' })] });
  t.same(fieldsOf(ends), ['layers[0].ends']);
  const twice = await api.post(`${CONFIG}/schedules`, { name: 'S', time_zone: 'UTC', layers: [layer([alice.email, alice.email.toUpperCase()])] });
  t.same(fieldsOf(twice), ['layers[0].participants[1]'], 'a layer names a person once (compared without case)');

  const made = await alice.agent.call('create_schedule', { name: 'S', time_zone: 'Europe/Berlin', layers: [layer([alice.email.toUpperCase(), bob.email])] });
  t.notOk(made.isError, 'a member creates a schedule');
  t.same(made.body.data.layers[0].participants, [alice.email, bob.email], 'participants stored lowercased');
  t.equal((await api.get(`${CONFIG}/schedules`)).body.data.length, 1, 'nothing was stored by the refusals');
});

t.test('schedule_overrides: members for themselves, admins for anyone; strangers and other organizations refused', async (t) => {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const admin = await member(org.id, 'org_admin');
  const alice = await member(org.id, 'member');
  const bob = await member(org.id, 'member');
  const viewer = await member(org.id, 'viewer');
  const schedule = (await api.post(`${CONFIG}/schedules`, { name: 'S', time_zone: 'UTC', layers: [layer([alice.email, bob.email])] })).body.data;
  const PATH = `${CONFIG}/schedule_overrides`;
  const span = { start: '2030-01-08T09:00:00+01:00', end: '2030-01-08T17:00:00+01:00' };

  const own = await alice.agent.call('create_schedule_override', { schedule_id: schedule.id, ...span, email: alice.email, replaces: bob.email });
  t.notOk(own.isError, 'a member takes a shift for themselves');
  t.equal(own.body.data.start, '2030-01-08T08:00:00.000Z', 'instants stored in UTC');

  const forBob = await alice.agent.call('create_schedule_override', { schedule_id: schedule.id, ...span, email: bob.email });
  t.equal(forBob.body.error, 'forbidden', 'a member cannot put someone else on call');
  t.same(fieldsOf(forBob), ['email']);
  t.match(forBob.body.message, /needs the org_admin role/);

  const moved = await alice.agent.call('update_schedule_override', { id: own.body.data.id, email: bob.email });
  t.equal(moved.body.error, 'forbidden', 'nor move their own override onto someone else');
  const theirs = await admin.agent.call('create_schedule_override', { schedule_id: schedule.id, ...span, email: bob.email });
  t.notOk(theirs.isError, 'an org admin creates an override for anyone');
  t.equal((await alice.agent.call('update_schedule_override', { id: theirs.body.data.id, email: alice.email })).body.error, 'forbidden', 'a member cannot take over someone else\'s override row');
  t.equal((await alice.agent.call('delete_schedule_override', { id: theirs.body.data.id })).body.error, 'forbidden', 'nor delete it');
  t.equal((await viewer.agent.call('create_schedule_override', { schedule_id: schedule.id, ...span, email: viewer.email })).body.error, 'forbidden', 'a viewer writes nothing');
  t.notOk((await alice.agent.call('delete_schedule_override', { id: own.body.data.id })).isError, 'a member deletes their own');
  t.equal((await api.post(PATH, { schedule_id: schedule.id, ...span, email: alice.email })).status, 201, 'an admin key writes for anyone');

  const backwards = await api.post(PATH, { schedule_id: schedule.id, start: '2030-01-08T17:00:00+01:00', end: '2030-01-08T16:00:00Z', email: bob.email });
  t.equal(backwards.status, 422);
  t.same(fieldsOf(backwards), ['end'], 'an end before the start (as instants) is refused naming end');
  const stranger = await api.post(PATH, { schedule_id: schedule.id, ...span, email: 'stranger@example.com' });
  t.same(fieldsOf(stranger), ['email'], 'a cover who is not a member is refused naming email');

  const otherOrg = await vigil.organization('business');
  const other = await otherOrg.key(['api:admin']);
  const theirMember = await member(otherOrg.id, 'member');
  const outsider = await other.post(PATH, { schedule_id: schedule.id, ...span, email: theirMember.email });
  t.equal(outsider.status, 422);
  t.ok(fieldsOf(outsider).includes('schedule_id'), 'another organization\'s schedule is refused naming schedule_id');
  t.same((await api.get(PATH)).body.data.map((o: { email: string }) => o.email).sort(), [alice.email, bob.email].sort(), 'the refusals stored nothing');
});
