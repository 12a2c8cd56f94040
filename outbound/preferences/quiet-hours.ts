/**
 * Quiet hours of `notification_settings`: `{ start, end, timezone }` (HH:MM in an IANA zone; an end before the
 * start spans midnight). While they are in force email and chat notifications are held and sent together when
 * they end; outbound deliveries are never held. Times are read on the zone's wall clock, so a quiet period keeps
 * its local hours across a daylight-saving change (on the night of the change it is an hour longer or shorter).
 */
import { wallClock } from '../../engine/wall-clock.ts';

export interface QuietHours {
  start: string;
  end: string;
  timezone: string;
}

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The wall-clock minute of the day (0..1439) and the seconds into it, at `now` in `timezone`. */
function minuteOfDay(now: Date, timezone: string): { minute: number; seconds: number } {
  const w = wallClock(now, timezone);
  return { minute: w.hour * 60 + w.minute, seconds: w.second + now.getUTCMilliseconds() / 1000 };
}

/**
 * When the quiet period that `now` falls in ends; null when quiet hours are not in force at `now` (or none are
 * set, or the zone is unknown — stored settings were validated, so that only guards against a zone a newer
 * time-zone database dropped).
 */
export function quietUntil(quiet: QuietHours | null | undefined, now: Date): Date | null {
  if (!quiet) return null;
  let clock: { minute: number; seconds: number };
  try {
    clock = minuteOfDay(now, quiet.timezone);
  } catch {
    return null;
  }
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const t = clock.minute;
  const inForce = start < end ? t >= start && t < end : t >= start || t < end;
  if (!inForce) return null;
  const minutesLeft = (end - t + DAY_MINUTES) % DAY_MINUTES;
  return new Date(now.getTime() + minutesLeft * MINUTE - clock.seconds * 1000);
}
