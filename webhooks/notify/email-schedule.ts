/**
 * When an email notice may be sent: digest off → now; hourly → the next full hour; daily → the next
 * `digest_hour` o'clock in the organization's time zone; then, when quiet hours are in force at that time, their
 * end. Hours are read on the zone's wall clock with Intl, so a daily digest keeps its local hour across a
 * daylight-saving change (an hour the change skips is sent at the first instant after the gap).
 */
import { quietUntil } from './quiet-hours.ts';
import type { NotificationSettings } from './settings.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface SendTime {
  sendAfter: Date;
  /** held for a digest or by quiet hours: sent together with every other held notice due then */
  batched: boolean;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock at `at` in `timezone`: its date, hour, minute, second. */
function wall(at: Date, timezone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formats.set(timezone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour') % 24, minute: part('minute'), second: part('second') };
}

/** The zone's offset from UTC at `at`, in milliseconds (whole seconds). */
function offsetAt(at: number, timezone: string): number {
  const w = wall(new Date(at), timezone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(at / 1000) * 1000;
}

/**
 * The instant the zone's wall clock reads `hour`:00 on the given date: the first of two when the hour repeats
 * (clocks set back), the end of the gap when it is skipped (clocks set forward).
 */
export function atLocalHour(year: number, month: number, day: number, hour: number, timezone: string): Date {
  const local = Date.UTC(year, month - 1, day, hour);
  const candidates = [...new Set([local - offsetAt(local, timezone), local - offsetAt(local - offsetAt(local, timezone), timezone)])].sort((a, b) => a - b);
  const exact = candidates.find((c) => wall(new Date(c), timezone).hour === hour);
  return new Date(exact ?? candidates[candidates.length - 1]!);
}

/** The next full hour of the zone's wall clock strictly after `now` (a zone offset by :30 has its hours at :30 UTC). */
export function nextFullHour(now: Date, timezone: string): Date {
  const w = wall(now, timezone);
  const intoHour = w.minute * MINUTE + w.second * 1000 + now.getUTCMilliseconds();
  return new Date(now.getTime() - intoHour + HOUR);
}

/** The next `hour`:00 on the zone's wall clock strictly after `now`. */
export function nextDailyAt(now: Date, hour: number, timezone: string): Date {
  const w = wall(now, timezone);
  for (let days = 0; days < 3; days++) {
    const date = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
    const at = atLocalHour(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, timezone);
    if (at.getTime() > now.getTime()) return at;
  }
  return new Date(now.getTime() + 24 * HOUR); // unreachable: tomorrow's hour is always ahead
}

/** When a notice made at `now` under these settings is due, and whether it waits to be sent with others. */
export function sendTime(settings: NotificationSettings, now: Date): SendTime {
  let due = now;
  try {
    if (settings.digest === 'hourly') due = nextFullHour(now, settings.timezone);
    else if (settings.digest === 'daily') due = nextDailyAt(now, settings.digest_hour, settings.timezone);
  } catch {
    // a zone the time-zone database no longer knows (it was valid when stored): read it as UTC
    due = settings.digest === 'hourly' ? nextFullHour(now, 'UTC') : nextDailyAt(now, settings.digest_hour, 'UTC');
  }
  const quietEnd = quietUntil(settings.quiet_hours, due);
  return { sendAfter: quietEnd ?? due, batched: settings.digest !== 'off' || quietEnd !== null };
}
