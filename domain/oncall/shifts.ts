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
  participants: readonly string[];
  rotation: { unit: 'hourly' | 'daily' | 'weekly'; length: number };
  handoff: string;
  ends?: string | null;
  restrictions?: readonly Restriction[];
}
export interface ScheduleInput { time_zone: string; layers: readonly Layer[] }
/** times as instants written ISO-8601, or Dates as the database answers them */
export interface OverrideInput { id: string; start: string | Date; end: string | Date; email: string; replaces?: string | null; created_at: string | Date }
const ms = (value: string | Date) => (value instanceof Date ? value.getTime() : Date.parse(value));

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
const weekday = (day: number) => WEEKDAYS[(((day + 3) % 7) + 7) % 7]!;

/** The restriction windows of a layer that touch [from, to), as merged instants. */
function windows(line: ZoneLine, restrictions: readonly Restriction[], from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const first = Math.floor(line.localOf(from) / DAY) - 1;
  const last = Math.floor(line.localOf(to) / DAY) + 1;
  for (let day = first; day <= last; day++) {
    for (const r of restrictions) {
      if (!r.days.includes(weekday(day))) continue;
      const open = parseClock(r.from);
      const close = parseClock(r.to);
      const start = line.instantOf(day * DAY + open);
      const end = line.instantOf(day * DAY + (close > open ? 0 : DAY) + close);
      if (end > from && start < to && start < end) out.push([start, end]);
    }
  }
  out.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const w of out) {
    const prev = merged.at(-1);
    if (prev && w[0] <= prev[1]) prev[1] = Math.max(prev[1], w[1]);
    else merged.push([...w]);
  }
  return merged;
}

/** One layer's pieces in [from, to). */
export function layerPieces(line: ZoneLine, layer: Layer, from: number, to: number): Piece[] {
  const period = layer.rotation.length * UNIT[layer.rotation.unit];
  const handoff = parseLocal(layer.handoff);
  const stop = Math.min(to, layer.ends ? line.instantOf(parseLocal(layer.ends)) : Infinity);
  const boundary = (k: number) => line.instantOf(handoff + k * period);
  let k = Math.max(0, Math.floor((line.localOf(from) - handoff) / period));
  while (k > 0 && boundary(k) > from) k--;
  while (boundary(k + 1) <= from) k++;
  const n = layer.participants.length;
  let pieces: Piece[] = [];
  for (let start = boundary(k); start < stop; k++) {
    const end = boundary(k + 1);
    const s = Math.max(start, from);
    const e = Math.min(end, stop);
    if (s < e) pieces.push({ start: s, end: e, email: layer.participants[k % n]! });
    start = end;
  }
  if (layer.restrictions?.length && pieces.length) {
    const open = windows(line, layer.restrictions, from, to);
    pieces = pieces.flatMap((p) => open.flatMap(([ws, we]) => {
      const s = Math.max(p.start, ws);
      const e = Math.min(p.end, we);
      return s < e ? [{ start: s, end: e, email: p.email }] : [];
    }));
  }
  return pieces;
}

const sameSource = (a: Source, b: Source) => ('layer' in a ? 'layer' in b && a.layer === b.layer : 'override' in b && a.override === b.override);

/** The final schedule over [from, to) (instants in ms). */
export function finalSchedule(schedule: ScheduleInput, overrides: readonly OverrideInput[], from: number, to: number): FinalSchedule {
  const line = ZoneLine.of(schedule.time_zone);
  const layers = schedule.layers.map((layer) => layerPieces(line, layer, from, to));
  const ranked = overrides
    .map((o) => ({ id: o.id, start: ms(o.start), end: ms(o.end), email: o.email, replaces: o.replaces ?? null, created: ms(o.created_at) }))
    .filter((o) => o.start < to && o.end > from && o.start < o.end)
    .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((o, rank) => ({ ...o, rank }));
  const byStart = [...ranked].sort((a, b) => a.start - b.start);

  const cuts = new Set<number>([from, to]);
  for (const pieces of layers) for (const p of pieces) cuts.add(p.start).add(p.end);
  for (const o of ranked) cuts.add(Math.max(o.start, from)).add(Math.min(o.end, to));
  const points = [...cuts].sort((a, b) => a - b);

  const cursor = layers.map(() => 0);
  let active: typeof ranked = [];
  let next = 0;
  const shifts: Shift[] = [];
  for (let j = 0; j + 1 < points.length; j++) {
    const at = points[j]!;
    const end = points[j + 1]!;
    let email: string | null = null;
    let source: Source | null = null;
    for (let i = layers.length - 1; i >= 0; i--) {
      const pieces = layers[i]!;
      while (cursor[i]! < pieces.length && pieces[cursor[i]!]!.end <= at) cursor[i]!++;
      const p = pieces[cursor[i]!];
      if (!email && p && p.start <= at) {
        email = p.email;
        source = { layer: i };
      }
    }
    while (next < byStart.length && byStart[next]!.start <= at) active.push(byStart[next++]!);
    active = active.filter((o) => o.end > at);
    let winner: (typeof ranked)[number] | null = null;
    for (const o of active) if ((o.replaces === null || o.replaces === email) && (!winner || o.rank > winner.rank)) winner = o;
    if (winner) {
      email = winner.email;
      source = { override: winner.id };
    }
    if (!email || !source) continue;
    const prev = shifts.at(-1);
    if (prev && prev.end === at && prev.email === email && sameSource(prev.source, source)) prev.end = end;
    else shifts.push({ start: at, end, email, source });
  }
  return { shifts, layers };
}
