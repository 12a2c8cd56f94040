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

/**
 * A zone's offsets over the years asked for so far, as one flat line of periods: period j starts at `starts[j]`
 * (an instant) with offset `offsets[j]` and runs to the next start; the last runs to `until`.
 */
interface Periods {
  from: number;
  until: number;
  starts: number[];
  offsets: number[];
}

const lines = new Map<string, ZoneLine>();
const yearOf = (t: number) => new Date(t).getUTCFullYear();

export class ZoneLine {
  /** offsets and transitions per UTC year, as Temporal answered them */
  private readonly years = new Map<number, { start: number; transitions: { at: number; offset: number }[] }>();
  private periods: Periods = { from: 0, until: 0, starts: [], offsets: [] };
  /** the period the last question fell in: questions come in order, so the next one is usually there or just after */
  private last = 0;
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

  private year(y: number) {
    let year = this.years.get(y);
    if (year) return year;
    const begin = Date.UTC(y, 0, 1);
    const end = Date.UTC(y + 1, 0, 1);
    let at = Temporal.Instant.fromEpochMilliseconds(begin).toZonedDateTimeISO(this.zone);
    year = { start: at.offsetNanoseconds / 1e6, transitions: [] as { at: number; offset: number }[] };
    for (;;) {
      const next = at.getTimeZoneTransition('next');
      if (!next || next.epochMilliseconds >= end) break;
      year.transitions.push({ at: next.epochMilliseconds, offset: next.offsetNanoseconds / 1e6 });
      at = next;
    }
    this.years.set(y, year);
    return year;
  }

  /** Makes the line of periods cover [lo, hi), rebuilding it from the years (rare: a few times per zone and process). */
  private cover(lo: number, hi: number): Periods {
    const p = this.periods;
    if (p.starts.length && lo >= p.from && hi < p.until) return p;
    const first = Math.min(yearOf(lo), p.starts.length ? yearOf(p.from) : Infinity);
    const lastYear = Math.max(yearOf(hi), p.starts.length ? yearOf(p.until) - 1 : -Infinity);
    const starts: number[] = [];
    const offsets: number[] = [];
    for (let y = first; y <= lastYear; y++) {
      const year = this.year(y);
      if (offsets.at(-1) !== year.start) {
        starts.push(Date.UTC(y, 0, 1));
        offsets.push(year.start);
      }
      for (const tr of year.transitions) {
        if (offsets.at(-1) === tr.offset) continue;
        starts.push(tr.at);
        offsets.push(tr.offset);
      }
    }
    this.periods = { from: Date.UTC(first, 0, 1), until: Date.UTC(lastYear + 1, 0, 1), starts, offsets };
    this.last = 0;
    return this.periods;
  }

  /** The period an instant falls in (the line covers it). */
  private periodOf(p: Periods, t: number): number {
    const { starts } = p;
    let j = this.last < starts.length ? this.last : 0;
    if (starts[j]! > t) j = 0;
    while (j + 1 < starts.length && starts[j + 1]! <= t) j++;
    this.last = j;
    return j;
  }

  /** The zone's offset from UTC at an instant, in ms. */
  offsetAt(t: number): number {
    const p = this.cover(t, t);
    return p.offsets[this.periodOf(p, t)]!;
  }

  /** The wall-clock reading at an instant. */
  localOf(t: number): number {
    return t + this.offsetAt(t);
  }

  /**
   * The first instant whose wall-clock reading is at or after `local`: walk the periods from the one `local - REACH`
   * falls in; in each the reading runs from its start + offset, so the answer is in the first period whose end
   * lies past `local - offset`.
   */
  instantOf(local: number): number {
    const lo = local - REACH;
    const hi = local + REACH;
    const p = this.cover(lo, hi);
    const { starts, offsets } = p;
    for (let j = this.periodOf(p, lo); j < starts.length; j++) {
      const end = j + 1 < starts.length ? starts[j + 1]! : p.until;
      const candidate = Math.max(starts[j]!, lo, local - offsets[j]!);
      if (candidate < end && candidate < hi) return candidate;
      if (end >= hi) break;
    }
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

const clocks = new Map<string, number>();
/** HH:MM as ms after midnight (remembered: there are at most 1,440 of them). */
export function parseClock(text: string): number {
  let at = clocks.get(text);
  if (at === undefined) {
    const [h, m] = text.split(':').map(Number);
    at = h! * HOUR + m! * MINUTE;
    if (clocks.size > 10_000) clocks.clear();
    clocks.set(text, at);
  }
  return at;
}
