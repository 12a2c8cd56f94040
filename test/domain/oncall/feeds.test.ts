/**
 * Calendar feeds read by an independent parser (Mozilla's ical.js): a schedule's feed holds every shift of its
 * window with the right instants, a person's feed their shifts across schedules; rotating kills the old address;
 * the secret is not stored, not in the audit log and not in the export; a key cannot make a personal feed.
 */
import t from 'tap';
import ICAL from 'ical.js';
import { sqlExecutor } from '../../../engine/persistence/sql.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { connectAgent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const ADMIN = '/api/admin/v1';
const DAY = 86_400_000;

const org = await vigil.organization('business');
const api = await org.key(['api:admin']);
const people: { id: string; email: string }[] = [];
for (const name of ['ana', 'ben']) {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email: `${name}-${Math.random().toString(36).slice(2, 8)}@example.com` });
  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role: 'member' });
  people.push({ id: user.body.id, email: user.body.email });
}
const [ana, ben] = people as [{ id: string; email: string }, { id: string; email: string }];
vigil.clock.set('2030-03-25T12:00:00Z');
const layer = { name: 'Daily', participants: [ana.email, ben.email], rotation: { unit: 'daily', length: 1 }, handoff: '2030-03-01T09:00' };
const berlin = (await api.post(`${CONFIG}/schedules`, { name: 'Berlin', time_zone: 'Europe/Berlin', layers: [layer] })).body.data;
const york = (await api.post(`${CONFIG}/schedules`, { name: 'York', time_zone: 'America/New_York', layers: [{ ...layer, participants: [ben.email, ana.email] }] })).body.data;
await api.post(`${CONFIG}/schedule_overrides`, { schedule_id: berlin.id, start: '2030-03-30T10:00:00Z', end: '2030-03-30T12:00:00Z', email: ben.email });

/** The feed's events as [start, end, summary] in UTC, read by ical.js. */
async function events(url: string): Promise<{ status: number; events: [string, string, string][]; text: string }> {
  const res = await fetch(url.replace(/^https?:\/\/[^/]+/, vigil.url));
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, events: [], text };
  t.match(res.headers.get('content-type'), /^text\/calendar/);
  const component = new ICAL.Component(ICAL.parse(text));
  const found = component.getAllSubcomponents('vevent').map((v) => {
    const e = new ICAL.Event(v);
    return [e.startDate.toJSDate().toISOString(), e.endDate.toJSDate().toISOString(), e.summary] as [string, string, string];
  });
  return { status: 200, events: found.sort(), text };
}

const windowOf = () => {
  const now = vigil.clock.now().getTime();
  return `from=${new Date(now - 7 * DAY).toISOString()}&to=${new Date(now + 90 * DAY).toISOString()}`;
};

t.test('a schedule\'s feed holds every final shift with its instants; rotating kills the old address', async (t) => {
  const made = await api.post(`${CONFIG}/calendar_feeds`, { schedule_id: berlin.id });
  t.equal(made.status, 200, JSON.stringify(made.body));
  const { url } = made.body.data;
  t.match(url, /\/calendar\/vcal_[\w-]+\.ics$/);
  const feed = await events(url);
  const shifts = (await api.get(`${CONFIG}/schedules/${berlin.id}/shifts?${windowOf()}`)).body.data.shifts as { start: string; end: string; email: string }[];
  t.ok(shifts.length > 90, 'a window of 97 days of daily shifts and the override');
  t.same(feed.events, shifts.map((s) => [s.start, s.end, `On call: ${s.email}`]).sort(), 'every shift, with the right instants (the 23-hour one included)');
  t.ok(shifts.some((s) => s.end === '2030-03-31T07:00:00.000Z'), 'the spring change is in the window (a handoff at 09:00 CEST)');

  const again = await api.post(`${CONFIG}/calendar_feeds`, { schedule_id: berlin.id });
  t.not(again.body.data.url, url);
  t.equal((await events(url)).status, 404, 'the old address answers 404 after a rotation');
  t.equal((await events(again.body.data.url)).status, 200, 'the new one works');
  t.equal((await fetch(`${vigil.url}/calendar/vcal_made-up.ics`)).status, 404, 'a guessed address is 404');

  const secret = again.body.data.url.split('/calendar/')[1].replace('.ics', '');
  const stored = await sqlExecutor(vigil.running.services.db)('select * from oncall_feeds', []);
  t.notMatch(JSON.stringify(stored), secret, 'the secret is not stored (only its hash)');
  t.notMatch(JSON.stringify((await api.get(`${CONFIG}/audit_log`)).body), secret, 'nor in the audit log');
  const other = await (await vigil.organization('business')).key(['api:admin']);
  t.equal((await other.post(`${CONFIG}/calendar_feeds`, { schedule_id: berlin.id })).status, 404, 'another organization\'s schedule is not found');
});

t.test('a person\'s feed: all their shifts across schedules; a key has no person', async (t) => {
  const refused = await api.post(`${CONFIG}/calendar_feeds`, {});
  t.equal(refused.status, 422);
  t.same(refused.body.errors.map((e: { field: string }) => e.field), ['schedule_id']);
  const token = (await vigil.operator.post(`${ADMIN}/users/${ana.id}/tokens`, { name: 't', organizations: [org.id], max_role: 'unlimited' })).body.token;
  const agent = await connectAgent(vigil.url, token);
  t.teardown(() => agent.close());
  const made = await agent.call('rotate_calendar_feed', {});
  t.notOk(made.isError, JSON.stringify(made.body));
  const feed = await events(made.body.data.url);
  const mine = async (id: string, name: string) =>
    ((await api.get(`${CONFIG}/schedules/${id}/shifts?${windowOf()}`)).body.data.shifts as { start: string; end: string; email: string }[])
      .filter((s) => s.email === ana.email).map((s) => [s.start, s.end, `On call: ${name}`]);
  t.same(feed.events, [...(await mine(berlin.id, 'Berlin')), ...(await mine(york.id, 'York'))].sort(), 'ana\'s shifts of both schedules, no one else\'s');
});
