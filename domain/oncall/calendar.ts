/**
 * Layers that follow an iCalendar (`layers[i].ical_url`): the calendar is fetched through the guarded outbound
 * client (outbound/net/http.ts: the address policy, a deadline, a size limit), its events expanded by ical.js
 * (RRULE, EXDATE, moved occurrences by RECURRENCE-ID, VTIMEZONE/TZID) over a window around now, each event matched to a
 * member of the organization, and the result stored per schedule and URL in `schedule_calendars`: the last good
 * fetch's intervals, when it was made, the last error and the event names that matched no member.
 *
 * A fetch happens when a schedule is saved (an audit listener queues a job) and on a periodic pass
 * (`VIGIL_CALENDAR_REFRESH_SECONDS`, default 900). A failing fetch keeps the last good intervals and records the error.
 * Who is on call reads the stored intervals (on-call.ts remembers them per schedule, by their fetch time).
 */
import { EntitySchema } from '@mikro-orm/core';
import ICAL from 'ical.js';
import Type from 'typebox';
import { publicOrganization } from '../../engine/auth/caller.ts';
import type { Row } from '../../engine/descriptor.ts';
import { execute } from '../../engine/operations/index.ts';
import { readStore } from '../../engine/operations/context.ts';
import { ORGANIZATION, orNull } from '../../engine/operations/tool-schemas.ts';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import type { JobHandler } from '../../engine/jobs/types.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { AuditListener, DomainOperation, Services } from '../../engine/services.ts';
import { OutboundError, outboundHttp } from '../../outbound/net/http.ts';
import schedules from '../../resources/schedules.ts';
import teamMembers, { normalEmail } from '../../resources/team_members.ts';
import { rememberCalendars, type CalendarRow } from './on-call.ts';
import type { Piece } from './shifts.ts';
import { DAY, ZoneLine } from './zone.ts';

export const ScheduleCalendarEntity = new EntitySchema<any>({
  name: 'ScheduleCalendar',
  tableName: 'schedule_calendars',
  properties: {
    organization_id: { type: 'string', columnType: 'uuid', primary: true },
    schedule_id: { type: 'string', columnType: 'text', primary: true },
    url: { type: 'string', columnType: 'text', primary: true },
    /** the last attempt */
    checked_at: { type: 'Date', columnType: 'timestamptz', nullable: true },
    /** the last good fetch (its intervals are `events`); null: none yet */
    fetched_at: { type: 'Date', columnType: 'timestamptz', nullable: true },
    /** [{ start, end, email }] in ms, in order and apart, over the window around fetched_at */
    events: { type: 'json', columnType: 'jsonb' },
    /** event names (SUMMARY) that named no member, at most MAX_UNMATCHED */
    unmatched: { type: 'json', columnType: 'jsonb' },
    /** why the last attempt failed; null when it succeeded */
    error: { type: 'string', columnType: 'text', nullable: true },
  },
});

export const CALENDAR_TABLE = 'schedule_calendars';
export const CALENDAR_REFRESH_QUEUE = 'oncall.calendars';
export const CALENDAR_SAVE_QUEUE = 'oncall.calendar-saved';
/** seconds between passes when the deployment does not say */
export const REFRESH_SECONDS = 900;
/** the window stored: a week back, ninety days ahead */
export const PAST = 7 * DAY;
export const AHEAD = 90 * DAY;
export const MAX_BYTES = 2 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
const MAX_UNMATCHED = 50;
/**
 * occurrences walked per series and per calendar at most (a series is walked from its first occurrence, so an hourly
 * rule years old stops here; about 60k occurrences a second on a loaded 2-core machine)
 */
const MAX_PER_SERIES = 50_000;
const MAX_OCCURRENCES = 300_000;

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    /** seconds between calendar refresh passes (`VIGIL_CALENDAR_REFRESH_SECONDS`, default 900; 0: none, tests run the pass) */
    calendarRefreshSeconds?: number;
  }
}

interface Occurrence { start: number; end: number; summary: string; candidates: string[] }

const EMAIL = /[^\s<>"'(),;:]+@[^\s<>"'(),;:]+\.[^\s<>"'(),;:]+/g;
const mailto = (value: unknown) => (typeof value === 'string' ? value.replace(/^mailto:/i, '').trim().toLowerCase() : '');

/**
 * An ical.js time as an instant: UTC and zones the calendar defines (VTIMEZONE) by ical.js; a floating time, or a
 * TZID the calendar does not define, as wall time in that TZID when it is an IANA name, else in the schedule's zone.
 */
function instantOf(time: ICAL.Time, zone: string): number {
  const tz = time.zone;
  const tzid = (time as unknown as { timezone?: string }).timezone;
  const known = tz && tz !== ICAL.Timezone.localTimezone && (tz === ICAL.Timezone.utcTimezone || tz.component);
  if (known) return time.toUnixTime() * 1000;
  let line: ZoneLine;
  try {
    line = ZoneLine.of(tzid && tzid !== 'floating' ? tzid : zone);
  } catch {
    line = ZoneLine.of(zone);
  }
  return line.instantOf(Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second));
}

function candidatesOf(event: ICAL.Event): string[] {
  const out: string[] = [];
  const summary = (event.summary ?? '').trim();
  out.push(summary.toLowerCase(), ...(summary.match(EMAIL) ?? []).map((e) => e.toLowerCase()));
  for (const a of event.attendees) out.push(mailto(a.getFirstValue()));
  out.push(mailto(event.component.getFirstPropertyValue('organizer')));
  return out.filter(Boolean);
}

/** The occurrences of a calendar's events that touch [from, to). Throws on text that is not iCalendar. */
export function expandCalendar(text: string, zone: string, from: number, to: number): Occurrence[] {
  const root = new ICAL.Component(ICAL.parse(text));
  const calendar = root.name === 'vcalendar' ? root : root.getFirstSubcomponent('vcalendar');
  if (!calendar) throw new Error('no VCALENDAR');
  // the zones this calendar defines, registered for its own expansion only (the registry is the process's)
  const zones = calendar.getAllSubcomponents('vtimezone');
  const ids = zones.map((tz) => String(tz.getFirstPropertyValue('tzid') ?? ''));
  for (const tz of zones) ICAL.TimezoneService.register(tz);
  try {
    return expandEvents(calendar, zone, from, to);
  } finally {
    for (const id of ids) if (id && id !== 'UTC' && id !== 'Z') ICAL.TimezoneService.remove(id);
  }
}

function expandEvents(calendar: ICAL.Component, zone: string, from: number, to: number): Occurrence[] {
  const events = calendar.getAllSubcomponents('vevent');
  const exceptions = new Map<string, ICAL.Component[]>();
  const masters: ICAL.Component[] = [];
  for (const e of events) {
    const uid = String(e.getFirstPropertyValue('uid') ?? '');
    if (e.hasProperty('recurrence-id')) exceptions.set(uid, [...(exceptions.get(uid) ?? []), e]);
    else masters.push(e);
  }
  const out: Occurrence[] = [];
  const push = (event: ICAL.Event, start: ICAL.Time, end: ICAL.Time) => {
    if (String(event.component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') return;
    const s = instantOf(start, zone);
    const e = instantOf(end, zone);
    if (e > from && s < to && s < e) out.push({ start: s, end: e, summary: (event.summary ?? '').trim(), candidates: candidatesOf(event) });
  };
  let budget = MAX_OCCURRENCES;
  for (const m of masters) {
    const uid = String(m.getFirstPropertyValue('uid') ?? '');
    const event = new ICAL.Event(m, { exceptions: exceptions.get(uid) ?? [] });
    exceptions.delete(uid);
    if (!event.isRecurring()) {
      push(event, event.startDate, event.endDate);
      continue;
    }
    const it = event.iterator();
    let series = MAX_PER_SERIES;
    for (let next = it.next(); next && budget-- > 0 && series-- > 0; next = it.next()) {
      const details = event.getOccurrenceDetails(next);
      // a moved occurrence may start before `to` although its slot is after: look a day beyond
      if (instantOf(next, zone) >= to + DAY && instantOf(details.startDate, zone) >= to) break;
      push(details.item, details.startDate, details.endDate);
    }
  }
  // exceptions whose series is not in the calendar stand alone
  for (const list of exceptions.values()) for (const e of list) {
    const event = new ICAL.Event(e);
    push(event, event.startDate, event.endDate);
  }
  return out;
}

/**
 * Occurrences as one person at a time: where events overlap, the one that started later holds the time it covers
 * (as a layer above), then the earlier one resumes if it runs on. Ties go to the event listed later.
 */
export function flatten(occurrences: readonly { start: number; end: number; email: string }[]): Piece[] {
  const points = [...new Set(occurrences.flatMap((o) => [o.start, o.end]))].sort((a, b) => a - b);
  const ranked = occurrences.map((o, i) => ({ ...o, i })).sort((a, b) => a.start - b.start || a.i - b.i);
  const pieces: Piece[] = [];
  for (let j = 0; j + 1 < points.length; j++) {
    const at = points[j]!;
    let winner: (typeof ranked)[number] | null = null;
    for (const o of ranked) {
      if (o.start > at) break;
      if (o.end > at) winner = o;
    }
    if (!winner) continue;
    const prev = pieces.at(-1);
    if (prev && prev.end === at && prev.email === winner.email) prev.end = points[j + 1]!;
    else pieces.push({ start: at, end: points[j + 1]!, email: winner.email });
  }
  return pieces;
}

/** Fetches and reads one calendar: its pieces and the names that matched no member, or why it failed. */
async function fetchCalendar(services: Services, organizationId: string, url: string, zone: string, now: number): Promise<{ pieces: Piece[]; unmatched: string[] } | { error: string }> {
  let text: string;
  try {
    const res = await outboundHttp(services).request({ purpose: 'schedule calendar', url, method: 'GET', timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_BYTES, headers: { accept: 'text/calendar' } });
    if (res.status !== 200) return { error: `the calendar answered HTTP ${res.status}` };
    if (res.truncated) return { error: `the calendar is larger than ${MAX_BYTES / 1024 / 1024} MiB` };
    text = res.body.toString('utf8');
  } catch (error) {
    return { error: error instanceof OutboundError ? `the calendar ${error.message}` : 'the calendar could not be fetched' };
  }
  let occurrences: Occurrence[];
  try {
    occurrences = expandCalendar(text, zone, now - PAST, now + AHEAD);
  } catch {
    // the parser's message may quote the text: not repeated
    return { error: 'the answer could not be read as an iCalendar (text/calendar, RFC 5545)' };
  }
  const wanted = [...new Set(occurrences.flatMap((o) => o.candidates))].filter((c) => c.includes('@'));
  const members = wanted.length ? await readStore(services).list(teamMembers, organizationId, { where: { email: { $in: wanted } } }) : [];
  const known = new Set(members.map((m) => normalEmail(m.email)));
  const matched: { start: number; end: number; email: string }[] = [];
  const unmatched = new Set<string>();
  for (const o of occurrences) {
    const email = o.candidates.find((c) => known.has(c));
    if (email) matched.push({ start: o.start, end: o.end, email });
    else if (unmatched.size < MAX_UNMATCHED) unmatched.add(o.summary.slice(0, 200) || '(no summary)');
  }
  return { pieces: flatten(matched), unmatched: [...unmatched].sort() };
}

const urlsOf = (layers: unknown) => [...new Set((Array.isArray(layers) ? (layers as Row[]) : []).map((l) => l.ical_url).filter((u): u is string => typeof u === 'string' && u !== ''))];
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** The stored calendars of some schedules of one organization, remembered for who is on call (on-call.ts). */
export async function loadCalendars(services: Services, organizationId: string, scheduleIds: readonly string[]): Promise<Map<string, CalendarRow[]>> {
  const out = new Map<string, CalendarRow[]>();
  if (!scheduleIds.length) return out;
  const rows = await readStore(services).execute(
    `select schedule_id, url, checked_at, fetched_at, events, unmatched, error from ${CALENDAR_TABLE} where organization_id = ? and schedule_id in (${scheduleIds.map(() => '?').join(', ')}) order by url`,
    [organizationId, ...scheduleIds],
  );
  for (const r of rows) {
    const row: CalendarRow = {
      url: String(r.url), checked_at: r.checked_at ? new Date(r.checked_at as string) : null, fetched_at: r.fetched_at ? new Date(r.fetched_at as string) : null,
      events: json(r.events) as Piece[], unmatched: json(r.unmatched) as string[], error: (r.error as string | null) ?? null,
    };
    const id = String(r.schedule_id);
    out.set(id, [...(out.get(id) ?? []), row]);
  }
  for (const id of scheduleIds) rememberCalendars(id, out.get(id) ?? []);
  return out;
}

/**
 * Refreshes the calendars of every schedule (or of one): fetches each calendar a layer follows, stores the good
 * ones and the errors, and forgets the stored calendars no layer follows any more. Tests call it directly.
 */
export async function refreshCalendars(services: Services, only?: { organization_id: string; schedule_id: string }): Promise<number> {
  const sql = readStore(services).execute;
  const table = tableName(services.registry.family(schedules));
  const rows = only
    ? await sql(`select id, organization_id, time_zone, layers from ${table} where organization_id = ? and id = ?`, [only.organization_id, only.schedule_id])
    : await sql(`select id, organization_id, time_zone, layers from ${table} where layers::text like '%ical_url%'`, []);
  const now = services.clock.now().getTime();
  let fetched = 0;
  const followed = new Set<string>();
  for (const s of rows) {
    const org = String(s.organization_id);
    const id = String(s.id);
    const urls = urlsOf(json(s.layers));
    for (const url of urls) {
      followed.add(`${org}|${id}|${url}`);
      const result = await fetchCalendar(services, org, url, String(s.time_zone), now);
      const at = new Date(now);
      if ('error' in result) {
        await sql(
          `insert into ${CALENDAR_TABLE} (organization_id, schedule_id, url, checked_at, fetched_at, events, unmatched, error) values (?, ?, ?, ?, null, '[]', '[]', ?)
           on conflict (organization_id, schedule_id, url) do update set checked_at = excluded.checked_at, error = excluded.error`,
          [org, id, url, at, result.error],
        );
        services.log.warn({ schedule: id, error: result.error }, 'schedule calendar not refreshed');
      } else {
        await sql(
          `insert into ${CALENDAR_TABLE} (organization_id, schedule_id, url, checked_at, fetched_at, events, unmatched, error) values (?, ?, ?, ?, ?, ?, ?, null)
           on conflict (organization_id, schedule_id, url) do update set checked_at = excluded.checked_at, fetched_at = excluded.fetched_at, events = excluded.events, unmatched = excluded.unmatched, error = null`,
          [org, id, url, at, at, JSON.stringify(result.pieces), JSON.stringify(result.unmatched)],
        );
        fetched++;
      }
    }
    // calendars this schedule no longer follows
    const stale = await sql(`select url from ${CALENDAR_TABLE} where organization_id = ? and schedule_id = ?`, [org, id]);
    for (const r of stale) if (!urls.includes(String(r.url))) await sql(`delete from ${CALENDAR_TABLE} where organization_id = ? and schedule_id = ? and url = ?`, [org, id, r.url]);
    await loadCalendars(services, org, [id]);
  }
  if (only && !rows.length) await sql(`delete from ${CALENDAR_TABLE} where organization_id = ? and schedule_id = ?`, [only.organization_id, only.schedule_id]);
  if (!only) {
    // schedules deleted, or whose layers follow no calendar any more
    const all = await sql(`select organization_id, schedule_id, url from ${CALENDAR_TABLE}`, []);
    for (const r of all) {
      if (followed.has(`${r.organization_id}|${r.schedule_id}|${r.url}`)) continue;
      await sql(`delete from ${CALENDAR_TABLE} where organization_id = ? and schedule_id = ? and url = ?`, [r.organization_id, r.schedule_id, r.url]);
      rememberCalendars(String(r.schedule_id), []);
    }
  }
  return fetched;
}

const pass = periodicPass(CALENDAR_REFRESH_QUEUE, REFRESH_SECONDS, (services) => refreshCalendars(services));
export const calendarRefreshJob: JobHandler = pass.job;

/** A saved schedule's calendars, fetched by the job its save queued. */
export const calendarSavedJob: JobHandler = {
  queue: CALENDAR_SAVE_QUEUE,
  retryLimit: 0,
  expireInSeconds: 300,
  async handle(job, services) {
    const data = job.data as { organization_id: string; schedule_id: string };
    await refreshCalendars(services, data);
  },
};

/** The module's start-up hook: seeds the refresh pass (0 seconds: none). */
export function calendarRefresher(services: Services): Promise<void> {
  return pass.seed(services, services.config.calendarRefreshSeconds ?? REFRESH_SECONDS);
}

/**
 * A schedule's save queues the fetch of its calendars, in the write's own transaction (the job commits with the
 * layers it reads, or not at all) and woken when that commits.
 */
export const calendarOnSave: AuditListener = {
  concerns: (_services, entry) => entry.family === schedules.name,
  async record(services, store, entry) {
    if (entry.family !== schedules.name || !entry.rowId) return;
    if (entry.action === 'update' && !('layers' in entry.changes)) return;
    await services.jobs.send(CALENDAR_SAVE_QUEUE, { organization_id: entry.organizationId, schedule_id: entry.rowId }, { store });
  },
};

const STATUS = Type.Object(
  {
    url: Type.String(),
    layers: Type.Array(Type.String(), { description: 'the names of the layers that follow it' }),
    fetched_at: orNull(Type.String({ format: 'date-time' }), 'the last good fetch, whose events are in use; null: none yet'),
    checked_at: orNull(Type.String({ format: 'date-time' }), 'the last attempt'),
    error: orNull(Type.String(), 'why the last attempt failed (the last good fetch stays in use)'),
    events: Type.Integer({ description: 'the intervals kept from the last good fetch (a week back, ninety days ahead)' }),
    unmatched: Type.Array(Type.String(), { description: 'event names (SUMMARY) that named no member of the organization; their time is no one\'s on this layer' }),
  },
  { additionalProperties: false },
);

export const scheduleCalendars: DomainOperation = {
  name: 'get_schedule_calendars',
  description:
    'The iCalendar URLs a schedule\'s layers follow (`layers[i].ical_url`), each with its last good fetch, last attempt and error, how many intervals are kept, ' +
    'and the event names that matched no member. Calendars are fetched when the schedule is saved and every VIGIL_CALENDAR_REFRESH_SECONDS (default 900).',
  input: Type.Object({ id: Type.String({ minLength: 1, description: 'the schedule' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: schedules.name, param: 'id', action: 'calendars' },
  answer: { schema: Type.Object({ data: Type.Object({ schedule_id: Type.String(), calendars: Type.Array(STATUS) }), organization: ORGANIZATION }) },
  async run(services, caller, input) {
    const schedule = (await execute(services, caller, { family: schedules.name, op: 'read', id: String(input.id) })).data as Row;
    const stored = (await loadCalendars(services, caller.organization.id, [String(schedule.id)])).get(String(schedule.id)) ?? [];
    const layers = (schedule.layers as Row[]) ?? [];
    const calendars = urlsOf(layers).map((url) => {
      const row = stored.find((r) => r.url === url);
      return {
        url, layers: layers.filter((l) => l.ical_url === url).map((l) => String(l.name)),
        fetched_at: row?.fetched_at?.toISOString() ?? null, checked_at: row?.checked_at?.toISOString() ?? null, error: row?.error ?? null,
        events: row?.events.length ?? 0, unmatched: row?.unmatched ?? [],
      };
    });
    return { json: { data: { schedule_id: String(schedule.id), calendars }, organization: publicOrganization(caller.organization) } };
  },
};
