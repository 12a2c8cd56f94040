/**
 * Who is on call, from stored rows: a schedule's final shifts over a window, and who is on call at an instant with
 * until when and who comes next. Computations are cached per row version (the schedule's and its overrides'), so
 * paging, the console and the feeds asking the same question again cost a map lookup.
 */
import type { Row } from '../../engine/descriptor.ts';
import { finalSchedule, type FinalSchedule, type Layer, type OverrideInput, type Piece, type Shift } from './shifts.ts';
import { DAY } from './zone.ts';

/** The longest window one question may span. */
export const MAX_WINDOW = 366 * DAY;
/** schedules remembered, and windows remembered per schedule version */
const CACHE_SIZE = 2000;
const WINDOWS = 8;
const VERSIONS = 3;

/**
 * What is remembered of one schedule: the versions of the rows it was computed from (the schedule's, and each
 * override's id and version in the order given) and the final schedules of the windows asked for. Comparing the
 * versions costs no allocation, so a question whose rows are unchanged is a few comparisons and a map lookup.
 */
interface Entry {
  schedule: string | number;
  /** the fetch times of the calendars its layers follow (calendar.ts) */
  calendars: string;
  ids: string[];
  stamps: (string | number)[];
  windows: Map<string, FinalSchedule>;
}
const cache = new Map<string, Entry[]>();

/** One stored calendar of a schedule (calendar.ts): its last good fetch's intervals and its status. */
export interface CalendarRow { url: string; checked_at: Date | null; fetched_at: Date | null; events: Piece[]; unmatched: string[]; error: string | null }
/**
 * The calendars of each schedule as last read from `schedule_calendars`, by URL, with a stamp of their fetch times
 * that joins the cache's version check: a refreshed calendar is a new version of its schedule.
 */
const calendars = new Map<string, { stamp: string; byUrl: Map<string, Piece[]> }>();
const NO_CALENDARS = { stamp: '', byUrl: new Map<string, Piece[]>() };

/** Remembers a schedule's stored calendars (every read of them and every refresh calls this). */
export function rememberCalendars(scheduleId: string, rows: readonly CalendarRow[]): void {
  if (!rows.length) return void calendars.delete(scheduleId);
  calendars.set(scheduleId, { stamp: rows.map((r) => `${r.url}@${r.fetched_at?.getTime() ?? ''}`).join('|'), byUrl: new Map(rows.map((r) => [r.url, r.events])) });
}
const calendarsOf = (schedule: Row) => calendars.get(String(schedule.id)) ?? NO_CALENDARS;

/** The schedule's layers, a calendar layer carrying its remembered intervals. */
function layersOf(schedule: Row): Layer[] {
  const layers = (schedule.layers as Layer[]) ?? [];
  if (!layers.some((l) => l.ical_url)) return layers;
  const { byUrl } = calendarsOf(schedule);
  return layers.map((l) => (l.ical_url ? { ...l, calendar: byUrl.get(l.ical_url) ?? [] } : l));
}

/** A stored time (a Date from the database, a string from an answer) as a cheap comparable value. */
const stamp = (value: unknown) => (value instanceof Date ? value.getTime() : String(value));
/** Stored rows as the computation reads them (only those in the window are looked at beyond their times). */
const overrideInputs = (rows: readonly Row[]) => rows as unknown as readonly OverrideInput[];

function sameVersion(entry: Entry, schedule: Row, overrides: readonly Row[]): boolean {
  if (entry.schedule !== stamp(schedule.updated_at) || entry.ids.length !== overrides.length || entry.calendars !== calendarsOf(schedule).stamp) return false;
  for (let i = 0; i < overrides.length; i++) {
    const o = overrides[i]!;
    if (entry.ids[i] !== String(o.id) || entry.stamps[i] !== stamp(o.updated_at)) return false;
  }
  return true;
}

/**
 * The cache entry of these rows' versions. A schedule keeps up to VERSIONS entries, newest first: who is on call
 * reads only the overrides that have not ended, a schedule's page all of them, and both stay remembered.
 */
function entryOf(schedule: Row, overrides: readonly Row[]): Entry {
  const id = String(schedule.id);
  const entries = cache.get(id) ?? [];
  const found = entries.find((e) => sameVersion(e, schedule, overrides));
  if (found) return found;
  const entry: Entry = { schedule: stamp(schedule.updated_at), calendars: calendarsOf(schedule).stamp, ids: overrides.map((o) => String(o.id)), stamps: overrides.map((o) => stamp(o.updated_at)), windows: new Map() };
  cache.delete(id);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(id, [entry, ...entries.slice(0, VERSIONS - 1)]);
  return entry;
}

function cached(entry: Entry, schedule: Row, overrides: readonly Row[], from: number, to: number): FinalSchedule {
  const key = `${from}|${to}`;
  const hit = entry.windows.get(key);
  if (hit) return hit;
  const computed = finalSchedule({ time_zone: String(schedule.time_zone), layers: layersOf(schedule) }, overrideInputs(overrides), from, to);
  if (entry.windows.size >= WINDOWS) entry.windows.delete(entry.windows.keys().next().value!);
  entry.windows.set(key, computed);
  return computed;
}

/** The final schedule of stored rows over [from, to), cached by the rows' versions. */
export function scheduleOf(schedule: Row, overrides: readonly Row[], from: number, to: number): FinalSchedule {
  return cached(entryOf(schedule, overrides), schedule, overrides, from, to);
}

/** Overrides by their schedule, each list in the order read. */
export function groupBySchedule(overrides: readonly Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const o of overrides) {
    const id = String(o.schedule_id);
    const list = out.get(id);
    if (list) list.push(o);
    else out.set(id, [o]);
  }
  return out;
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
  const entry = entryOf(schedule, overrides);
  for (let i = 0; ; i++) {
    const last = i === HORIZONS.length - 1;
    const to = day + DAY + HORIZONS[i]!;
    const { shifts } = cached(entry, schedule, overrides, day, to);
    let c = 0;
    while (c < shifts.length && shifts[c]!.end <= at) c++;
    const current = c < shifts.length && shifts[c]!.start <= at ? shifts[c]! : null;
    // shifts are in order and apart: the next is the first that starts at or after the current one's end (or `at`)
    const after = current?.end ?? at;
    let n = current ? c + 1 : c;
    while (n < shifts.length && shifts[n]!.start < after) n++;
    const next = shifts[n] ?? null;
    const currentOpen = current !== null && current.end === to;
    if (!last && (currentOpen || !next)) continue;
    return { current, next, until_known: !currentOpen };
  }
}

/** Forgets every cached computation (the benchmark's cold runs). */
export function clearOnCallCache(): void {
  cache.clear();
}
