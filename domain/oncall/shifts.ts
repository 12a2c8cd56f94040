/**
 * The final schedule, pure: a schedule's layers and its overrides over a window of instants → the shifts, each with
 * who and where it came from. Times are ms since the epoch; local boundaries go through the zone's line (zone.ts).
 *
 * A layer's shift k runs from local handoff + k·length units to handoff + (k+1)·length (hourly counts wall-clock
 * hours), clipped to `ends` and to its restriction windows; a window from→to belongs to the day it starts on. The
 * topmost layer that has someone wins; then the newest override that applies (no `replaces`, or `replaces` is the
 * person the layers give) takes its time. Adjacent pieces with the same person and source are one shift.
 */
import { DAY, HOUR, parseClock, parseLocal, ZoneLine } from './zone.ts';

export interface Restriction { days: readonly string[]; from: string; to: string }
export interface Layer {
  name: string;
  /** a rotation layer's people, rotation and handoff (a calendar layer has none of the first two) */
  participants?: readonly string[];
  rotation?: { unit: 'hourly' | 'daily' | 'weekly'; length: number };
  handoff?: string;
  /** a calendar layer: its events (calendar.ts) are handed in as `calendar`, in order and apart */
  ical_url?: string | null;
  calendar?: readonly Piece[];
  ends?: string | null;
  restrictions?: readonly Restriction[];
}
export interface ScheduleInput { time_zone: string; layers: readonly Layer[] }
/** times as instants written ISO-8601, or Dates as the database answers them */
export interface OverrideInput { id: string; start: string | Date; end: string | Date; email: string; replaces?: string | null; created_at: string | Date }
const ms = (value: string | Date) => (value instanceof Date ? value.getTime() : Date.parse(String(value)));

export type Source = { layer: number } | { override: string };
export interface Piece { start: number; end: number; email: string }
export interface Shift extends Piece { source: Source }
export interface FinalSchedule {
  shifts: Shift[];
  /** each layer's own shifts in the window (restrictions applied), bottom layer first: what the timeline draws */
  layers: Piece[][];
}

const UNIT = { hourly: HOUR, daily: DAY, weekly: 7 * DAY } as const;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** weekday of a naive local day number (1970-01-01 was a Thursday) */
const weekdayIndex = (day: number) => (((day + 3) % 7) + 7) % 7;

/** The restriction windows of a layer that touch [from, to), as merged instants. */
function windows(line: ZoneLine, restrictions: readonly Restriction[], from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const first = Math.floor(line.localOf(from) / DAY) - 1;
  const last = Math.floor(line.localOf(to) / DAY) + 1;
  const parsed = restrictions.map((r) => {
    const open = parseClock(r.from);
    const close = parseClock(r.to);
    return { days: WEEKDAYS.map((d) => r.days.includes(d)), open, close: (close > open ? 0 : DAY) + close };
  });
  for (let day = first; day <= last; day++) {
    const wd = weekdayIndex(day);
    for (const r of parsed) {
      if (!r.days[wd]) continue;
      const start = line.instantOf(day * DAY + r.open);
      const end = line.instantOf(day * DAY + r.close);
      if (end > from && start < to && start < end) out.push([start, end]);
    }
  }
  if (parsed.length > 1) out.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const w of out) {
    const prev = merged.at(-1);
    if (prev && w[0] <= prev[1]) prev[1] = Math.max(prev[1], w[1]);
    else merged.push(w);
  }
  return merged;
}

/** One layer's pieces in [from, to). */
export function layerPieces(line: ZoneLine, layer: Layer, from: number, to: number): Piece[] {
  const pieces = layer.ical_url ? calendarPieces(line, layer, from, to) : rotationPieces(line, layer, from, to);
  if (!layer.restrictions?.length || !pieces.length) return pieces;
  // both lists are in order and without overlaps: walk them together
  const open = windows(line, layer.restrictions, from, to);
  const clipped: Piece[] = [];
  let w = 0;
  for (const p of pieces) {
    while (w < open.length && open[w]![1] <= p.start) w++;
    for (let v = w; v < open.length && open[v]![0] < p.end; v++) {
      const s = Math.max(p.start, open[v]![0]);
      const e = Math.min(p.end, open[v]![1]);
      if (s < e) clipped.push({ start: s, end: e, email: p.email });
    }
  }
  return clipped;
}

/** A calendar layer's pieces in [from, to): its events from handoff (when given) until ends. */
function calendarPieces(line: ZoneLine, layer: Layer, from: number, to: number): Piece[] {
  const start = Math.max(from, layer.handoff ? line.instantOf(parseLocal(layer.handoff)) : -Infinity);
  const stop = Math.min(to, layer.ends ? line.instantOf(parseLocal(layer.ends)) : Infinity);
  const out: Piece[] = [];
  for (const p of layer.calendar ?? []) {
    const s = Math.max(p.start, start);
    const e = Math.min(p.end, stop);
    if (s < e) out.push({ start: s, end: e, email: p.email });
  }
  return out;
}

/** A rotation layer's pieces in [from, to), before restrictions. */
function rotationPieces(line: ZoneLine, layer: Layer, from: number, to: number): Piece[] {
  if (!layer.rotation || !layer.handoff || !layer.participants?.length) return [];
  const period = layer.rotation.length * UNIT[layer.rotation.unit];
  const handoff = parseLocal(layer.handoff);
  const stop = Math.min(to, layer.ends ? line.instantOf(parseLocal(layer.ends)) : Infinity);
  const boundary = (k: number) => line.instantOf(handoff + k * period);
  let k = Math.max(0, Math.floor((line.localOf(from) - handoff) / period));
  while (k > 0 && boundary(k) > from) k--;
  let start = boundary(k);
  let end = boundary(k + 1);
  while (end <= from) {
    k++;
    start = end;
    end = boundary(k + 1);
  }
  const n = layer.participants.length;
  const pieces: Piece[] = [];
  while (start < stop) {
    const s = Math.max(start, from);
    const e = Math.min(end, stop);
    if (s < e) pieces.push({ start: s, end: e, email: layer.participants[k % n]! });
    k++;
    start = end;
    if (start < stop) end = boundary(k + 1);
  }
  return pieces;
}

/** The final schedule over [from, to) (instants in ms). */
export function finalSchedule(schedule: ScheduleInput, overrides: readonly OverrideInput[], from: number, to: number): FinalSchedule {
  const line = ZoneLine.of(schedule.time_zone);
  const layers = schedule.layers.map((layer) => layerPieces(line, layer, from, to));
  // only the overrides that touch the window are looked at further
  const ranked: { id: string; start: number; end: number; email: string; replaces: string | null; created: number; rank: number }[] = [];
  for (const o of overrides) {
    const start = ms(o.start);
    const end = ms(o.end);
    if (start < to && end > from && start < end) ranked.push({ id: String(o.id), start, end, email: String(o.email), replaces: o.replaces ?? null, created: ms(o.created_at), rank: 0 });
  }
  ranked.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  ranked.forEach((o, rank) => (o.rank = rank));
  const byStart = [...ranked].sort((a, b) => a.start - b.start);

  // every instant where something may change, in order (a typed array sorts numbers natively)
  let count = 2 + 2 * ranked.length;
  for (const pieces of layers) count += 2 * pieces.length;
  const points = new Float64Array(count);
  let c = 0;
  points[c++] = from;
  points[c++] = to;
  for (const pieces of layers) for (const p of pieces) (points[c++] = p.start), (points[c++] = p.end);
  for (const o of ranked) (points[c++] = Math.max(o.start, from)), (points[c++] = Math.min(o.end, to));
  points.sort();

  const cursor = layers.map(() => 0);
  const active: typeof ranked = [];
  let next = 0;
  const shifts: Shift[] = [];
  // the last shift's source as numbers, so a piece that continues it allocates nothing
  let lastLayer = -1;
  let lastOverride: string | null = null;
  for (let j = 0; j + 1 < points.length; j++) {
    const at = points[j]!;
    const end = points[j + 1]!;
    if (end === at) continue;
    let email: string | null = null;
    let layer = -1;
    for (let i = layers.length - 1; i >= 0; i--) {
      const pieces = layers[i]!;
      while (cursor[i]! < pieces.length && pieces[cursor[i]!]!.end <= at) cursor[i]!++;
      const p = pieces[cursor[i]!];
      if (!email && p && p.start <= at) {
        email = p.email;
        layer = i;
      }
    }
    while (next < byStart.length && byStart[next]!.start <= at) active.push(byStart[next++]!);
    let winner: (typeof ranked)[number] | null = null;
    let kept = 0;
    for (const o of active) {
      if (o.end <= at) continue;
      active[kept++] = o;
      if ((o.replaces === null || o.replaces === email) && (!winner || o.rank > winner.rank)) winner = o;
    }
    active.length = kept;
    if (winner) {
      email = winner.email;
      layer = -1;
    }
    if (!email) continue;
    const override = winner ? winner.id : null;
    const prev = shifts.at(-1);
    if (prev && prev.end === at && prev.email === email && lastLayer === layer && lastOverride === override) prev.end = end;
    else {
      shifts.push({ start: at, end, email, source: winner ? { override: winner.id } : { layer } });
      lastLayer = layer;
      lastOverride = override;
    }
  }
  return { shifts, layers };
}
