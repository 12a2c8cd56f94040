/**
 * `vigil import grafana-oncall`: Grafana OnCall's public HTTP API (`/api/v1/…`, `Authorization: <API token>`, lists
 * paginated as `{ count, next, previous, results }` with `next` the next page's absolute URL) read and translated:
 *
 * | Grafana OnCall | Vigil |
 * |---|---|
 * | users, /personal_notification_rules | people.json (users, an email contact method, the default rules that notify by email) |
 * | teams | `teams` (member_emails: the people of the team's schedules; the team's escalation chain) |
 * | web/calendar schedules and their /on_call_shifts (rolling_users, recurrent_event) | `schedules`, one layer per shift, level ascending |
 * | override shifts, single events that have not ended | `schedule_overrides` |
 * | escalation chains and their /escalation_policies | `escalation_policies` |
 * | integrations and their /routes | `alert_routes` paging a team whose policy is the route's chain |
 * | integrations | REPORT.md: the Vigil URL each sender points at instead |
 * | an integration's heartbeat | REPORT.md only: the API gives its link, not its timeout; the ping URL to use |
 *
 * Where OnCall says more than Vigil can hold, the nearest translation is written and REPORT.md says what moved.
 */
import { Temporal } from 'temporal-polyfill';
import { Expression, type HclEntry, type HclValue } from '../export/hcl-writer.ts';
import { resourceType } from '../export/export.ts';
import alertRoutes from '../resources/alert_routes.ts';
import escalationPolicies, { MAX_REPEAT, MAX_STEPS } from '../resources/escalation_policies.ts';
import scheduleOverrides from '../resources/schedule_overrides.ts';
import schedules from '../resources/schedules.ts';
import teams from '../resources/teams.ts';
import { cmp, ImportFailure, Labels, notDocumented, Report, RestSource, UniqueNames, type FetchOptions, type ImportResult, type Person } from './core.ts';
import { restrictionWindows } from './restrictions.ts';

export const PRODUCT = 'Grafana OnCall';
type Json = Record<string, any>;

export interface GrafanaOnCallOptions extends FetchOptions {
  url: string;
  token: string;
  /** what counts as now: overrides and single events that ended before it are not carried */
  now: Date;
}

const MAX_PAGES = 1000;

/** Every object of a list, following `next` (absolute URLs of the same API) until it is null. */
async function list(api: RestSource, path: string, query: Record<string, string | number> = {}): Promise<Json[]> {
  const all: Json[] = [];
  let call = path;
  let q: Record<string, string | number> = { ...query };
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await api.get(call, q);
    const items = body.results;
    if (!Array.isArray(items)) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, 'no "results" list'));
    if (items.some((i) => i === null || typeof i !== 'object')) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, 'an entry of "results" is not an object'));
    all.push(...(items as Json[]));
    if (body.next === null || body.next === undefined || items.length === 0) return all;
    if (typeof body.next !== 'string') throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, '"next" is not a URL'));
    let next: URL;
    try {
      next = new URL(body.next);
    } catch {
      throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, '"next" is not a URL'));
    }
    // the next page is asked of the API the operator named, whatever host the source writes into `next`
    const basePath = new URL(api.base).pathname.replace(/\/+$/, '');
    if (!next.pathname.startsWith(`${basePath}/`)) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, `"next" is outside ${api.base}`));
    call = next.pathname.slice(basePath.length);
    q = Object.fromEntries(next.searchParams);
  }
  throw new ImportFailure(`${PRODUCT} answered GET ${path} with more than ${MAX_PAGES} pages.`);
}

function str(item: Json, field: string, call: string): string {
  const v = item[field];
  if (typeof v !== 'string' || v === '') throw new ImportFailure(notDocumented(PRODUCT, call, `${field} is not a string`));
  return v;
}

const ROLE: Record<string, Person['role']> = { admin: 'org_admin', editor: 'member', user: 'member', viewer: 'viewer', observer: 'viewer' };
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const UNIT: Record<string, 'hourly' | 'daily' | 'weekly'> = { hourly: 'hourly', daily: 'daily', weekly: 'weekly' };

/** A shift's local start (`YYYY-MM-DDTHH:MM:SS`, in its zone) as a plain date-time. */
function plainOf(text: unknown, call: string): Temporal.PlainDateTime {
  try {
    return Temporal.PlainDateTime.from(String(text).replace(/Z$|[+-]\d{2}:\d{2}$/, ''));
  } catch {
    throw new ImportFailure(notDocumented(PRODUCT, call, `a start that is not a date-time (${String(text)})`));
  }
}
const localText = (p: Temporal.PlainDateTime) => {
  const text = p.toString({ smallestUnit: 'second' });
  return text.endsWith(':00') ? text.slice(0, 16) : text;
};

/** Reads the organization and translates it; throws an ImportFailure (one sentence) on the first refusal. */
export async function importGrafanaOnCall(options: GrafanaOnCallOptions): Promise<ImportResult> {
  if (!options.token) throw new ImportFailure('no Grafana OnCall API token: pass --token <token> (Settings → API tokens).');
  const api = new RestSource(PRODUCT, options.url, { authorization: options.token, accept: 'application/json' }, options);
  const report = new Report();
  const labels = new Labels();
  const entries: HclEntry[] = [];
  const nowMs = options.now.getTime();
  const byName = (a: Json, b: Json) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id));

  // ---------------------------------------------------------------------------------------------------- people
  const users = await list(api, '/users/');
  const rulesList = await list(api, '/personal_notification_rules/');
  const emailOf = new Map<string, string>();
  const people: Person[] = [];
  const rulesOf = new Map<string, Json[]>();
  for (const r of rulesList) rulesOf.set(String(r.user_id), [...(rulesOf.get(String(r.user_id)) ?? []), r]);
  for (const u of users) {
    const id = str(u, 'id', 'GET /users/');
    const email = str(u, 'email', 'GET /users/').trim().toLowerCase();
    emailOf.set(id, email);
    const who = `${String(u.username ?? email)} <${email}> (${id})`;
    const role = ROLE[String(u.role)];
    if (!role) report.add({ kind: 'user', source: who, outcome: 'approximate', became: `people.json ${email} (member)`, reason: `OnCall role ${String(u.role)} has no Vigil equivalent: member` });
    else report.add({ kind: 'user', source: who, outcome: 'carried', became: `people.json ${email} (${role})` });
    const methods: Person['contact_methods'] = [{ key: 'email-1', type: 'email', name: 'Email', address: email }];
    const rules: Person['notification_rules'] = [];
    const own = (rulesOf.get(id) ?? []).sort((a, b) => Number(!!a.important) - Number(!!b.important) || Number(a.position) - Number(b.position) || cmp(String(a.id), String(b.id)));
    let delay = 0;
    let important = false;
    for (const r of own) {
      if (!!r.important !== important) {
        important = !!r.important;
        delay = 0;
      }
      const what = `${email}: ${important ? 'important ' : ''}#${String(r.position)} ${String(r.type)} (${String(r.id)})`;
      if (r.type === 'wait') {
        delay += Number(r.duration) || 0;
        report.add({ kind: 'notification rule', source: what, outcome: 'carried', became: `the delay of the rules after it (${Math.round(delay / 60)} min)` });
        continue;
      }
      if (important) {
        report.add({ kind: 'notification rule', source: what, outcome: 'not carried', became: '', reason: 'Vigil has no separate chain for important notifications: the default rules notify for every page' });
        continue;
      }
      if (r.type !== 'notify_by_email') {
        const why = r.type === 'notify_by_sms' || r.type === 'notify_by_phone_call'
          ? 'the OnCall API does not give the verified phone number: add an sms or voice method in Vigil (it is verified there)'
          : `${String(r.type)}: add the matching Vigil method (chat, ntfy, Pushover) in Vigil`;
        report.add({ kind: 'notification rule', source: what, outcome: 'not carried', became: '', reason: why });
        continue;
      }
      const minutes = Math.min(1440, Math.round(delay / 60));
      for (const urgency of ['high', 'low'] as const) rules.push({ contact_method: 'email-1', delay_minutes: minutes, urgency });
      report.add({
        kind: 'notification rule', source: what, outcome: delay % 60 ? 'approximate' : 'carried', became: `people.json ${email} email-1 after ${minutes} min`,
        reason: delay % 60 ? `a wait of ${delay} seconds is rounded to ${minutes} min` : undefined,
      });
    }
    rules.sort((a, b) => cmp(a.urgency, b.urgency) || a.delay_minutes - b.delay_minutes || cmp(a.contact_method, b.contact_method));
    const unique = rules.filter((r, i) => rules.findIndex((x) => x.urgency === r.urgency && x.delay_minutes === r.delay_minutes && x.contact_method === r.contact_method) === i);
    people.push({ email, name: String(u.name || u.username || email).slice(0, 100), role: role ?? 'member', contact_methods: methods, notification_rules: unique });
  }
  people.sort((a, b) => cmp(a.email, b.email));
  const member = (id: unknown, where: string): string | undefined => {
    const email = emailOf.get(String(id));
    if (!email) report.add({ kind: 'reference', source: where, outcome: 'not carried', became: '', reason: `user ${String(id)} is not in GET /users/` });
    return email;
  };

  // ---------------------------------------------------------------------------------------------------- the rest, read
  const teamList = (await list(api, '/teams/')).sort(byName);
  const scheduleList = (await list(api, '/schedules/')).sort(byName);
  const shiftList = await list(api, '/on_call_shifts/');
  const chains = (await list(api, '/escalation_chains/')).sort(byName);
  const steps = await list(api, '/escalation_policies/');
  const integrations = (await list(api, '/integrations/')).sort(byName);
  const routes = await list(api, '/routes/');
  for (const [items, call] of [[teamList, 'GET /teams/'], [scheduleList, 'GET /schedules/'], [chains, 'GET /escalation_chains/'], [integrations, 'GET /integrations/'], [shiftList, 'GET /on_call_shifts/']] as const) {
    for (const item of items) {
      str(item, 'id', call);
      str(item, 'name', call);
    }
  }
  const shiftById = new Map(shiftList.map((s) => [String(s.id), s]));

  const vigilNames = new UniqueNames();
  const nameOf = new Map([...vigilNames.of(teamList), ...vigilNames.of(scheduleList), ...vigilNames.of(chains)]);
  const renameNote = (id: string) => vigilNames.note(id);
  const teamLabel = new Map(teamList.map((t) => [String(t.id), labels.take(teams.name, nameOf.get(String(t.id))!)]));
  const policyLabel = new Map(chains.map((c) => [String(c.id), labels.take(escalationPolicies.name, nameOf.get(String(c.id))!)]));
  const scheduleLabel = new Map<string, string>();
  const ref = (family: string, label: string) => new Expression(`${resourceType(family)}.${label}.id`);
  const block = (family: string, label: string, attributes: Record<string, HclValue>, sortKey = label) =>
    entries.push({ sortKey: `${family}\u0000${sortKey}`, block: { type: 'resource', labels: [resourceType(family), label], attributes } });

  // ---------------------------------------------------------------------------------------------------- schedules
  const teamPeople = new Map<string, Set<string>>();
  const overrideRows: { email: string; start: string; end: string; schedule: string; source: string }[] = [];
  for (const s of scheduleList) {
    const id = String(s.id);
    const name = `${String(s.name)} (${id})`;
    const zone = typeof s.time_zone === 'string' && s.time_zone ? s.time_zone : 'UTC';
    const notes: string[] = renameNote(id);
    // a schedule lists its shifts; its overrides are shifts of type override naming the schedule
    const listed = Array.isArray(s.shifts) ? (s.shifts as unknown[]).map(String) : [];
    const shiftIds = [...listed, ...shiftList.filter((x) => x.type === 'override' && String(x.schedule) === id && !listed.includes(String(x.id))).map((x) => String(x.id))];
    if (s.type === 'ical' || (s.ical_url_primary && !listed.length)) {
      // an iCal schedule: a schedule whose layers follow its feeds (the overrides feed above the primary one)
      const url = typeof s.ical_url_primary === 'string' ? s.ical_url_primary : '';
      if (!url) {
        report.add({ kind: 'schedule', source: name, outcome: 'not carried', became: '', reason: 'an iCal schedule without ical_url_primary' });
        continue;
      }
      const label = labels.take(schedules.name, nameOf.get(id)!);
      scheduleLabel.set(id, label);
      const calendarLayers: Json[] = [{ name: 'iCal', ical_url: url }];
      if (typeof s.ical_url_overrides === 'string' && s.ical_url_overrides) calendarLayers.push({ name: 'iCal overrides', ical_url: s.ical_url_overrides });
      block(schedules.name, label, { name: nameOf.get(id)!, time_zone: zone, layers: calendarLayers as HclValue });
      notes.push('an iCal schedule: carried as layers that follow its feeds (ical_url_primary, and ical_url_overrides above it); an event names a member by an email in its SUMMARY or an ATTENDEE, where OnCall also takes usernames');
      report.add({ kind: 'schedule', source: name, outcome: 'approximate', became: `${resourceType(schedules.name)}.${label}`, reason: notes.join('; ') });
      continue;
    }
    if (s.ical_url_primary) notes.push('its iCal feed (ical_url_primary) is not carried: only its web shifts are');
    if (s.ical_url_overrides) notes.push('its iCal overrides feed (ical_url_overrides) is not carried');
    const label = labels.take(schedules.name, nameOf.get(id)!);
    scheduleLabel.set(id, label);
    const layers: { level: number; key: string; layer: Json }[] = [];
    const everyone = new Set<string>();
    for (const shiftId of shiftIds) {
      const sh = shiftById.get(shiftId);
      if (!sh) {
        notes.push(`shift ${shiftId} is not in GET /on_call_shifts/`);
        continue;
      }
      const shiftCall = 'GET /on_call_shifts/';
      const shiftName = String(sh.name).slice(0, 100);
      const shiftZone = typeof sh.time_zone === 'string' && sh.time_zone ? sh.time_zone : zone;
      const start = plainOf(sh.start, shiftCall);
      const duration = Number(sh.duration);
      if (!Number.isFinite(duration) || duration <= 0) throw new ImportFailure(notDocumented(PRODUCT, shiftCall, `shift ${shiftId} has no duration`));
      const startMs = start.toZonedDateTime(shiftZone).epochMilliseconds;
      if (sh.type === 'override' || sh.type === 'single_event') {
        const endMs = startMs + duration * 1000;
        const who = ((Array.isArray(sh.users) ? sh.users : []) as unknown[]).map((u) => member(u, `${name} shift "${shiftName}"`)).filter((e): e is string => !!e);
        const what = `${name}: ${String(sh.type)} "${shiftName}" ${localText(start)} ${shiftZone}, ${duration} s (${shiftId})`;
        if (endMs <= nowMs) {
          report.add({ kind: 'override', source: what, outcome: 'not carried', became: '', reason: 'it ended before the import' });
          continue;
        }
        if (!who.length) {
          report.add({ kind: 'override', source: what, outcome: 'not carried', became: '', reason: 'it names no one' });
          continue;
        }
        const startIso = new Date(startMs).toISOString();
        const endIso = new Date(endMs).toISOString();
        overrideRows.push({ email: who[0]!, start: startIso, end: endIso, schedule: label, source: `${what}|${sh.type === 'single_event' || who.length > 1 ? 'approx' : ''}|${who.length > 1 ? 'several' : ''}` });
        continue;
      }
      const what = `${name}: shift "${shiftName}" (${shiftId})`;
      const shiftNotes: string[] = [];
      let groups: string[][];
      if (sh.type === 'rolling_users') {
        if (!Array.isArray(sh.rolling_users)) throw new ImportFailure(notDocumented(PRODUCT, shiftCall, `rolling_users shift ${shiftId} has no rolling_users list`));
        groups = (sh.rolling_users as unknown[][]).map((g) => (Array.isArray(g) ? g : []).map((u) => member(u, what)).filter((e): e is string => !!e));
      } else if (sh.type === 'recurrent_event') {
        groups = [((Array.isArray(sh.users) ? sh.users : []) as unknown[]).map((u) => member(u, what)).filter((e): e is string => !!e)];
      } else throw new ImportFailure(notDocumented(PRODUCT, shiftCall, `shift ${shiftId} of type ${String(sh.type)}`));
      if (groups.some((g) => g.length > 1)) shiftNotes.push('several people on one turn: Vigil has one person on call per layer, the first of each turn is carried');
      let participants = groups.map((g) => g[0]).filter((e): e is string => !!e);
      const start_index = Number(sh.start_rotation_from_user_index) || 0;
      if (start_index > 0 && participants.length) participants = [...participants.slice(start_index % participants.length), ...participants.slice(0, start_index % participants.length)];
      if (new Set(participants).size !== participants.length) shiftNotes.push('a person on more than one turn of the rotation: Vigil rotates each person once per cycle');
      participants = participants.filter((e, i) => participants.indexOf(e) === i);
      if (!participants.length) {
        report.add({ kind: 'shift', source: what, outcome: 'not carried', became: '', reason: 'it names no one' });
        continue;
      }
      for (const e of participants) everyone.add(e);
      if (sh.until && Date.parse(`${String(sh.until).replace(/Z?$/, 'Z')}`) <= nowMs) {
        report.add({ kind: 'shift', source: what, outcome: 'not carried', became: '', reason: `it ended (until ${String(sh.until)}) before the import` });
        continue;
      }
      const frequency = String(sh.frequency ?? '');
      let interval = Math.max(1, Math.round(Number(sh.interval) || 1));
      let unit = UNIT[frequency];
      if (frequency === 'monthly') {
        unit = 'weekly';
        interval *= 4;
        shiftNotes.push('a monthly rotation: Vigil rotates by hours, days or weeks; carried as every 4 weeks, so turns drift from the calendar month');
      }
      if (!unit) throw new ImportFailure(notDocumented(PRODUCT, shiftCall, `shift ${shiftId} has frequency ${frequency || '(none)'}`));
      if (sh.by_monthday && (sh.by_monthday as unknown[]).length) shiftNotes.push(`by_monthday ${JSON.stringify(sh.by_monthday)}: Vigil restricts by weekday and time, not day of month; the shift applies on every day of its rotation instead`);
      if (sh.rotation_start && localText(plainOf(sh.rotation_start, shiftCall)) !== localText(start)) {
        shiftNotes.push(`rotation_start ${String(sh.rotation_start)} differs from start: the turns count from start`);
      }
      // restrictions: the shift's hours within each period, on its days
      const byDay = ((Array.isArray(sh.by_day) ? sh.by_day : []) as unknown[]).map(String);
      if (byDay.some((d) => !DAYS.includes(d))) throw new ImportFailure(notDocumented(PRODUCT, shiftCall, `shift ${shiftId} has by_day ${JSON.stringify(byDay)}`));
      const period = unit === 'hourly' ? 3600 : unit === 'daily' ? 86400 : 604800;
      const startTime = start.toPlainTime().toString({ smallestUnit: 'second' });
      const pdRestrictions: Json[] = [];
      if (unit === 'hourly') {
        if (duration < period * interval) shiftNotes.push(`an hourly shift of ${duration} s in every ${interval} hour(s): Vigil's hourly turns are always on; carried as always on`);
        if (byDay.length) shiftNotes.push('by_day on an hourly shift is not carried');
      } else if (byDay.length && (unit === 'weekly' || unit === 'daily')) {
        for (const d of byDay) pdRestrictions.push({ type: 'weekly_restriction', start_day_of_week: DAYS.indexOf(d) + 1, start_time_of_day: startTime, duration_seconds: Math.min(duration, 604800) });
        if (unit === 'weekly' && interval > 1) shiftNotes.push(`every ${interval} weeks on some weekdays: Vigil's restriction applies every week, so the weeks between have the shift too (with the same person as the week before)`);
        if (unit === 'daily' && interval === 1) shiftNotes.push('a daily rotation on some weekdays: OnCall hands over on each of its days, Vigil every day (the days between move the turn too)');
        if (interval > 1 && unit === 'daily') shiftNotes.push(`every ${interval} days on some weekdays: carried as every ${interval} days`);
      } else if (unit === 'daily' && duration < 86400) {
        pdRestrictions.push({ type: 'daily_restriction', start_time_of_day: startTime, duration_seconds: duration });
        if (interval > 1) shiftNotes.push(`every ${interval} days: Vigil's restriction applies every day, so the off days in between have the shift too`);
      } else if (unit === 'weekly' && duration < 604800 * interval) {
        pdRestrictions.push({ type: 'weekly_restriction', start_day_of_week: start.dayOfWeek, start_time_of_day: startTime, duration_seconds: Math.min(duration, 604800) });
        if (interval > 1) shiftNotes.push(`every ${interval} weeks for ${duration} s: the weeks between have the shift too`);
      } else if (duration > period * interval) shiftNotes.push(`a shift of ${duration} s, longer than its ${interval} ${frequency} turn: turns cannot overlap in Vigil`);
      if (duration % 60) shiftNotes.push(`a duration of ${duration} s is rounded to the minute`);
      const { windows } = pdRestrictions.length ? restrictionWindows(PRODUCT, pdRestrictions, 'GET /on_call_shifts/') : { windows: null };
      if (shiftZone !== zone) shiftNotes.push(`the shift's zone ${shiftZone} differs from the schedule's: its hours are taken in ${zone}`);
      const layer: Json = { name: shiftName, participants, rotation: { unit, length: Math.min(1000, interval) }, handoff: localText(start.toZonedDateTime(shiftZone).withTimeZone(zone).toPlainDateTime()) };
      if (sh.until) {
        const untilMs = plainOf(sh.until, shiftCall).toZonedDateTime('UTC').epochMilliseconds;
        layer.ends = localText(Temporal.Instant.fromEpochMilliseconds(untilMs).toZonedDateTimeISO(zone).toPlainDateTime());
        if ((untilMs - startMs) % (period * interval * 1000) !== 0) shiftNotes.push(`until ${String(sh.until)} falls inside a turn: OnCall keeps an occurrence that started before it, Vigil's layer ends at it`);
      }
      if (windows) layer.restrictions = windows;
      layers.push({ level: Number(sh.level) || 0, key: `${shiftName}\u0000${shiftId}`, layer });
      report.add({ kind: 'shift', source: what, outcome: shiftNotes.length ? 'approximate' : 'carried', became: `${resourceType(schedules.name)}.${label} layer "${shiftName}"`, reason: shiftNotes.join('; ') || undefined });
      if (shiftNotes.length) notes.push(`shift "${shiftName}" carried approximately (see its line)`);
    }
    // OnCall: a higher level wins; Vigil: a later layer is above an earlier one
    layers.sort((a, b) => a.level - b.level || cmp(a.key, b.key));
    const levels = layers.map((l) => l.level);
    if (levels.some((l, i) => levels.indexOf(l) !== i)) notes.push('shifts of one level overlap: OnCall has both people on call, Vigil the later layer\'s');
    if (layers.length > 10) {
      notes.push(`${layers.length} shifts: Vigil holds 10 layers; the ${layers.length - 10} lowest are left out`);
      layers.splice(0, layers.length - 10);
    }
    const attributes: Record<string, HclValue> = { name: nameOf.get(id)!, time_zone: zone, layers: layers.map((l) => l.layer) as HclValue };
    block(schedules.name, label, attributes);
    const team = String(s.team_id ?? '');
    if (teamLabel.has(team)) for (const e of everyone) teamPeople.set(team, (teamPeople.get(team) ?? new Set()).add(e));
    report.add({ kind: 'schedule', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(schedules.name)}.${label}`, reason: notes.join('; ') || undefined });
  }
  overrideRows.sort((a, b) => cmp(a.email, b.email) || cmp(a.start, b.start) || cmp(a.schedule, b.schedule) || cmp(a.end, b.end));
  for (const o of overrideRows) {
    const overrideLabel = labels.take(scheduleOverrides.name, o.email);
    block(scheduleOverrides.name, overrideLabel, { schedule_id: ref(schedules.name, o.schedule), email: o.email, start: o.start, end: o.end });
    const [source, approx, several] = o.source.split('|');
    const reasons = [
      ...(approx ? ['a single event sits at its level in OnCall; a Vigil override is above every layer'] : []),
      ...(several ? ['several people: the first is carried'] : []),
    ];
    report.add({ kind: 'override', source: source!, outcome: reasons.length ? 'approximate' : 'carried', became: `${resourceType(scheduleOverrides.name)}.${overrideLabel} (${o.email} ${o.start} → ${o.end})`, reason: reasons.join('; ') || undefined });
  }

  // ---------------------------------------------------------------------------------------------------- escalation chains
  const carriedChains = new Set<string>();
  const stepsOf = new Map<string, Json[]>();
  for (const p of steps) stepsOf.set(String(p.escalation_chain_id), [...(stepsOf.get(String(p.escalation_chain_id)) ?? []), p]);
  for (const c of chains) {
    const id = String(c.id);
    const name = `${String(c.name)} (${id})`;
    const notes: string[] = renameNote(id);
    const own = (stepsOf.get(id) ?? []).sort((a, b) => Number(a.position) - Number(b.position) || cmp(String(a.id), String(b.id)));
    const out: { delay_minutes: number; targets: HclValue[] }[] = [];
    let waited = 0;
    let repeat = 0;
    for (const p of own) {
      const at = `step ${Number(p.position) + 1} (${String(p.type)})`;
      const type = String(p.type);
      if (type === 'repeat_escalation') {
        repeat = 1;
        if (own.indexOf(p) < own.length - 1) notes.push(`${at}: the steps after a repeat never run in OnCall and are left out`);
        break;
      }
      if (type === 'wait') {
        const seconds = Number(p.duration) || 0;
        waited += seconds;
        if (seconds % 60) notes.push(`${at}: a wait of ${seconds} s is rounded to the minute`);
        continue;
      }
      if (type === 'resolve') {
        notes.push(`${at}: Vigil does not resolve from a policy; the page stays open`);
        break;
      }
      if (type === 'notify_if_time_from_to' || type === 'notify_if_num_alerts_in_window') {
        notes.push(`${at}: a condition (${type}${p.notify_if_time_from ? ` ${String(p.notify_if_time_from)}–${String(p.notify_if_time_to)}` : ''}) is not carried: the steps after it always run`);
        continue;
      }
      const targets: HclValue[] = [];
      if (type === 'notify_persons' || type === 'notify_person_next_each_time') {
        for (const u of (Array.isArray(p.persons_to_notify) ? p.persons_to_notify : Array.isArray(p.persons_to_notify_next_each_time) ? p.persons_to_notify_next_each_time : []) as unknown[]) {
          const email = member(u, `${name} ${at}`);
          if (email) targets.push({ email });
        }
        if (type === 'notify_person_next_each_time') notes.push(`${at}: OnCall notifies the next of these people each time; Vigil notifies all of them`);
      } else if (type === 'notify_on_call_from_schedule') {
        const sched = scheduleLabel.get(String(p.notify_on_call_from_schedule));
        if (sched) targets.push({ schedule_id: ref(schedules.name, sched) });
        else notes.push(`${at}: schedule ${String(p.notify_on_call_from_schedule)} is not carried (see its line)`);
      } else if (type === 'notify_team_members') {
        const members = [...(teamPeople.get(String(p.notify_to_team_members)) ?? [])].sort(cmp);
        for (const email of members) targets.push({ email });
        notes.push(`${at}: the team's members as the import knows them (the people of its schedules), named one by one`);
      } else {
        notes.push(`${at}: a step of type ${type} is not carried`);
        continue;
      }
      if (p.important) notes.push(`${at}: "important" notifications are not carried: the person's default rules are used`);
      const minutes = Math.min(1440, Math.round(waited / 60));
      if (!out.length && minutes > 0) notes.push(`${at}: Vigil's first step starts at once; OnCall waited ${waited} s first`);
      out.push({ delay_minutes: out.length ? minutes : 0, targets: targets.slice(0, 20) });
      waited = 0;
    }
    if (!out.length) {
      report.add({ kind: 'escalation chain', source: name, outcome: 'not carried', became: '', reason: 'it notifies no one (Vigil\'s policies have at least one step)' });
      continue;
    }
    if (out.length > MAX_STEPS) {
      notes.push(`${out.length} steps: Vigil holds ${MAX_STEPS}`);
      out.splice(MAX_STEPS);
    }
    if (repeat && waited) notes.push(`OnCall waits ${waited} s before repeating; Vigil waits as long as its last step did`);
    // OnCall's repeat runs the chain again up to 5 times
    const label = policyLabel.get(id)!;
    block(escalationPolicies.name, label, { name: nameOf.get(id)!, steps: out as HclValue, repeat: repeat ? Math.min(MAX_REPEAT, 5) : 0 });
    carriedChains.add(id);
    report.add({ kind: 'escalation chain', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(escalationPolicies.name)}.${label}`, reason: notes.join('; ') || undefined });
  }
  const carriedPolicy = (chain: string) => carriedChains.has(chain);

  // ---------------------------------------------------------------------------------------------------- teams
  const policyOfTeam = new Map<string, string>();
  for (const t of teamList) {
    const chain = chains.find((c) => String(c.team_id) === String(t.id) && carriedPolicy(String(c.id)));
    if (chain) policyOfTeam.set(String(t.id), String(chain.id));
  }
  for (const t of teamList) {
    const id = String(t.id);
    const attributes: Record<string, HclValue> = { name: nameOf.get(id)!, member_emails: [...(teamPeople.get(id) ?? [])].sort(cmp) };
    const chain = policyOfTeam.get(id);
    if (chain) attributes.escalation_policy_id = ref(escalationPolicies.name, policyLabel.get(chain)!);
    block(teams.name, teamLabel.get(id)!, attributes);
    report.add({
      kind: 'team', source: `${String(t.name)} (${id})`, outcome: 'approximate', became: `${resourceType(teams.name)}.${teamLabel.get(id)}`,
      reason: [...renameNote(id), 'OnCall\'s API does not list a team\'s members (they are Grafana\'s): its members are the people of its schedules'].join('; '),
    });
  }

  // ---------------------------------------------------------------------------------------------------- integrations and routes
  const teamOfChain = new Map<string, string>();
  for (const [team, chain] of policyOfTeam) if (!teamOfChain.has(chain)) teamOfChain.set(chain, teamLabel.get(team)!);
  const routesOf = new Map<string, Json[]>();
  for (const r of routes) routesOf.set(String(r.integration_id), [...(routesOf.get(String(r.integration_id)) ?? []), r]);
  const routeNames = new Set<string>();
  for (const i of integrations) {
    const id = String(i.id);
    const iname = `${String(i.name)} (${id})`;
    const sender = senderFor(String(i.type), String(i.name));
    if (sender) {
      report.senders.push({ source: iname, sender: String(i.type), url: sender.url, note: sender.note });
      report.add({ kind: 'integration', source: iname, outcome: 'carried', became: sender.url });
    } else report.add({ kind: 'integration', source: iname, outcome: 'not carried', became: '', reason: `${String(i.type)}: Vigil takes no alerts this way; point the sender at ${'<vigil>/v2/enqueue'}` });
    // OnCall's API gives an integration's heartbeat as its link only, not its timeout: said, with the URL to ping instead
    const heartbeat = i.heartbeat as Json | null | undefined;
    if (heartbeat && typeof heartbeat.link === 'string') {
      const ping = String(i.name).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100) || 'heartbeat';
      report.senders.push({ source: `${iname} heartbeat`, sender: 'heartbeat ping', url: `<vigil>/webhooks/heartbeat/<token>/${ping}`, note: `what called ${heartbeat.link} calls this instead, once the heartbeat exists` });
      report.add({
        kind: 'heartbeat', source: `${iname} heartbeat`, outcome: 'not carried', became: '',
        reason: `OnCall's API gives the heartbeat's link, not its timeout: create heartbeats "${ping}" with the interval OnCall's heartbeat settings show`,
      });
    }
    const own = (routesOf.get(id) ?? []).sort((a, b) => Number(!!a.is_the_last_route) - Number(!!b.is_the_last_route) || Number(a.position) - Number(b.position) || cmp(String(a.id), String(b.id)));
    own.forEach((r, n) => {
      const what = `${String(i.name)}: route ${r.is_the_last_route ? 'default' : `#${Number(r.position) + 1}`} (${String(r.id)})`;
      const chain = String(r.escalation_chain_id ?? '');
      if (!carriedPolicy(chain)) {
        report.add({ kind: 'route', source: what, outcome: 'not carried', became: '', reason: chain ? `its escalation chain ${chain} is not carried` : 'it has no escalation chain (OnCall only groups the alerts)' });
        return;
      }
      let teamRef = teamOfChain.get(chain);
      if (!teamRef) {
        const c = chains.find((x) => String(x.id) === chain)!;
        const teamName = `${nameOf.get(String(c.id))} routing`.slice(0, 100);
        teamRef = labels.take(teams.name, teamName);
        teamOfChain.set(chain, teamRef);
        block(teams.name, teamRef, { name: teamName, escalation_policy_id: ref(escalationPolicies.name, policyLabel.get(chain)!), member_emails: [], description: `Pages through ${String(c.name)}; made by the Grafana OnCall import for the routes that use it.`.slice(0, 255) });
        report.add({ kind: 'team', source: `(none: escalation chain ${String(c.name)} (${chain}))`, outcome: 'approximate', became: `${resourceType(teams.name)}.${teamRef}`, reason: 'Vigil routes page a team, which pages through its policy: a team is made for a chain that no team pages through' });
      }
      const notes: string[] = [];
      const matchers: HclValue[] = [{ field: 'service', operator: 'equals', value: String(i.name).slice(0, 200) }];
      const regex = String(r.routing_regex ?? '');
      if (!r.is_the_last_route && regex) {
        matchers.push({ field: 'title', operator: 'regex', value: regex.slice(0, 200) });
        notes.push(r.routing_type === 'jinja2' ? 'a Jinja2 routing template is not evaluated by Vigil: carried as a regex on the title' : 'OnCall matches the regex against the whole payload; Vigil against the title');
      }
      let routeName = `${String(i.name)} ${r.is_the_last_route ? 'default' : `route ${n + 1}`}`.slice(0, 100);
      if (routeNames.has(routeName)) routeName = `${routeName.slice(0, 80)} (${String(r.id)})`;
      routeNames.add(routeName);
      const routeLabel = labels.take(alertRoutes.name, routeName);
      block(alertRoutes.name, routeLabel, { name: routeName, matchers, team_id: ref(teams.name, teamRef), enabled: true }, `${String(i.name)}\u0000${String(n).padStart(3, '0')}`);
      report.add({ kind: 'route', source: what, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(alertRoutes.name)}.${routeLabel}`, reason: notes.join('; ') || undefined });
    });
  }

  const header = [
    `Written by \`vigil import grafana-oncall\` from ${api.base} (${users.length} users, ${teamList.length} teams, ${scheduleList.length} schedules, ${chains.length} escalation chains, ${integrations.length} integrations).`,
    'Create the people first: `vigil users import people.json --org <org-id>`; then `vigil plan vigil.tf` and `vigil apply vigil.tf`.',
    'REPORT.md says what each Grafana OnCall object became and what was not carried.',
  ];
  return { hcl: { header, entries }, people: { source: 'grafana-oncall', people }, report };
}

/** Where an OnCall integration's sender points in Vigil, by the integration's type. */
function senderFor(type: string, name: string): { url: string; note: string } | null {
  const service = `set the alert's service to "${name}" so its routes match`;
  switch (type) {
    case 'grafana':
    case 'grafana_alerting':
      return { url: '<vigil>/webhooks/metric-dashboard/<token>', note: `Grafana webhook contact point; label service=${name}` };
    case 'datadog':
      return { url: '<vigil>/webhooks/monitoring-a/<token>', note: `Datadog webhook; tag the monitors service:${name}` };
    case 'newrelic':
      return { url: '<vigil>/webhooks/monitoring-b/<token>', note: `New Relic webhook; tag the policy service:${name}` };
    case 'amazon_sns':
      return { url: '<vigil>/webhooks/cloud-alarms/<token>', note: 'subscribe the SNS topic to this URL (HTTPS)' };
    case 'alertmanager':
    case 'legacy_alertmanager':
      return { url: '<vigil>/v2/enqueue', note: `Alertmanager pagerduty_configs: url <vigil>/v2/enqueue, routing_key <token>; component "${name}"` };
    case 'webhook':
    case 'formatted_webhook':
    case 'direct_paging':
      return type === 'direct_paging' ? null : { url: '<vigil>/v2/enqueue', note: `Events API v2 (routing_key <token>); ${service}` };
    default:
      return type === 'inbound_email' ? null : { url: '<vigil>/v2/enqueue', note: `Events API v2 (routing_key <token>); ${service}` };
  }
}
