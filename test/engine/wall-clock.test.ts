/** The one wall-clock reader (engine/wall-clock.ts) that the AI budget month, quiet hours and daily digests share. */
import t from 'tap';
import { atLocalHour, offsetAt, wallClock } from '../../engine/wall-clock.ts';

t.test('wall clock and offset in zones ahead of, behind and off the hour from UTC', async (t) => {
  t.same(wallClock(new Date('2026-03-01T23:30:15Z'), 'Asia/Kolkata'), { year: 2026, month: 3, day: 2, hour: 5, minute: 0, second: 15 });
  t.same(wallClock(new Date('2026-03-01T00:00:00Z'), 'America/New_York'), { year: 2026, month: 2, day: 28, hour: 19, minute: 0, second: 0 });
  t.equal(offsetAt(Date.parse('2026-03-01T12:00:00Z'), 'Asia/Kolkata'), 5.5 * 3_600_000);
  t.equal(offsetAt(Date.parse('2026-07-01T12:00:00Z'), 'America/New_York'), -4 * 3_600_000, 'daylight time');
  t.throws(() => wallClock(new Date(), 'Mars/Olympus'), RangeError, 'an unknown zone throws; callers choose the stand-in');
});

t.test('an hour that a daylight-saving change skips or repeats', async (t) => {
  t.equal(atLocalHour(2026, 3, 8, 8, 'America/New_York').toISOString(), '2026-03-08T12:00:00.000Z', 'an ordinary hour on the change day');
  t.equal(atLocalHour(2026, 3, 8, 2, 'America/New_York').toISOString(), '2026-03-08T07:00:00.000Z', '02:00 does not exist: the end of the gap (03:00 EDT)');
  t.equal(atLocalHour(2026, 11, 1, 1, 'America/New_York').toISOString(), '2026-11-01T05:00:00.000Z', '01:00 happens twice: the first (EDT)');
  t.equal(atLocalHour(2026, 3, 1, 9, 'UTC').toISOString(), '2026-03-01T09:00:00.000Z');
});
