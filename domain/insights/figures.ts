/**
 * The insights figures put together from what history.ts read: the counts, per-day volumes and percentiles come
 * from SQL already; here the days are filled in, the ranked lists ordered, and pages placed in their person's zone.
 */
import { ZoneLine, DAY, HOUR } from '../oncall/zone.ts';

/** Median and 90th percentile (nearest rank) of durations in seconds; null when there are none (computed in SQL, history.ts). */
export interface Spread {
  count: number;
  median: number | null;
  p90: number | null;
}

/** A spread beside the previous range's, and how far it moved (this minus before; null when either is unknown). */
export function compared(current: Spread, previous: Spread) {
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  return { ...current, previous, median_change: delta(current.median, previous.median), p90_change: delta(current.p90, previous.p90) };
}

const utcDay = (t: number) => new Date(Math.floor(t / DAY) * DAY).toISOString().slice(0, 10);

/** Fires per UTC day over [from, to), every day listed (0 when none), from the days that had fires. */
export function volumeByDay(byDay: ReadonlyMap<string, number>, from: number, to: number): { day: string; fires: number }[] {
  const counts = new Map<string, number>();
  for (let d = Math.floor(from / DAY) * DAY; d < to; d += DAY) counts.set(utcDay(d), 0);
  for (const [day, n] of byDay) counts.set(day, (counts.get(day) ?? 0) + n);
  return [...counts].map(([day, n]) => ({ day, fires: n }));
}

/** An alert that fired at least FLAP_FIRES times in one UTC day is flapping (it resolved in between each time). */
export const FLAP_FIRES = 3;

/** When a page falls, in the zone of the person's schedule: working hours, the night, or the rest (evenings, weekends). */
export type PageTime = 'working_hours' | 'night' | 'off_hours';
/** Working hours: Monday to Friday, 09:00 to 18:00 local. The night: 22:00 to 07:00 local, any day. */
export const WORKING = { from: 9, to: 18 } as const;
export const NIGHT = { from: 22, to: 7 } as const;

export function pageTime(at: number, zone: string): PageTime {
  const local = new Date(ZoneLine.of(zone).localOf(at));
  const hour = local.getUTCHours();
  if (hour >= NIGHT.from || hour < NIGHT.to) return 'night';
  const weekday = local.getUTCDay();
  if (weekday >= 1 && weekday <= 5 && hour >= WORKING.from && hour < WORKING.to) return 'working_hours';
  return 'off_hours';
}

/** One page to one person: a distinct (escalation, step, loop, person) of the escalation engine's `notified` effects. */
export interface Page {
  email: string;
  at: number;
}

export interface Shift {
  email: string;
  start: number;
  end: number;
  zone: string;
}

/**
 * The zone a page is read in: the zone of the schedule that had the person on call at that instant, else of the
 * first of their schedules (by name), else UTC.
 */
export function zoneOf(page: Page, shifts: readonly Shift[], homes: ReadonlyMap<string, string>): string {
  for (const s of shifts) if (s.email === page.email && s.start <= page.at && page.at < s.end) return s.zone;
  return homes.get(page.email) ?? 'UTC';
}

export function pagesByPerson(pages: readonly Page[], shifts: readonly Shift[], homes: ReadonlyMap<string, string>) {
  const by = new Map<string, { email: string; total: number; working_hours: number; off_hours: number; night: number }>();
  for (const p of pages) {
    const row = by.get(p.email) ?? { email: p.email, total: 0, working_hours: 0, off_hours: 0, night: 0 };
    row.total++;
    row[pageTime(p.at, zoneOf(p, shifts, homes))]++;
    by.set(p.email, row);
  }
  return [...by.values()].sort((a, b) => b.total - a.total || a.email.localeCompare(b.email));
}

/** Hours on call per person over [from, to) (shifts clipped to the range; two schedules at once count twice), with pages received. */
export function onCallLoad(shifts: readonly Shift[], pages: readonly Page[], from: number, to: number) {
  const by = new Map<string, { email: string; hours_on_call: number; pages: number }>();
  const row = (email: string) => by.get(email) ?? by.set(email, { email, hours_on_call: 0, pages: 0 }).get(email)!;
  for (const s of shifts) {
    const ms = Math.min(s.end, to) - Math.max(s.start, from);
    if (ms > 0) row(s.email).hours_on_call += ms / HOUR;
  }
  for (const p of pages) row(p.email).pages++;
  return [...by.values()]
    .map((r) => ({ ...r, hours_on_call: Math.round(r.hours_on_call * 100) / 100 }))
    .sort((a, b) => b.hours_on_call - a.hours_on_call || a.email.localeCompare(b.email));
}
