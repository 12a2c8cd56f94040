/**
 * On-call restrictions as Vigil's schedule windows: PagerDuty's layer restrictions, and the same shape the Opsgenie and
 * Grafana OnCall importers translate theirs into.
 */
import { WEEKDAYS } from '../resources/schedules.ts';
import { cmp, ImportFailure, notDocumented } from './core.ts';

type Json = Record<string, any>;

const WEEK_MINUTES = 7 * 1440;
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

interface Window { days: string[]; from: string; to: string }

/**
 * PagerDuty's restrictions (daily: a time of day and a duration; weekly: a day, a time and a duration, possibly
 * several days long) as Vigil windows: the union of the restrictions over the week, cut at each midnight, one window
 * per day piece, pieces with the same hours grouped. Adjacent windows are joined by the schedule (domain/oncall),
 * so the cut loses nothing. Seconds are rounded to the minute. A restriction not of this shape stops the import,
 * naming `product` and the call it came from.
 */
export function restrictionWindows(product: string, restrictions: readonly Json[], call: string): { windows: Window[] | null; rounded: boolean } {
  const covered = new Uint8Array(WEEK_MINUTES);
  let rounded = false;
  for (const r of restrictions) {
    const time = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(String(r.start_time_of_day ?? ''));
    const duration = Number(r.duration_seconds);
    if (!time || !Number.isFinite(duration) || duration <= 0) throw new ImportFailure(notDocumented(product, call, 'a restriction without start_time_of_day or duration_seconds'));
    if ((time[3] && time[3] !== '00') || duration % 60 !== 0) rounded = true;
    const startOfDay = Number(time[1]) * 60 + Math.round(Number(time[2]) + Number(time[3] ?? 0) / 60);
    const minutes = Math.min(WEEK_MINUTES, Math.round(duration / 60));
    const starts = r.type === 'weekly_restriction'
      ? [((Number(r.start_day_of_week) - 1) * 1440 + startOfDay)]
      : r.type === 'daily_restriction' ? [0, 1, 2, 3, 4, 5, 6].map((d) => d * 1440 + startOfDay) : null;
    if (!starts || starts.some((s) => !Number.isInteger(s) || s < 0 || s >= WEEK_MINUTES + 1440)) throw new ImportFailure(notDocumented(product, call, `a restriction of type ${String(r.type)}`));
    for (const s of starts) for (let m = 0; m < minutes; m++) covered[(s + m) % WEEK_MINUTES] = 1;
  }
  if (covered.every((c) => c === 1)) return { windows: null, rounded };
  const groups = new Map<string, Window>();
  for (let day = 0; day < 7; day++) {
    for (let m = day * 1440; m < (day + 1) * 1440; ) {
      if (!covered[m]) {
        m++;
        continue;
      }
      const start = m;
      while (m < (day + 1) * 1440 && covered[m]) m++;
      const pieces: [number, number][] = start % 1440 === 0 && m === (day + 1) * 1440 ? [[0, 1439], [1439, 1440]] : [[start % 1440, m - day * 1440]];
      for (const [a, b] of pieces) {
        const key = `${hhmm(a)}-${hhmm(b)}`;
        const w = groups.get(key) ?? { days: [], from: hhmm(a), to: hhmm(b) };
        w.days.push(WEEKDAYS[day]!);
        groups.set(key, w);
      }
    }
  }
  const order = (w: Window) => WEEKDAYS.indexOf(w.days[0] as (typeof WEEKDAYS)[number]);
  return { windows: [...groups.values()].sort((a, b) => order(a) - order(b) || cmp(a.from, b.from)), rounded };
}
