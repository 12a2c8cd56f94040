/**
 * When an email notice may be sent: digest off → now; hourly → the next full hour; daily → the next
 * `digest_hour` o'clock in the organization's time zone; then, when quiet hours are in force at that time, their
 * end. Hours are read on the zone's wall clock with Intl, so a daily digest keeps its local hour across a
 * daylight-saving change (an hour the change skips is sent at the first instant after the gap).
 */
import { quietUntil } from '../preferences/quiet-hours.ts';
import type { NotificationSettings } from '../preferences/notification-settings.ts';
import { atLocalHour, wallClock } from '../../engine/wall-clock.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface SendTime {
  sendAfter: Date;
  /** held for a digest or by quiet hours: sent together with every other held notice due then */
  batched: boolean;
}

/** The next full hour of the zone's wall clock strictly after `now` (a zone offset by :30 has its hours at :30 UTC). */
export function nextFullHour(now: Date, timezone: string): Date {
  const w = wallClock(now, timezone);
  const intoHour = w.minute * MINUTE + w.second * 1000 + now.getUTCMilliseconds();
  return new Date(now.getTime() - intoHour + HOUR);
}

/** The next `hour`:00 on the zone's wall clock strictly after `now`. */
export function nextDailyAt(now: Date, hour: number, timezone: string): Date {
  const w = wallClock(now, timezone);
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
