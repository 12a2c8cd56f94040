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

  /** The offset periods covering [from, to): each from its start (or `from`) with its offset. */
  private periods(from: number, to: number): { start: number; end: number; offset: number }[] {
    const cuts: { at: number; offset: number }[] = [];
    for (let y = new Date(from).getUTCFullYear(); y <= new Date(to).getUTCFullYear(); y++) {
      for (const tr of this.year(y).transitions) if (tr.at > from && tr.at < to) cuts.push(tr);
    }
    const out = [];
    let start = from;
    let offset = this.offsetAt(from);
    for (const cut of cuts) {
      out.push({ start, end: cut.at, offset });
      start = cut.at;
      offset = cut.offset;
    }
    out.push({ start, end: to, offset });
    return out;
  }

  /** The first instant whose wall-clock reading is at or after `local`. */
  instantOf(local: number): number {
    for (const p of this.periods(local - REACH, local + REACH)) {
      const candidate = Math.max(p.start, local - p.offset);
      if (candidate < p.end) return candidate;
    }
    throw new Error(`no instant reaches local ${new Date(local).toISOString()} in ${this.zone}`);
  }
}

/** A local date-time written YYYY-MM-DDTHH:MM[:SS] as naive local ms. */
export function parseLocal(text: string): number {
  const p = Temporal.PlainDateTime.from(text);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** HH:MM as ms after midnight. */
export function parseClock(text: string): number {
  const [h, m] = text.split(':').map(Number);
  return h! * HOUR + m! * MINUTE;
}
