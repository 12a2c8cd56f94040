/**
 * A local Grafana OnCall public HTTP API (`/api/v1/…`) for the importer's tests, answering as OnCall's API reference
 * documents it: `Authorization: <API token>` (403 `{ detail: "Invalid token." }` otherwise), lists as
 * `{ count, next, previous, results, current_page_number, page_size, total_pages }` with `next` the absolute URL of the
 * next page (`page`, `page_size`, default 25 here), one 429 with `Retry-After` on the first call of
 * /escalation_policies/, and /schedules/{id}/final_shifts/?start_date&end_date (who is on call, shift by shift).
 *
 * The organization is made here, deterministically, at a realistic size: 40 users, 10 teams, 12 schedules (one iCal),
 * 15 escalation chains, 15 integrations with routes, overrides, with the constructs a migration cannot always carry
 * (a monthly shift with by_monthday, a weekly rotation every 2 weeks on weekdays, two people on one turn, a wait of
 * 90 seconds, notify_if_time_from_to, notify_person_next_each_time, resolve, an iCal schedule, a single event).
 *
 * final_shifts is OnCall's own answer, computed here from the shifts as OnCall documents them (a rolling_users shift
 * hands over every `interval` `frequency` from `start`, in the shift's `time_zone`; `by_day` picks the days within
 * each turn; a higher `level` wins; an override wins over every level), written independently of Vigil's schedule
 * code, so comparing the two proves the translation.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Temporal } from 'temporal-polyfill';

type Json = Record<string, any>;
export const ONCALL_TOKEN = 'c0ffee5e7d1a4b0f9e2d6c1b8a7f3e21';

const FIRST = ['Ana', 'Ben', 'Cy', 'Dana', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jo', 'Kai', 'Lea', 'Max', 'Nia', 'Oto', 'Pia', 'Quin', 'Rae', 'Sol', 'Tia'];
const LAST = ['Silva', 'Berg'];
const TEAMS = ['Payments', 'Platform', 'Search', 'Mobile', 'Data', 'Identity', 'Billing', 'Edge', 'Storage', 'Observability'];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

export function onCallOrganization() {
  const users: Json[] = [];
  const rules: Json[] = [];
  for (let i = 0; i < 40; i++) {
    const id = `U${String(i).padStart(4, '0')}ABCD`;
    const first = FIRST[i % 20]!;
    const last = LAST[Math.floor(i / 20)]!;
    const email = `${first.toLowerCase()}.${last.toLowerCase()}@example.com`;
    users.push({ id, email, slack: null, username: `${first.toLowerCase()}${last[0]!.toLowerCase()}`, name: `${first} ${last}`, role: i < 2 ? 'admin' : i >= 36 ? 'viewer' : 'editor', timezone: 'Europe/Berlin', teams: [] });
    let position = 0;
    const rule = (type: string, extra: Json = {}, important = false) => rules.push({ id: `N${i}${String.fromCharCode(65 + rules.length % 26)}${rules.length}`, user_id: id, position: position++, important, type, ...extra });
    rule('notify_by_email');
    rule('wait', { duration: i % 7 === 3 ? 90 : 300 });
    rule(i % 2 ? 'notify_by_sms' : 'notify_by_email');
    if (i % 5 === 0) rule('notify_by_mobile_app');
    position = 0;
    rule('notify_by_phone_call', {}, true);
  }
  const uid = (i: number) => users[i % 40]!.id as string;
  const teams = TEAMS.map((name, t) => ({ id: `T${String(t).padStart(4, '0')}TEAM`, name, email: `${name.toLowerCase()}@example.com`, avatar_url: `https://grafana.example.com/avatar/${t}` }));
  const shifts: Json[] = [];
  const schedules: Json[] = [];
  let n = 0;
  const shift = (o: Json) => {
    const id = `O${String(n++).padStart(4, '0')}SHFT`;
    shifts.push({ id, team_id: null, level: 0, interval: 1, week_start: 'MO', by_day: null, by_month: null, by_monthday: null, until: null, start_rotation_from_user_index: null, rotation_start: o.start, source: 0, ...o });
    return id;
  };
  const people = (t: number, count = 4) => Array.from({ length: count }, (_, k) => uid(t * 4 + k));
  const rolling = (list: string[]) => list.map((u) => [u]);
  for (let s = 0; s < 12; s++) {
    const t = s % 10;
    const zone = ['Europe/Berlin', 'America/New_York', 'UTC', 'Europe/Berlin', 'Asia/Tokyo', 'UTC', 'Europe/Berlin', 'UTC', 'America/New_York', 'UTC', 'Europe/Berlin', 'America/New_York'][s]!;
    const p = people(t);
    const ids: string[] = [];
    const base = (o: Json = {}) => ids.push(shift({ name: 'Primary', type: 'rolling_users', time_zone: zone, frequency: 'weekly', start: '2026-06-01T09:00:00', duration: 604800, rolling_users: rolling(p), ...o }));
    if (s === 0) base();
    if (s === 1) {
      base({ frequency: 'daily', start: '2026-05-04T09:00:00', duration: 8 * 3600 });
      ids.push(shift({ name: 'Weekend', type: 'rolling_users', time_zone: zone, frequency: 'weekly', by_day: ['SA', 'SU'], start: '2026-05-02T00:00:00', duration: 86400, level: 1, rolling_users: rolling(p.slice(1, 3)) }));
    }
    if (s === 2) base({ frequency: 'hourly', interval: 12, start: '2026-07-06T08:00:00', duration: 12 * 3600 });
    if (s === 3) base({ name: 'Fortnight office', interval: 2, by_day: ['MO', 'TU', 'WE', 'TH', 'FR'], duration: 8 * 3600 });
    if (s === 4) {
      base({ frequency: 'monthly', start: '2026-08-01T09:00:00', duration: 86400, by_monthday: [1, 15] });
    }
    if (s === 5) {
      base({ start: '2026-07-06T08:00:00' });
      ids.push(shift({ name: 'Nights', type: 'recurrent_event', time_zone: zone, frequency: 'daily', start: '2026-07-06T22:00:00', duration: 10 * 3600, level: 1, users: [p[2]] }));
    }
    if (s === 6) {
      base();
      ids.push(shift({ name: 'Office', type: 'rolling_users', time_zone: zone, frequency: 'weekly', by_day: ['MO', 'TU', 'WE', 'TH', 'FR'], start: '2026-06-01T09:00:00', duration: 8 * 3600, level: 2, rolling_users: rolling([...p].reverse()) }));
    }
    if (s === 8) base({ frequency: 'daily', start: '2026-05-04T10:00:00', duration: 86400 });
    if (s === 9) {
      base({ start: '2026-06-01T09:00:00', until: '2027-01-18T09:00:00' });
      ids.push(shift({ name: 'Fallback', type: 'rolling_users', time_zone: zone, frequency: 'weekly', start: '2026-06-01T09:00:00', duration: 604800, level: -1, rolling_users: rolling(people(t + 1 > 9 ? 0 : t + 1).slice(0, 2)) }));
    }
    if (s === 10) base({ start_rotation_from_user_index: 1, rolling_users: rolling(people(0, 3)) });
    if (s === 11) base({ frequency: 'daily', start: '2026-05-04T09:00:00', duration: 86400, rolling_users: [[p[0]!, p[1]!], [p[2]!], [p[3]!]] });
    const name = s < 10 ? `${TEAMS[t]} primary` : `${TEAMS[t]} secondary`;
    const id = `S${String(s).padStart(4, '0')}SCHD`;
    if (s === 7) {
      schedules.push({ id, team_id: teams[t]!.id, name, type: 'ical', ical_url_primary: 'https://calendar.example.com/edge.ics', ical_url_overrides: null, time_zone: zone, on_call_now: [], slack: null });
      continue;
    }
    schedules.push({ id, team_id: teams[t]!.id, name, type: s % 4 === 3 ? 'calendar' : 'web', time_zone: zone, on_call_now: [], shifts: ids, slack: null });
  }
  const override = (s: number, start: string, seconds: number, user: number, type = 'override') =>
    shifts.push({ id: `O${String(n++).padStart(4, '0')}OVRD`, name: `${type} ${n}`, type, schedule: schedules[s]!.id, team_id: null, time_zone: 'UTC', level: type === 'override' ? 99 : 0, start, duration: seconds, users: [uid(user)], rotation_start: start });
  override(0, '2026-12-20T00:00:00', 86400, 30); // over before the import
  override(0, '2027-01-12T06:00:00', 86400, 2);
  override(2, '2027-01-15T19:00:00', 12 * 3600, 9);
  override(4, '2027-01-09T12:00:00', 2 * 86400, 17); // under way at the import
  override(6, '2027-01-20T00:00:00', 2 * 86400, 25);
  override(6, '2027-01-23T00:00:00', 12 * 3600, 26);
  // a single event (not an override) in the future: carried as a Vigil override, approximately
  const single = shift({ name: 'Game day', type: 'single_event', time_zone: 'UTC', start: '2027-01-14T10:00:00', duration: 12 * 3600, users: [uid(5)] });
  schedules[8]!.shifts.push(single);

  const chains: Json[] = [];
  const steps: Json[] = [];
  for (let c = 0; c < 15; c++) {
    const t = c % 10;
    const id = `F${String(c).padStart(4, '0')}CHAN`;
    chains.push({ id, team_id: teams[t]!.id, name: c < 10 ? `${TEAMS[t]} escalation` : `${TEAMS[t]} after hours` });
    let position = 0;
    const step = (type: string, extra: Json = {}) => steps.push({ id: `E${c}P${position}`, escalation_chain_id: id, position: position++, type, important: false, ...extra });
    step('notify_on_call_from_schedule', { notify_on_call_from_schedule: schedules[c % 12]!.id });
    step('wait', { duration: c === 3 ? 90 : 600 });
    if (c === 5) step('notify_if_time_from_to', { notify_if_time_from: '09:00:00Z', notify_if_time_to: '18:00:00Z' });
    if (c === 6) step('notify_person_next_each_time', { persons_to_notify_next_each_time: [uid(t * 4), uid(t * 4 + 1)] });
    else if (c === 8) step('notify_team_members', { notify_to_team_members: teams[t]!.id });
    else step('notify_persons', { persons_to_notify: [uid(t * 4), uid(t * 4 + 1)], important: c === 12 });
    if (c % 3 === 0 && c !== 9) {
      step('wait', { duration: 300 });
      step('repeat_escalation');
    }
    if (c === 9) step('resolve');
  }
  const types = ['alertmanager', 'grafana_alerting', 'datadog', 'webhook', 'amazon_sns', 'inbound_email'];
  const integrations: Json[] = [];
  const routes: Json[] = [];
  for (let i = 0; i < 15; i++) {
    const id = `C${String(i).padStart(4, '0')}INTG`;
    const name = `${['checkout', 'api', 'search', 'ios', 'warehouse', 'login', 'invoices', 'cdn', 'blobs', 'metrics'][i % 10]}${i >= 10 ? '-batch' : ''}`;
    const type = types[i % 6]!;
    integrations.push({
      id, name, team_id: teams[i % 10]!.id, type, link: `https://oncall.example.com/integrations/v1/${type}/${id.toLowerCase()}/`, inbound_email: type === 'inbound_email' ? `${id.toLowerCase()}@inbound.oncall.example.com` : null,
      maintenance_mode: null, default_route: { id: `R${i}D`, escalation_chain_id: chains[i]!.id }, templates: {},
      heartbeat: i % 5 === 2 ? { link: `https://oncall.example.com/integrations/v1/${type}/${id.toLowerCase()}/heartbeat/` } : null,
    });
    if (i % 4 === 0) routes.push({ id: `R${i}A`, integration_id: id, escalation_chain_id: i === 12 ? null : chains[(i + 5) % 15]!.id, routing_type: 'regex', routing_regex: 'severity.*critical', position: 0, is_the_last_route: false });
    routes.push({ id: `R${i}D`, integration_id: id, escalation_chain_id: chains[i]!.id, routing_type: 'regex', routing_regex: '.*', position: i % 4 === 0 ? 1 : 0, is_the_last_route: true });
  }
  return { users, rules, teams, schedules, shifts, chains, steps, integrations, routes };
}

export type Organization = ReturnType<typeof onCallOrganization>;

// ------------------------------------------------------------------------------------ who is on call, OnCall's way

interface Occurrence { start: number; end: number; users: string[]; level: number; override: boolean }

/** The occurrences of one shift overlapping [from, to) (ms). */
function occurrences(shift: Json, fallbackZone: string, from: number, to: number): Occurrence[] {
  const zone = shift.time_zone || fallbackZone;
  const start = Temporal.PlainDateTime.from(shift.start).toZonedDateTime(zone);
  const ms = Number(shift.duration) * 1000;
  const override = shift.type === 'override';
  const level = Number(shift.level) || 0;
  if (shift.type === 'override' || shift.type === 'single_event') {
    const s = start.epochMilliseconds;
    return s < to && s + ms > from ? [{ start: s, end: s + ms, users: shift.users, level, override }] : [];
  }
  const groups: string[][] = shift.type === 'rolling_users' ? shift.rolling_users : [shift.users];
  const offset = Number(shift.start_rotation_from_user_index) || 0;
  const interval = Number(shift.interval) || 1;
  const until = shift.until ? Temporal.PlainDateTime.from(shift.until).toZonedDateTime('UTC').epochMilliseconds : Infinity;
  const unit = ({ hourly: 'hours', daily: 'days', weekly: 'weeks', monthly: 'months' } as Json)[shift.frequency] as 'hours';
  const out: Occurrence[] = [];
  for (let k = 0; ; k++) {
    const turn = unit === 'hours' ? start.add({ hours: k * interval }) : start.add({ [unit]: k * interval });
    if (turn.epochMilliseconds >= Math.min(to, until)) break;
    const users = groups[(k + offset) % groups.length]!;
    const starts: Temporal.ZonedDateTime[] = [];
    if (shift.by_day?.length && shift.frequency === 'weekly') {
      for (let d = 0; d < 7; d++) {
        const day = turn.add({ days: d });
        if (shift.by_day.includes(DAYS[day.dayOfWeek - 1])) starts.push(day);
      }
    } else if (shift.by_monthday?.length && shift.frequency === 'monthly') {
      for (const m of shift.by_monthday) starts.push(turn.with({ day: m }));
    } else if (!shift.by_day?.length || shift.by_day.includes(DAYS[turn.dayOfWeek - 1])) starts.push(turn);
    for (const s of starts) {
      const a = s.epochMilliseconds;
      if (a >= until) continue;
      if (a < to && a + ms > from) out.push({ start: a, end: a + ms, users, level, override });
    }
    if (k > 100_000) break;
  }
  return out;
}

/** OnCall's final shifts of a schedule between two instants: an override wins, then the highest level; merged. */
export function finalShifts(org: Organization, scheduleId: string, from: number, to: number): { users: string[]; start: number; end: number }[] {
  const schedule = org.schedules.find((s) => s.id === scheduleId)!;
  const own = org.shifts.filter((x) => (schedule.shifts ?? []).includes(x.id) || (x.type === 'override' && x.schedule === scheduleId));
  const all = own.flatMap((x) => occurrences(x, schedule.time_zone, from, to));
  const cuts = [...new Set([from, to, ...all.flatMap((o) => [o.start, o.end]).filter((x) => x > from && x < to)])].sort((a, b) => a - b);
  const out: { users: string[]; start: number; end: number }[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const mid = (cuts[i]! + cuts[i + 1]!) / 2;
    const covering = all.filter((o) => o.start <= mid && mid < o.end);
    if (!covering.length) continue;
    const top = covering.some((o) => o.override) ? covering.filter((o) => o.override) : covering.filter((o) => o.level === Math.max(...covering.map((c) => c.level)));
    const users = [...new Set(top.flatMap((o) => o.users))];
    const last = out.at(-1);
    if (last && last.end === cuts[i] && last.users.join() === users.join()) last.end = cuts[i + 1]!;
    else out.push({ users, start: cuts[i]!, end: cuts[i + 1]! });
  }
  return out;
}

// ------------------------------------------------------------------------------------------------------ the server

export interface OnCallServer {
  /** the API base, …/api/v1 */
  url: string;
  org: Organization;
  fault: { path: string; kind: '500' | 'malformed' | 'undocumented' } | null;
  retryAfter: string;
  requests: string[];
  rearm(): void;
  close(): Promise<void>;
}

export async function startGrafanaOnCall(org: Organization = onCallOrganization()): Promise<OnCallServer> {
  let limited = false;
  const state: OnCallServer = {
    url: '', org, fault: null, retryAfter: '7', requests: [],
    rearm: () => (limited = false),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const page = (url: URL, all: Json[]) => {
    const size = Math.min(100, Math.max(1, Number(url.searchParams.get('page_size') ?? 25)));
    const number = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const at = (p: number) => {
      const next = new URL(url.toString());
      next.host = `oncall-internal.example.com`; // OnCall writes its own public address into next; the importer keeps to --url
      next.protocol = 'https:';
      next.port = '';
      next.searchParams.set('page', String(p));
      return next.toString();
    };
    const pages = Math.max(1, Math.ceil(all.length / size));
    return { count: all.length, next: number < pages ? at(number + 1) : null, previous: number > 1 ? at(number - 1) : null, results: all.slice((number - 1) * size, number * size), current_page_number: number, page_size: size, total_pages: pages };
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://oncall');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (!url.pathname.startsWith('/api/v1/')) return send(res, 404, { detail: 'Not found.' });
    if (req.headers.authorization !== ONCALL_TOKEN) return send(res, 403, { detail: 'Invalid token.' });
    const path = url.pathname.slice('/api/v1'.length);
    if (state.fault && path === state.fault.path) {
      if (state.fault.kind === '500') return send(res, 500, { detail: 'A server error occurred.' });
      if (state.fault.kind === 'malformed') return send(res, 200, '{"results": [{"id": "U0');
      if (state.fault.kind === 'undocumented') return send(res, 200, { data: [], links: {} });
    }
    if (path === '/escalation_policies/' && !limited) {
      limited = true;
      return send(res, 429, { detail: 'Request was throttled.' }, { 'retry-after': state.retryAfter });
    }
    const lists: Record<string, Json[]> = {
      '/users/': org.users, '/personal_notification_rules/': org.rules, '/teams/': org.teams, '/schedules/': org.schedules, '/on_call_shifts/': org.shifts,
      '/escalation_chains/': org.chains, '/escalation_policies/': org.steps, '/integrations/': org.integrations, '/routes/': org.routes,
    };
    if (lists[path]) return send(res, 200, page(url, lists[path]!));
    const m = /^\/schedules\/([^/]+)\/final_shifts\/?$/.exec(path);
    if (m) {
      if (!org.schedules.some((s) => s.id === m[1])) return send(res, 404, { detail: 'Not found.' });
      const from = Date.parse(`${url.searchParams.get('start_date')}T00:00:00Z`);
      const to = Date.parse(`${url.searchParams.get('end_date')}T00:00:00Z`) + 86_400_000;
      if (!Number.isFinite(from) || !Number.isFinite(to)) return send(res, 400, { start_date: ['Date has wrong format.'] });
      const byId = new Map(org.users.map((u) => [u.id, u]));
      const results = finalShifts(org, m[1]!, from, to).flatMap((f) => f.users.map((u) => ({
        user_pk: u, user_email: byId.get(u)!.email, user_username: byId.get(u)!.username,
        shift_start: new Date(f.start).toISOString().replace('.000', ''), shift_end: new Date(f.end).toISOString().replace('.000', ''),
      })));
      return send(res, 200, page(url, results));
    }
    return send(res, 404, { detail: 'Not found.' });
  };
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  return state;
}
