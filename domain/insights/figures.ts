/**
 * The insights figures, computed from rows already read (history.ts): pure, so each definition (docs/insights.md)
 * is one function a test can hold against a history whose answer is known by construction.
 */
import { ZoneLine, DAY, HOUR } from '../oncall/zone.ts';

/** Median and 90th percentile (nearest rank) of durations in seconds; null when there are none. */
export interface Spread {
  count: number;
  median: number | null;
  p90: number | null;
}

/** Nearest-rank percentile: the smallest value at or above which `q` of the values lie. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, median: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

/** A spread beside the previous range's, and how far it moved (this minus before; null when either is unknown). */
export function compared(now: readonly number[], before: readonly number[]) {
  const current = spread(now);
  const previous = spread(before);
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  return { ...current, previous, median_change: delta(current.median, previous.median), p90_change: delta(current.p90, previous.p90) };
}

/** The latest cycle of an alert: raised (paged or joined a storm), perhaps acknowledged and resolved. */
export interface Cycle {
  raised: number;
  acknowledged: number | null;
  resolved: number | null;
}

/** Seconds from raise to acknowledgement, or to resolution, for cycles raised in [from, to). */
export function cycleDurations(cycles: readonly Cycle[], from: number, to: number, end: 'acknowledged' | 'resolved'): number[] {
  const out: number[] = [];
  for (const c of cycles) {
    const at = c[end];
    if (c.raised >= from && c.raised < to && at !== null && at >= c.raised) out.push((at - c.raised) / 1000);
  }
  return out;
}

/** One fire of an alert: a `page` or `page_skipped` effect (every fire writes exactly one of the two). */
export interface Fire {
  alert_id: string;
  fingerprint: string;
  title: string;
  service: string | null;
  at: number;
}

const utcDay = (t: number) => new Date(Math.floor(t / DAY) * DAY).toISOString().slice(0, 10);

/** Fires per UTC day over [from, to), every day listed (0 when none). */
export function volumeByDay(fires: readonly Fire[], from: number, to: number): { day: string; fires: number }[] {
  const counts = new Map<string, number>();
  for (let d = Math.floor(from / DAY) * DAY; d < to; d += DAY) counts.set(utcDay(d), 0);
  for (const f of fires) counts.set(utcDay(f.at), (counts.get(utcDay(f.at)) ?? 0) + 1);
  return [...counts].map(([day, n]) => ({ day, fires: n }));
}

/** Alerts by fires, most first (ties by fingerprint), at most `limit`. */
export function noisiest(fires: readonly Fire[], limit: number) {
  const by = new Map<string, { fingerprint: string; title: string; service: string | null; fires: number }>();
  for (const f of fires) {
    const row = by.get(f.alert_id) ?? { fingerprint: f.fingerprint, title: f.title, service: f.service, fires: 0 };
    row.fires++;
    by.set(f.alert_id, row);
  }
  return [...by.values()].sort((a, b) => b.fires - a.fires || a.fingerprint.localeCompare(b.fingerprint)).slice(0, limit);
}

/** An alert that fired at least FLAP_FIRES times in one UTC day is flapping (it resolved in between each time). */
export const FLAP_FIRES = 3;

/** Flapping alerts: the day with most fires of each alert that reached FLAP_FIRES on some day; most first. */
export function flapping(fires: readonly Fire[], limit: number) {
  const perDay = new Map<string, { fire: Fire; day: string; cycles: number }>();
  for (const f of fires) {
    const key = `${f.alert_id} ${utcDay(f.at)}`;
    const row = perDay.get(key) ?? { fire: f, day: utcDay(f.at), cycles: 0 };
    row.cycles++;
    perDay.set(key, row);
  }
  const worst = new Map<string, { fire: Fire; day: string; cycles: number; days: number }>();
  for (const row of perDay.values()) {
    if (row.cycles < FLAP_FIRES) continue;
    const seen = worst.get(row.fire.alert_id);
    if (!seen) worst.set(row.fire.alert_id, { ...row, days: 1 });
    else {
      seen.days++;
      if (row.cycles > seen.cycles || (row.cycles === seen.cycles && row.day < seen.day)) Object.assign(seen, { day: row.day, cycles: row.cycles });
    }
  }
  return [...worst.values()]
    .sort((a, b) => b.cycles - a.cycles || a.fire.fingerprint.localeCompare(b.fire.fingerprint))
    .slice(0, limit)
    .map((r) => ({ fingerprint: r.fire.fingerprint, title: r.fire.title, service: r.fire.service, day: r.day, cycles: r.cycles, flapping_days: r.days }));
}

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
