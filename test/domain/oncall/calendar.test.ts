/**
 * Layers that follow an iCalendar (issue 38): a calendar served by a local HTTP server, fetched when the schedule is
 * saved and by the refresh pass (run by hand); a weekly event in Europe/Berlin across the spring change with an EXDATE
 * and a moved occurrence, matched by SUMMARY and by ATTENDEE; who is on call and the shifts with a rotation layer
 * beneath; a changed calendar picked up; a failing fetch keeping the last good one with its error shown; an event
 * naming no member reported; internal addresses and half-calendar layers refused when saved.
 */
import http from 'node:http';
import t from 'tap';
import { expandCalendar, flatten, refreshCalendars } from '../../../domain/oncall/calendar.ts';
import { ManualClock } from '../../../engine/clock.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { waitFor } from '../../helpers/jobs.ts';
import { connectAgent } from '../../helpers/mcp.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const services = vigil.running.services;
const clock = services.clock as ManualClock;
clock.set('2026-03-20T12:00:00Z');
const ADMIN = '/api/admin/v1';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

const org = await vigil.organization('business');
const api = await org.key(['api:admin']);
const suffix = Math.random().toString(36).slice(2, 8);
const [ana, ben, cy] = ['ana', 'ben', 'cy'].map((n) => `${n}-${suffix}@example.com`) as [string, string, string];
for (const email of [ana, ben, cy]) {
  const user = await vigil.operator.post(`${ADMIN}/users`, { email });
  await vigil.operator.put(`${ADMIN}/organizations/${org.id}/members/${user.body.id}`, { role: 'member' });
}

const BERLIN = `BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE`;

/** Mondays 09:00–17:00 Berlin time for `monday` (not on 16 March; 30 March moved to Tuesday 10:00–18:00), Wednesdays for ben by ATTENDEE, Thursdays for a stranger. */
const calendar = (monday: string) => `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//vigil tests//EN
${BERLIN}
BEGIN:VEVENT
UID:monday@test
DTSTAMP:20260101T000000Z
SUMMARY:${monday}
DTSTART;TZID=Europe/Berlin:20260302T090000
DTEND;TZID=Europe/Berlin:20260302T170000
RRULE:FREQ=WEEKLY;BYDAY=MO
EXDATE;TZID=Europe/Berlin:20260316T090000
END:VEVENT
BEGIN:VEVENT
UID:monday@test
DTSTAMP:20260101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20260330T090000
SUMMARY:${monday}
DTSTART;TZID=Europe/Berlin:20260331T100000
DTEND;TZID=Europe/Berlin:20260331T180000
END:VEVENT
BEGIN:VEVENT
UID:wednesday@test
DTSTAMP:20260101T000000Z
SUMMARY:Support shift
ATTENDEE;CN=Ben:mailto:${ben.toUpperCase()}
DTSTART;TZID=Europe/Berlin:20260304T090000
DTEND;TZID=Europe/Berlin:20260304T170000
RRULE:FREQ=WEEKLY;BYDAY=WE
END:VEVENT
BEGIN:VEVENT
UID:thursday@test
DTSTAMP:20260101T000000Z
SUMMARY:ghost@nowhere.example
DTSTART;TZID=Europe/Berlin:20260305T090000
DTEND;TZID=Europe/Berlin:20260305T170000
RRULE:FREQ=WEEKLY;BYDAY=TH
END:VEVENT
END:VCALENDAR
`.replaceAll('\n', '\r\n');

let served: { status: number; body: string } = { status: 200, body: calendar(ana) };
let hits = 0;
const server = http.createServer((_req, res) => {
  hits++;
  res.writeHead(served.status, { 'content-type': 'text/calendar' });
  res.end(served.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
const URL_ICS = `http://127.0.0.1:${(server.address() as { port: number }).port}/team.ics`;

const layers = [
  { name: 'Weekly', participants: [cy], rotation: { unit: 'weekly', length: 1 }, handoff: '2026-01-05T00:00' },
  { name: 'Calendar', ical_url: URL_ICS },
];
const created = await api.post(`${CONFIG}/schedules`, { name: 'Follows a calendar', time_zone: 'Europe/Berlin', layers });
const schedule = created.body.data;
const status = async () => (await api.get(`${CONFIG}/schedules/${schedule.id}/calendars`)).body.data.calendars[0];
const who = async (at: string) => (await api.get(`${CONFIG}/schedules/${schedule.id}/on_call?at=${encodeURIComponent(at)}`)).body.data;

t.test('a calendar layer is saved and fetched on save, through the guarded client', async (t) => {
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.same(schedule.layers[1], { name: 'Calendar', ical_url: URL_ICS });
  await waitFor(async () => (await status())?.fetched_at != null, 'the fetch a save queues');
  const s = await status();
  t.equal(s.url, URL_ICS);
  t.same(s.layers, ['Calendar']);
  t.equal(s.error, null);
  t.ok(s.events > 0, 'intervals kept');
  t.same(s.unmatched, ['ghost@nowhere.example'], 'the event naming no member is reported, not dropped silently');
});

t.test('who is on call: the calendar above the rotation, recurrence, EXDATE, a moved occurrence, DST', async (t) => {
  const cases: [string, string, string][] = [
    ['2026-03-23T08:30:00Z', ana, 'Monday 09:30 CET: ana by SUMMARY'],
    ['2026-03-23T15:30:00Z', ana, 'Monday 16:30 CET'],
    ['2026-03-23T16:30:00Z', cy, 'Monday 17:30 CET: the rotation beneath'],
    ['2026-03-16T08:30:00Z', cy, 'the EXDATE: no calendar event that Monday'],
    ['2026-03-25T09:30:00Z', ben, 'Wednesday: ben by ATTENDEE (matched case-insensitively)'],
    ['2026-03-26T09:30:00Z', cy, 'Thursday: the stranger\'s event gives no one'],
    ['2026-03-30T07:30:00Z', cy, 'Monday 30 March 09:30 CEST: that occurrence moved'],
    ['2026-03-31T07:30:00Z', cy, 'Tuesday 31 March 09:30 CEST: before the moved occurrence'],
    ['2026-03-31T08:30:00Z', ana, 'Tuesday 31 March 10:30 CEST: the moved occurrence'],
    ['2026-04-06T07:30:00Z', ana, 'Monday 6 April 09:30 CEST (07:30 UTC): the series keeps local time across the change'],
    ['2026-04-06T15:30:00Z', cy, 'Monday 6 April 17:30 CEST: over'],
  ];
  for (const [at, email, why] of cases) t.equal((await who(at)).email, email, why);
  const now = await who('2026-03-23T08:30:00Z');
  t.equal(now.until, '2026-03-23T16:00:00.000Z');
  t.same(now.source, { type: 'layer', layer: 'Calendar', layer_index: 1 });
  const shifts = (await api.get(`${CONFIG}/schedules/${schedule.id}/shifts?from=2026-03-23T00:00:00Z&to=2026-03-24T00:00:00Z`)).body.data.shifts;
  t.same(shifts.map((s: { start: string; end: string; email: string }) => [s.start.slice(11, 16), s.end.slice(11, 16), s.email]), [
    ['00:00', '08:00', cy], ['08:00', '16:00', ana], ['16:00', '00:00', cy],
  ]);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  t.teardown(() => agent.close());
  const all = await agent.call('who_is_on_call', { at: '2026-03-25T09:30:00Z' });
  t.equal(all.body.data.find((r: { schedule_id: string }) => r.schedule_id === schedule.id)?.email, ben, 'the who_is_on_call tool reads the calendar too');
  const calendars = await agent.call('get_schedule_calendars', { id: schedule.id });
  t.same(calendars.body.data.calendars[0].unmatched, ['ghost@nowhere.example'], 'the status is an agent tool as well');
});

t.test('a refresh picks up a changed calendar', async (t) => {
  served = { status: 200, body: calendar(`Primary: ${ben}`) };
  clock.advance(15 * 60_000);
  const before = hits;
  await refreshCalendars(services);
  t.ok(hits > before, 'the pass fetched');
  t.equal((await who('2026-03-23T08:30:00Z')).email, ben, 'an email inside the SUMMARY names the member');
  t.equal((await status()).fetched_at, clock.now().toISOString());
});

t.test('a failing fetch keeps the last good calendar and shows the error', async (t) => {
  const good = (await status()).fetched_at;
  served = { status: 500, body: 'oops' };
  clock.advance(15 * 60_000);
  await refreshCalendars(services);
  let s = await status();
  t.equal(s.error, 'the calendar answered HTTP 500');
  t.equal(s.fetched_at, good, 'the last good fetch stays');
  t.equal(s.checked_at, clock.now().toISOString());
  t.equal((await who('2026-03-23T08:30:00Z')).email, ben, 'still in use');

  served = { status: 200, body: '<html>not a calendar</html>' };
  await refreshCalendars(services);
  s = await status();
  t.equal(s.error, 'the answer could not be read as an iCalendar (text/calendar, RFC 5545)');
  t.notMatch(s.error, /html/, 'the text is not quoted');
  t.equal((await who('2026-03-23T08:30:00Z')).email, ben);

  served = { status: 200, body: calendar(ana) };
  await refreshCalendars(services);
  s = await status();
  t.equal(s.error, null, 'a good fetch clears the error');
  t.equal((await who('2026-03-23T08:30:00Z')).email, ana);
});

t.test('refused when saved: internal addresses, a layer that is half calendar, a rotation layer without its fields', async (t) => {
  const post = (layer: Record<string, unknown>) => api.post(`${CONFIG}/schedules`, { name: `bad ${Math.random()}`, time_zone: 'UTC', layers: [layer] });
  for (const url of ['https://169.254.169.254/latest/meta-data', 'http://10.0.0.5/team.ics', 'ftp://calendar.example.com/team.ics', 'https://user:pw@calendar.example.com/x.ics']) {
    const res = await post({ name: 'c', ical_url: url });
    t.equal(res.status, 422, url);
    t.same(fieldsOf(res), ['layers[0].ical_url'], url);
    t.notMatch(JSON.stringify(res.body), url, 'the value is not echoed');
  }
  t.same(fieldsOf(await post({ name: 'c', ical_url: 'https://calendar.example.com/a.ics', participants: [ana] })), ['layers[0].ical_url']);
  t.same(fieldsOf(await post({ name: 'r', rotation: { unit: 'daily', length: 1 }, handoff: '2026-01-01T00:00' })), ['layers[0].participants']);
  const upd = await api.put(`${CONFIG}/schedules/${schedule.id}`, { layers: [{ name: 'Calendar', ical_url: 'https://[::ffff:169.254.169.254]/x.ics' }] });
  t.equal(upd.status, 422);
  t.same((await api.get(`${CONFIG}/schedules/${schedule.id}`)).body.data.layers, schedule.layers, 'nothing changed');
});

t.test('a layer that stops following the calendar forgets it', async (t) => {
  const res = await api.put(`${CONFIG}/schedules/${schedule.id}`, { layers: [layers[0]] });
  t.equal(res.status, 200);
  await refreshCalendars(services);
  t.same((await api.get(`${CONFIG}/schedules/${schedule.id}/calendars`)).body.data.calendars, []);
  t.equal((await who('2026-03-23T08:30:00Z')).email, cy);
});

t.test('zones the calendar does not define, floating times, overlapping events', async (t) => {
  const text = [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x',
    'BEGIN:VEVENT', 'UID:a', 'DTSTAMP:20260101T000000Z', 'SUMMARY:a@example.com', 'DTSTART;TZID=America/New_York:20260310T090000', 'DTEND;TZID=America/New_York:20260310T170000', 'END:VEVENT',
    'BEGIN:VEVENT', 'UID:b', 'DTSTAMP:20260101T000000Z', 'SUMMARY:b@example.com', 'DTSTART:20260310T120000', 'DTEND:20260310T130000', 'END:VEVENT',
    'BEGIN:VEVENT', 'UID:c', 'DTSTAMP:20260101T000000Z', 'SUMMARY:c@example.com', 'STATUS:CANCELLED', 'DTSTART:20260310T100000Z', 'DTEND:20260310T110000Z', 'END:VEVENT',
    'END:VCALENDAR', '',
  ].join('\r\n');
  const occ = expandCalendar(text, 'Europe/Berlin', Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-04-01T00:00:00Z'));
  t.same(occ.map((o) => [new Date(o.start).toISOString(), new Date(o.end).toISOString(), o.summary]), [
    ['2026-03-10T13:00:00.000Z', '2026-03-10T21:00:00.000Z', 'a@example.com'],
    ['2026-03-10T11:00:00.000Z', '2026-03-10T12:00:00.000Z', 'b@example.com'],
  ], 'an IANA TZID without VTIMEZONE read as that zone (EDT since 8 March); a floating time in the schedule\'s zone; a cancelled event skipped');
  const pieces = flatten([{ start: 0, end: 10, email: 'a' }, { start: 4, end: 6, email: 'b' }]);
  t.same(pieces, [{ start: 0, end: 4, email: 'a' }, { start: 4, end: 6, email: 'b' }, { start: 6, end: 10, email: 'a' }], 'the later-starting event holds its time, then the earlier resumes');
  t.throws(() => expandCalendar('not a calendar', 'UTC', 0, 1));
});
