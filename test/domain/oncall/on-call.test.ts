/**
 * The computed reads over REST and the agent tools: a schedule's final shifts, who is on call at an instant (default
 * the injected clock's now) with until when and next, `who_is_on_call` for one schedule, a team or all; bad
 * `from`/`to`/`at` refused by name, windows bounded, another organization's schedule not found.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

const org = await vigil.organization('business');
const api = await org.key(['api:admin']);
const people: string[] = [];
for (const name of ['ana', 'ben', 'cy']) {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await vigil.operator.post(`${ADMIN}/users`, { email });
  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role: 'member' });
  people.push(email);
}
const [ana, ben, cy] = people as [string, string, string];
const team = (await api.post(`${CONFIG}/teams`, { name: 'Payments', member_emails: people })).body.data;
const schedule = (await api.post(`${CONFIG}/schedules`, {
  name: 'Payments primary', time_zone: 'Europe/Berlin', team_id: team.id,
  layers: [{ name: 'Daily', participants: [ana, ben], rotation: { unit: 'daily', length: 1 }, handoff: '2030-03-28T09:00' }],
})).body.data;
const other = (await api.post(`${CONFIG}/schedules`, { name: 'Empty', time_zone: 'UTC' })).body.data;
const cover = (await api.post(`${CONFIG}/schedule_overrides`, { schedule_id: schedule.id, start: '2030-03-30T12:00:00+01:00', end: '2030-03-30T14:00:00+01:00', email: cy })).body.data;

t.test('GET /schedules/{id}/shifts: the final schedule across the spring change, with sources', async (t) => {
  const res = await api.get(`${CONFIG}/schedules/${schedule.id}/shifts?from=2030-03-30T00:00:00Z&to=2030-04-01T00:00:00Z`);
  t.equal(res.status, 200);
  t.same(res.body.data.shifts, [
    { start: '2030-03-30T00:00:00.000Z', end: '2030-03-30T08:00:00.000Z', email: ben, source: { type: 'layer', layer: 'Daily', layer_index: 0 } },
    { start: '2030-03-30T08:00:00.000Z', end: '2030-03-30T11:00:00.000Z', email: ana, source: { type: 'layer', layer: 'Daily', layer_index: 0 } },
    { start: '2030-03-30T11:00:00.000Z', end: '2030-03-30T13:00:00.000Z', email: cy, source: { type: 'override', override_id: cover.id } },
    { start: '2030-03-30T13:00:00.000Z', end: '2030-03-31T07:00:00.000Z', email: ana, source: { type: 'layer', layer: 'Daily', layer_index: 0 } },
    { start: '2030-03-31T07:00:00.000Z', end: '2030-04-01T00:00:00.000Z', email: ben, source: { type: 'layer', layer: 'Daily', layer_index: 0 } },
  ], 'ana\'s day is 23 hours (09:00 CET to 09:00 CEST), cy covers two of them');
});

t.test('bad windows and instants are refused by name; nothing else answers 5xx', async (t) => {
  const path = `${CONFIG}/schedules/${schedule.id}/shifts`;
  t.same(fieldsOf(await api.get(`${path}?from=yesterday`)), ['from']);
  t.same(fieldsOf(await api.get(`${path}?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`)), ['to'], 'to before from');
  t.same(fieldsOf(await api.get(`${path}?from=2030-01-01T00:00:00Z&to=2032-01-01T00:00:00Z`)), ['to'], 'a window over 366 days');
  t.same(fieldsOf(await api.get(`${CONFIG}/schedules/${schedule.id}/on_call?at=noon`)), ['at']);
  t.equal((await api.get(`${path}?from=2030-01-01T00:00:00Z&extra=1`)).status, 422, 'an unknown parameter is refused');
  t.equal((await api.get(`${CONFIG}/schedules/no-such/shifts`)).status, 404);
  const stranger = await (await vigil.organization('business')).key(['api:admin']);
  t.equal((await stranger.get(`${path}`)).status, 404, 'another organization\'s schedule is not found');
  t.equal((await api.post(path, {})).status, 405);
});

t.test('GET /schedules/{id}/on_call: who, until when and next; now is the injected clock', async (t) => {
  const at = await api.get(`${CONFIG}/schedules/${schedule.id}/on_call?at=2030-03-30T12:30:00%2B01:00`);
  t.same(at.body.data, {
    schedule_id: schedule.id, schedule: 'Payments primary', at: '2030-03-30T11:30:00.000Z', email: cy, until: '2030-03-30T13:00:00.000Z',
    source: { type: 'override', override_id: cover.id },
    next: { start: '2030-03-30T13:00:00.000Z', end: '2030-03-31T07:00:00.000Z', email: ana, source: { type: 'layer', layer: 'Daily', layer_index: 0 } },
  });
  vigil.clock.set('2030-04-02T10:00:00Z');
  const now = await api.get(`${CONFIG}/schedules/${schedule.id}/on_call`);
  t.match(now.body.data, { at: '2030-04-02T10:00:00.000Z', email: ben, until: '2030-04-03T07:00:00.000Z', next: { email: ana } }, 'default: the clock\'s now');
  const before = await api.get(`${CONFIG}/schedules/${schedule.id}/on_call?at=2030-01-01T00:00:00Z`);
  t.match(before.body.data, { email: null, until: null, next: { start: '2030-03-28T08:00:00.000Z', email: ana } }, 'before the handoff no one, and the first shift is next');
});

t.test('who_is_on_call: one schedule, a team, or all', async (t) => {
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const all = await agent.call('who_is_on_call', { at: '2030-03-30T12:30:00+01:00' });
  t.notOk(all.isError);
  t.same(all.body.data.map((s: { schedule: string; email: string | null }) => [s.schedule, s.email]), [['Empty', null], ['Payments primary', cy]]);
  const byTeam = await agent.call('who_is_on_call', { team_id: team.id, at: '2030-03-30T12:30:00+01:00' });
  t.same(byTeam.body.data.map((s: { schedule_id: string }) => s.schedule_id), [schedule.id]);
  const one = await agent.call('who_is_on_call', { schedule_id: other.id });
  t.same(one.body.data.map((s: { email: string | null }) => s.email), [null]);
  t.same(fieldsOf(await agent.call('who_is_on_call', { at: 'soon' })), ['at']);
});

t.test('who_is_on_call reads only the overrides still running that day, and answers as on_call does', async (t) => {
  // one across midnight UTC: read on the day it ends too; cover (30 March) has ended before every day asked below but the first
  const night = (await api.post(`${CONFIG}/schedule_overrides`, { schedule_id: schedule.id, start: '2030-04-10T22:00:00Z', end: '2030-04-11T02:00:00Z', email: cy })).body.data;
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  for (const at of ['2030-03-30T13:30:00Z', '2030-03-31T00:30:00Z', '2030-04-10T23:00:00Z', '2030-04-11T01:00:00Z', '2030-04-11T03:00:00Z']) {
    const rest = (await api.get(`${CONFIG}/schedules/${schedule.id}/on_call?at=${at}`)).body.data;
    const tool = (await agent.call('who_is_on_call', { schedule_id: schedule.id, at })).body.data;
    t.same(tool, [rest], `the same answer at ${at}`);
  }
  const during = (await agent.call('who_is_on_call', { at: '2030-04-11T01:00:00Z' })).body.data.find((s: { schedule_id: string }) => s.schedule_id === schedule.id);
  t.match(during, { email: cy, until: '2030-04-11T02:00:00.000Z', source: { type: 'override', override_id: night.id } }, 'an override begun the day before still counts');
});
