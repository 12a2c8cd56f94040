/**
 * Wall-clock time in one IANA zone, from the Temporal polyfill's zone data: a zone's offsets and transitions are
 * asked of the library once per UTC year and kept (they never change for a given tz database), so turning the
 * hundreds of local boundaries of a schedule into instants is arithmetic on the library's own offsets.
 *
 * "Local" values are naive local times in milliseconds (the wall-clock reading written as if it were UTC).
 * A local time becomes the first instant whose wall-clock reading reaches it (DESIGN.md): in a skipped hour that is
 * the end of the gap (02:30 on a spring-forward night starts at 03:00), in a repeated hour the first occurrence.
 */
import { Temporal } from 'temporal-polyfill';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** No zone is further than this from UTC (Kiribati is +14:00); the search for a local time spans it. */
const REACH = 15 * HOUR;

interface Year {
  /** offset at the year's first instant */
  start: number;
  /** transitions inside the year, in order: the instant and the offset from then on */
  transitions: { at: number; offset: number }[];
}

const lines = new Map<string, ZoneLine>();

export class ZoneLine {
  private readonly years = new Map<number, Year>();
  readonly zone: string;
  private constructor(zone: string) {
    this.zone = zone;
  }

  /** One line per zone for the process: its years fill in as they are asked for. */
  static of(zone: string): ZoneLine {
    let line = lines.get(zone);
    if (!line) lines.set(zone, (line = new ZoneLine(zone)));
    return line;
  }

  private year(y: number): Year {
    let year = this.years.get(y);
    if (year) return year;
    const begin = Date.UTC(y, 0, 1);
    const end = Date.UTC(y + 1, 0, 1);
    let at = Temporal.Instant.fromEpochMilliseconds(begin).toZonedDateTimeISO(this.zone);
    year = { start: at.offsetNanoseconds / 1e6, transitions: [] };
    for (;;) {
      const next = at.getTimeZoneTransition('next');
      if (!next || next.epochMilliseconds >= end) break;
      year.transitions.push({ at: next.epochMilliseconds, offset: next.offsetNanoseconds / 1e6 });
      at = next;
    }
    this.years.set(y, year);
    return year;
  }

  /** The zone's offset from UTC at an instant, in ms. */
  offsetAt(t: number): number {
    const year = this.year(new Date(t).getUTCFullYear());
    let offset = year.start;
    for (const tr of year.transitions) if (tr.at <= t) offset = tr.offset;
    return offset;
  }

  /** The wall-clock reading at an instant. */
  localOf(t: number): number {
    return t + this.offsetAt(t);
  }

  /** The first instant whose wall-clock reading is at or after `local`: walk the offset periods around it in order. */
  instantOf(local: number): number {
    const lo = local - REACH;
    const hi = local + REACH;
    let start = lo;
    let offset = this.offsetAt(lo);
    for (let y = new Date(lo).getUTCFullYear(); y <= new Date(hi).getUTCFullYear(); y++) {
      for (const tr of this.year(y).transitions) {
        if (tr.at <= lo || tr.at >= hi) continue;
        const candidate = Math.max(start, local - offset);
        if (candidate < tr.at) return candidate;
        start = tr.at;
        offset = tr.offset;
      }
    }
    const candidate = Math.max(start, local - offset);
    if (candidate < hi) return candidate;
    throw new Error(`no instant reaches local ${new Date(local).toISOString()} in ${this.zone}`);
  }
}

const parsed = new Map<string, number>();
/** A local date-time written YYYY-MM-DDTHH:MM[:SS] as naive local ms (remembered: schedules repeat a few handoffs). */
export function parseLocal(text: string): number {
  let at = parsed.get(text);
  if (at === undefined) {
    const p = Temporal.PlainDateTime.from(text);
    at = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(text, at);
  }
  return at;
}

/** HH:MM as ms after midnight. */
export function parseClock(text: string): number {
  const [h, m] = text.split(':').map(Number);
  return h! * HOUR + m! * MINUTE;
}
