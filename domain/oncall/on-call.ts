/**
 * Who is on call, from stored rows: a schedule's final shifts over a window, and who is on call at an instant with
 * until when and who comes next. Computations are cached per row version (the schedule's and its overrides'), so
 * paging, the console and the feeds asking the same question again cost a map lookup.
 */
import type { Row } from '../../engine/descriptor.ts';
import { finalSchedule, type FinalSchedule, type Layer, type OverrideInput, type Shift } from './shifts.ts';
import { DAY } from './zone.ts';

/** The longest window one question may span. */
export const MAX_WINDOW = 366 * DAY;
const CACHE_SIZE = 2000;
const cache = new Map<string, FinalSchedule>();

/** A stored time (a Date from the database, a string from an answer) as a cheap cache-key part. */
const stamp = (value: unknown) => (value instanceof Date ? value.getTime() : String(value));
const time = (value: unknown) => (value instanceof Date ? value : String(value));

export function overrideInputs(rows: readonly Row[]): OverrideInput[] {
  return rows.map((o) => ({ id: String(o.id), start: time(o.start), end: time(o.end), email: String(o.email), replaces: (o.replaces as string | null) ?? null, created_at: time(o.created_at) }));
}

/** The final schedule of stored rows over [from, to), cached by the rows' versions. */
export function scheduleOf(schedule: Row, overrides: readonly Row[], from: number, to: number): FinalSchedule {
  const key = `${schedule.id}@${stamp(schedule.updated_at)}|${overrides.map((o) => `${o.id}@${stamp(o.updated_at)}`).join(',')}|${from}|${to}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const computed = finalSchedule({ time_zone: String(schedule.time_zone), layers: (schedule.layers as Layer[]) ?? [] }, overrideInputs(overrides), from, to);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, computed);
  return computed;
}

export interface OnCall {
  /** the shift covering the instant, its end the whole stretch this person is on call (null: no one) */
  current: Shift | null;
  /** the shift after it (null: none within a year) */
  next: Shift | null;
  /** false when the current shift runs past the year looked at: its end is then that horizon */
  until_known: boolean;
}

const HORIZONS = [DAY, 8 * DAY, 35 * DAY, MAX_WINDOW - DAY];

/**
 * Who is on call at `at` and who next, looking as far ahead as needed (at most a year). Windows start at the UTC day
 * of `at`, so every question about one day shares one cached computation.
 */
export function onCallAt(schedule: Row, overrides: readonly Row[], at: number): OnCall {
  const day = Math.floor(at / DAY) * DAY;
  for (const [i, horizon] of HORIZONS.entries()) {
    const last = i === HORIZONS.length - 1;
    const to = day + DAY + horizon;
    const { shifts } = scheduleOf(schedule, overrides, day, to);
    const current = shifts.find((s) => s.start <= at && at < s.end) ?? null;
    const next = shifts.find((s) => s.start >= (current?.end ?? at)) ?? null;
    const currentOpen = current !== null && current.end === to;
    if (!last && (currentOpen || !next)) continue;
    return { current, next, until_known: !currentOpen };
  }
  throw new Error('unreachable: the last horizon always answers');
}

/** Forgets every cached computation (the benchmark's cold runs). */
export function clearOnCallCache(): void {
  cache.clear();
}
