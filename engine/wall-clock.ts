/**
 * Reading a time zone's wall clock (Intl, one formatter per zone): the organization's month for the AI budget,
 * quiet hours, and the daily email digest all decide by local time, so they keep their local hours across a
 * daylight-saving change. An unknown zone throws (RangeError); callers decide what stands in for it.
 */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

export function wallClock(at: Date | number, timeZone: string): WallTime {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour') % 24, minute: part('minute'), second: part('second') };
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms (whole seconds). */
export function offsetAt(at: number, timeZone: string): number {
  const w = wallClock(at, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(at / 1000) * 1000;
}

/**
 * The instant the zone's wall clock reads `hour`:00 on the given date: the first of two when the hour repeats
 * (clocks set back), the end of the gap when it is skipped (clocks set forward).
 */
export function atLocalHour(year: number, month: number, day: number, hour: number, timeZone: string): Date {
  const local = Date.UTC(year, month - 1, day, hour);
  const candidates = [...new Set([local - offsetAt(local, timeZone), local - offsetAt(local - offsetAt(local, timeZone), timeZone)])].sort((a, b) => a - b);
  const exact = candidates.find((c) => wallClock(c, timeZone).hour === hour);
  return new Date(exact ?? candidates[candidates.length - 1]!);
}
