/**
 * The final-schedule computation against a naive reference that walks the window minute by minute: random layers,
 * restrictions and overrides in zones with unusual rules, around both daylight-saving changes of a year; then the
 * edge rules of DESIGN.md one by one.
 *
 * The reference shares no code with domain/oncall: per minute it asks Temporal for the wall-clock reading and keeps
 * the highest reading reached so far (a local time starts at the first instant the clock reaches it, which is what
 * puts a skipped time at the end of the gap and a repeated one at its first occurrence).
 */
import t from 'tap';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { finalSchedule, type Layer, type OverrideInput, type ScheduleInput, type Shift, type Source } from '../../../domain/oncall/shifts.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const UNIT = { hourly: HOUR, daily: DAY, weekly: 7 * DAY };

const QUARTER = 15 * MINUTE;
const offsets = new Map<string, number>();
/** The wall-clock reading, as naive ms; every zone here changes on a quarter hour of UTC, so one answer per quarter. */
const naiveLocal = (zone: string, t: number) => {
  const q = t - (((t % QUARTER) + QUARTER) % QUARTER);
  let offset = offsets.get(`${zone}|${q}`);
  if (offset === undefined) {
    const z = Temporal.Instant.fromEpochMilliseconds(q).toZonedDateTimeISO(zone);
    offsets.set(`${zone}|${q}`, (offset = Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second) - q));
  }
  return t + offset;
};
const localMs = (text: string) => {
  const p = Temporal.PlainDateTime.from(text);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
};
const clock = (hhmm: string) => Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;

function reference(schedule: ScheduleInput, overrides: OverrideInput[], from: number, to: number): Shift[] {
  let reached = -Infinity;
  for (let t = from - 4 * HOUR; t < from; t += MINUTE) reached = Math.max(reached, naiveLocal(schedule.time_zone, t));
  const layerAt = (layer: Layer, m: number): string | null => {
    const handoff = localMs(layer.handoff!);
    if (m < handoff || (layer.ends && m >= localMs(layer.ends))) return null;
    if (layer.restrictions?.length) {
      const day = Math.floor(m / DAY);
      const tod = m - day * DAY;
      const dayName = (d: number) => DAYS[(((d + 3) % 7) + 7) % 7]!;
      const open = layer.restrictions.some((r) => {
        const f = clock(r.from);
        const e = clock(r.to);
        if (f < e) return r.days.includes(dayName(day)) && tod >= f && tod < e;
        return (r.days.includes(dayName(day)) && tod >= f) || (r.days.includes(dayName(day - 1)) && tod < e);
      });
      if (!open) return null;
    }
    const k = Math.floor((m - handoff) / (layer.rotation!.length * UNIT[layer.rotation!.unit]));
    return layer.participants![k % layer.participants!.length]!;
  };
  const out: Shift[] = [];
  for (let t = from; t < to; t += MINUTE) {
    reached = Math.max(reached, naiveLocal(schedule.time_zone, t));
    let email: string | null = null;
    let source: Source | null = null;
    for (let i = schedule.layers.length - 1; i >= 0 && !email; i--) {
      email = layerAt(schedule.layers[i]!, reached);
      if (email) source = { layer: i };
    }
    const winner = overrides
      .filter((o) => Date.parse(String(o.start)) <= t && t < Date.parse(String(o.end)) && (o.replaces == null || o.replaces === email))
      .sort((a, b) => Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)))[0];
    if (winner) {
      email = winner.email;
      source = { override: winner.id };
    }
    if (!email) continue;
    const prev = out.at(-1);
    if (prev && prev.end === t && prev.email === email && JSON.stringify(prev.source) === JSON.stringify(source)) prev.end = t + MINUTE;
    else out.push({ start: t, end: t + MINUTE, email, source: source! });
  }
  return out;
}

/** The instants of a zone's changes in a year (none for a zone without daylight saving). */
function changes(zone: string, year: number): number[] {
  const out: number[] = [];
  let at = Temporal.ZonedDateTime.from(`${year}-01-01T00:00[${zone}]`);
  for (let next = at.getTimeZoneTransition('next'); next && next.year === year; next = next.getTimeZoneTransition('next')) out.push(next.epochMilliseconds);
  return out;
}

const PEOPLE = ['ana@example.com', 'ben@example.com', 'cy@example.com', 'di@example.com'];
const iso = (ms: number) => new Date(ms).toISOString();
const localText = (ms: number) => new Date(ms).toISOString().slice(0, 16);
/** clock times on the quarter hour, and the odd ones the zones change at (02:45 in Chatham, 02:30 on Lord Howe) */
const clockArb = fc.integer({ min: 0, max: 95 }).map((q) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`);

function caseArb(zone: string, pivot: number) {
  const pivotLocal = naiveLocal(zone, pivot);
  const restriction = fc.record({ days: fc.subarray(DAYS, { minLength: 1 }), from: clockArb, to: clockArb }).filter((r) => r.from !== r.to);
  const layer = fc.record({
    participants: fc.shuffledSubarray(PEOPLE, { minLength: 1 }),
    unit: fc.constantFrom('hourly', 'daily', 'weekly') as fc.Arbitrary<'hourly' | 'daily' | 'weekly'>,
    length: fc.integer({ min: 1, max: 30 }),
    // handoffs near the change, on the quarter hour, many of them inside the skipped or repeated hour
    handoffQuarters: fc.integer({ min: -4 * 24 * 9, max: 4 * 24 }),
    endsQuarters: fc.option(fc.integer({ min: 1, max: 4 * 24 * 6 }), { nil: undefined }),
    restrictions: fc.array(restriction, { maxLength: 2 }),
  }).map((l): Layer => {
    const handoff = Math.floor(pivotLocal / (15 * MINUTE)) * 15 * MINUTE + l.handoffQuarters * 15 * MINUTE;
    return {
      name: 'L', participants: l.participants, rotation: { unit: l.unit, length: l.unit === 'hourly' ? l.length : Math.ceil(l.length / 10) },
      handoff: localText(handoff), ends: l.endsQuarters ? localText(handoff + l.endsQuarters * 15 * MINUTE * 4) : null, restrictions: l.restrictions,
    };
  });
  const windowStart = fc.integer({ min: -48 * 4, max: 8 }).map((q) => Math.floor(pivot / (15 * MINUTE)) * 15 * MINUTE + q * 15 * MINUTE);
  const override = fc.record({ startMin: fc.integer({ min: -120, max: 60 * 60 }), minutes: fc.integer({ min: 1, max: 60 * 30 }), who: fc.constantFrom(...PEOPLE), replaces: fc.option(fc.constantFrom(...PEOPLE), { nil: null }) });
  return fc.record({ layers: fc.array(layer, { minLength: 1, maxLength: 3 }), from: windowStart, hours: fc.integer({ min: 1, max: 60 }), overrides: fc.array(override, { maxLength: 4 }) })
    .map((c) => ({
      schedule: { time_zone: zone, layers: c.layers },
      from: c.from,
      to: c.from + c.hours * HOUR,
      overrides: c.overrides.map((o, i): OverrideInput => ({
        id: `o${i}`, start: iso(c.from + o.startMin * MINUTE), end: iso(c.from + (o.startMin + o.minutes) * MINUTE), email: o.who, replaces: o.replaces, created_at: iso(Date.UTC(2020, 0, 1) + i * 1000),
      })),
    }));
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham'];

t.test('the final schedule equals the minute-by-minute reference', async (t) => {
  for (const zone of ZONES) {
    const pivots = changes(zone, 2030);
    for (const pivot of pivots.length ? pivots : [Date.UTC(2030, 2, 31), Date.UTC(2030, 9, 27)]) {
      fc.assert(
        fc.property(caseArb(zone, pivot), (c) => {
          const fast = finalSchedule(c.schedule, c.overrides, c.from, c.to).shifts;
          const slow = reference(c.schedule, c.overrides, c.from, c.to);
          if (JSON.stringify(fast) !== JSON.stringify(slow)) throw new Error(`differs:\n${JSON.stringify(fast)}\n${JSON.stringify(slow)}`);
        }),
        { numRuns: 12, seed: 36 },
      );
      t.pass(`${zone}, around ${iso(pivot)}`);
    }
  }
});

const one = (zone: string, layer: Partial<Layer>, from: string, to: string, overrides: OverrideInput[] = []) =>
  finalSchedule(
    { time_zone: zone, layers: [{ name: 'L', participants: ['ana@example.com', 'ben@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T09:00', ...layer }] },
    overrides, Date.parse(from), Date.parse(to),
  ).shifts.map((s) => ({ start: iso(s.start), end: iso(s.end), email: s.email }));

t.test('a daily handoff stays at 09:00 across the change: that shift is 23 or 25 hours', async (t) => {
  const spring = one('Europe/Berlin', {}, '2030-03-30T08:00:00Z', '2030-04-01T07:00:00Z');
  t.same(spring.map((s) => s.start), ['2030-03-30T08:00:00.000Z', '2030-03-31T07:00:00.000Z'], '09:00 CET, then 09:00 CEST');
  t.equal(Date.parse(spring[0]!.end) - Date.parse(spring[0]!.start), 23 * HOUR);
  const autumn = one('Europe/Berlin', {}, '2030-10-26T07:00:00Z', '2030-10-28T08:00:00Z');
  t.equal(Date.parse(autumn[0]!.end) - Date.parse(autumn[0]!.start), 25 * HOUR);
});

t.test('an hourly rotation of length 24 behaves exactly like a daily one (wall-clock hours)', async (t) => {
  const window = ['2030-03-25T00:00:00Z', '2030-04-05T00:00:00Z'] as const;
  t.same(one('America/New_York', { rotation: { unit: 'hourly', length: 24 } }, ...window), one('America/New_York', {}, ...window));
  t.same(one('Europe/Berlin', { rotation: { unit: 'hourly', length: 24 } }, '2030-10-20T00:00:00Z', '2030-11-01T00:00:00Z'), one('Europe/Berlin', {}, '2030-10-20T00:00:00Z', '2030-11-01T00:00:00Z'));
});

t.test('a handoff in a skipped hour starts at the first instant after the gap; in a repeated hour at its first occurrence', async (t) => {
  const skipped = one('America/Chicago', { handoff: '2030-03-10T02:30' }, '2030-03-09T00:00:00Z', '2030-03-12T00:00:00Z');
  t.equal(skipped[0]!.start, '2030-03-10T08:00:00.000Z', '02:30 on the spring-forward night starts at 03:00 CDT');
  t.equal(skipped[0]!.end, '2030-03-11T07:30:00.000Z', 'and the next handoff is at 02:30 CDT');
  const repeated = one('America/New_York', { handoff: '2030-11-03T01:30' }, '2030-11-02T00:00:00Z', '2030-11-04T00:00:00Z');
  t.equal(repeated[0]!.start, '2030-11-03T05:30:00.000Z', '01:30 EDT, the first of the two');
  const lordHowe = one('Australia/Lord_Howe', { handoff: '2030-10-06T02:15' }, '2030-10-05T00:00:00Z', '2030-10-07T00:00:00Z');
  t.equal(lordHowe[0]!.start, Temporal.ZonedDateTime.from('2030-10-06T02:30+11:00[Australia/Lord_Howe]').toInstant().toString({ smallestUnit: 'millisecond' }), 'the 30-minute gap ends at 02:30 +11:00');
});

t.test('a restriction window that spans midnight belongs to the day it starts on', async (t) => {
  const nights = one('UTC', { participants: ['ana@example.com'], restrictions: [{ days: ['fri'], from: '22:00', to: '06:00' }] }, '2030-01-03T00:00:00Z', '2030-01-06T00:00:00Z');
  t.same(nights, [{ start: '2030-01-04T22:00:00.000Z', end: '2030-01-05T06:00:00.000Z', email: 'ana@example.com' }], 'Friday 22:00 to Saturday 06:00, not Thursday night');
});

t.test('overrides: the newest wins; with replaces only that person\'s time is taken; sources named', async (t) => {
  const o = (id: string, start: string, end: string, email: string, replaces: string | null, created: number): OverrideInput => ({ id, start, end, email, replaces, created_at: iso(Date.UTC(2029, 0, created)) });
  const schedule: ScheduleInput = { time_zone: 'UTC', layers: [{ name: 'L', participants: ['ana@example.com', 'ben@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T00:00' }] };
  const got = finalSchedule(schedule, [
    o('old', '2030-01-01T06:00:00Z', '2030-01-01T18:00:00Z', 'cy@example.com', null, 1),
    o('new', '2030-01-01T12:00:00Z', '2030-01-01T14:00:00Z', 'di@example.com', null, 2),
    o('only-ben', '2030-01-01T20:00:00Z', '2030-01-02T04:00:00Z', 'cy@example.com', 'ben@example.com', 3),
  ], Date.parse('2030-01-01T00:00:00Z'), Date.parse('2030-01-02T12:00:00Z')).shifts;
  t.same(got.map((s) => [iso(s.start).slice(0, 16), iso(s.end).slice(0, 16), s.email, s.source]), [
    ['2030-01-01T00:00', '2030-01-01T06:00', 'ana@example.com', { layer: 0 }],
    ['2030-01-01T06:00', '2030-01-01T12:00', 'cy@example.com', { override: 'old' }],
    ['2030-01-01T12:00', '2030-01-01T14:00', 'di@example.com', { override: 'new' }],
    ['2030-01-01T14:00', '2030-01-01T18:00', 'cy@example.com', { override: 'old' }],
    ['2030-01-01T18:00', '2030-01-02T00:00', 'ana@example.com', { layer: 0 }],
    ['2030-01-02T00:00', '2030-01-02T04:00', 'cy@example.com', { override: 'only-ben' }],
    ['2030-01-02T04:00', '2030-01-02T12:00', 'ben@example.com', { layer: 0 }],
  ], 'the replaces-ana override never touches ana\'s time; one person at a time');
});
