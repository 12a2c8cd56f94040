/**
 * A local PagerDuty REST API v2 for the importer's tests, answering as PagerDuty's public API reference documents it:
 * `Authorization: Token token=<key>` (401 `{ error: { message, code: 2006 } }` otherwise), classic pagination
 * (`offset`, `limit` at most 100, default 25, and `limit`, `offset`, `more`, `total` in each answer), `include[]`
 * (users' contact_methods and notification_rules, services' integrations), one 429 with `Retry-After` on the first
 * call of /escalation_policies, and /oncalls (who is on call on a schedule between `since` and `until`).
 *
 * The account is made here, deterministically, at a realistic size: 40 users, 10 teams, 12 schedules, 15 escalation
 * policies, 15 services with integrations, overrides and maintenance windows, with the constructs a migration cannot
 * always carry (a turn that is not a whole number of hours, restrictions spanning days and midnight, seconds in a
 * restriction, a layer that ended, a push contact method, an email integration, more loops than Vigil repeats).
 *
 * /oncalls is PagerDuty's own answer, computed here from the layers as PagerDuty documents them (the top layer, the
 * first in `schedule_layers`, wins where it has someone; a turn counts from `rotation_virtual_start`, whole days in
 * the schedule's zone; restrictions in the schedule's zone; an override wins over the layers), written independently
 * of Vigil's own schedule code, so comparing the two proves the translation.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Temporal } from 'temporal-polyfill';

type Json = Record<string, any>;
export const PD_TOKEN = 'y_NbAkKc66ryYTWUXYEu';

const FIRST = ['Ana', 'Ben', 'Cy', 'Dana', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jo', 'Kai', 'Lea', 'Max', 'Nia', 'Oto', 'Pia', 'Quin', 'Rae', 'Sol', 'Tia'];
const LAST = ['Silva', 'Berg'];
const TEAMS = ['Payments', 'Platform', 'Search', 'Mobile', 'Data', 'Identity', 'Billing', 'Edge', 'Storage', 'Observability'];
const ROLES = ['owner', 'admin', 'admin', ...Array(30).fill('user'), 'limited_user', 'limited_user', 'limited_user', 'limited_user', 'observer', 'observer', 'read_only_user'];

const ref = (type: string, id: string, summary?: string) => ({ id, type, summary: summary ?? id, self: `https://api.pagerduty.com/${type.replace(/_reference$/, '')}s/${id}`, html_url: `https://example.pagerduty.com/${id}` });

export function pagerDutyAccount() {
  const users: Json[] = [];
  for (let i = 0; i < 40; i++) {
    const name = `${FIRST[i % 20]} ${LAST[Math.floor(i / 20)]}`;
    const email = `${FIRST[i % 20]!.toLowerCase()}.${LAST[Math.floor(i / 20)]!.toLowerCase()}@example.com`;
    const id = `PU${String(i).padStart(5, '0')}`;
    const methods: Json[] = [{ id: `PC${i}E`, type: 'email_contact_method', summary: 'Work', label: 'Work', address: email }];
    if (i % 2 === 0) methods.push({ id: `PC${i}P`, type: 'phone_contact_method', summary: 'Mobile', label: 'Mobile', address: `41555526${String(i).padStart(2, '0')}`, country_code: 1 });
    if (i % 3 === 0) methods.push({ id: `PC${i}S`, type: 'sms_contact_method', summary: 'Mobile', label: 'Mobile', address: `41555526${String(i).padStart(2, '0')}`, country_code: 1 });
    if (i % 5 === 0) methods.push({ id: `PC${i}M`, type: 'push_notification_contact_method', summary: 'iPhone', label: 'iPhone', address: `device-${i}` });
    const rules: Json[] = [{ id: `PN${i}A`, type: 'assignment_notification_rule', start_delay_in_minutes: 0, urgency: i % 4 === 0 ? 'any' : 'high', contact_method: ref('email_contact_method_reference', `PC${i}E`) }];
    if (i % 3 === 0) rules.push({ id: `PN${i}B`, type: 'assignment_notification_rule', start_delay_in_minutes: 5, urgency: 'high', contact_method: ref('sms_contact_method_reference', `PC${i}S`) });
    if (i % 2 === 0) rules.push({ id: `PN${i}C`, type: 'assignment_notification_rule', start_delay_in_minutes: 10, urgency: 'high', contact_method: ref('phone_contact_method_reference', `PC${i}P`) });
    if (i % 5 === 0) rules.push({ id: `PN${i}D`, type: 'assignment_notification_rule', start_delay_in_minutes: 1, urgency: 'low', contact_method: ref('push_notification_contact_method_reference', `PC${i}M`) });
    users.push({ id, type: 'user', name, summary: name, email, time_zone: 'Europe/Berlin', role: ROLES[i], contact_methods: methods, notification_rules: rules, teams: [] });
  }
  const uref = (i: number) => ref('user_reference', users[i]!.id, users[i]!.name);
  const teams = TEAMS.map((name, t) => ({ id: `PT${String(t).padStart(5, '0')}`, type: 'team', name, summary: name, description: `${name} engineering` }));
  // members: four per team, the last two teams six; one manager each, an observer in two
  const members = new Map<string, Json[]>();
  teams.forEach((team, t) => {
    const count = t >= 8 ? 6 : 4;
    members.set(team.id, Array.from({ length: count }, (_, k) => ({ user: uref((t * 4 + k) % 40), role: k === 0 ? 'manager' : t % 5 === 1 && k === 3 ? 'observer' : 'responder' })));
  });
  const teamUsers = (t: number) => members.get(teams[t]!.id)!.map((m) => m.user.id as string);
  const layer = (name: string, t: number, o: Json) => ({
    id: `PL${name.replace(/\W/g, '')}${t}`, name, start: o.start ?? o.rotation_virtual_start, end: o.end ?? null,
    rotation_virtual_start: o.rotation_virtual_start, rotation_turn_length_seconds: o.turn,
    users: (o.users as string[]).map((id) => ({ user: ref('user_reference', id) })), restrictions: o.restrictions ?? [],
  });
  const daily = (start: string, seconds: number) => ({ type: 'daily_restriction', start_time_of_day: start, duration_seconds: seconds, start_day_of_week: null });
  const weekly = (day: number, start: string, seconds: number) => ({ type: 'weekly_restriction', start_time_of_day: start, duration_seconds: seconds, start_day_of_week: day });
  const zones = ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Tokyo', 'Asia/Kolkata'];
  const vs: Record<string, string> = { 'Europe/Berlin': '2026-06-01T09:00:00+02:00', 'America/New_York': '2026-05-04T10:00:00-04:00', UTC: '2026-07-06T08:00:00Z', 'Asia/Tokyo': '2026-08-03T09:00:00+09:00', 'Asia/Kolkata': '2026-09-07T10:30:00+05:30' };
  const schedules: Json[] = [];
  for (let s = 0; s < 12; s++) {
    const t = s % 10;
    const zone = zones[s % 5]!;
    const people = teamUsers(t);
    const hourly = zone === 'UTC' || zone === 'Asia/Tokyo' || zone === 'Asia/Kolkata';
    // schedule_layers as PagerDuty lists them: the top layer first
    const layers: Json[] = [];
    if (s % 3 === 0) layers.push(layer('Office hours', s, { rotation_virtual_start: vs[zone], turn: 86400, users: people.slice(0, 2), restrictions: [daily('09:00:00', 8 * 3600)] }));
    if (s % 4 === 1) layers.push(layer('Weekend', s, { rotation_virtual_start: vs[zone], turn: 604800, users: people.slice(1, 3), restrictions: [weekly(5, '18:00:00', 62 * 3600)] }));
    if (s % 4 === 2) layers.push(layer('Weekdays', s, { rotation_virtual_start: vs[zone], turn: 2 * 86400, users: [...people].reverse(), restrictions: [weekly(1, '09:00:00', 4 * 86400 + 8 * 3600)] }));
    if (s === 5) layers.push(layer('Nights', s, { rotation_virtual_start: vs[zone], turn: 86400, users: people.slice(2), restrictions: [daily('22:00:00', 10 * 3600)] }));
    if (s === 7) layers.push(layer('Handover', s, { rotation_virtual_start: vs[zone], turn: 5400, users: people.slice(0, 3), restrictions: [daily('08:30:30', 3600)] }));
    if (s === 9) layers.push(layer('Old', s, { rotation_virtual_start: '2025-01-06T09:00:00Z', end: '2026-01-05T09:00:00Z', turn: 604800, users: people.slice(0, 2) }));
    if (s === 10) layers.push(layer('Until spring', s, { rotation_virtual_start: vs[zone], end: '2027-01-18T09:00:00+01:00', turn: 86400, users: people.slice(1) }));
    layers.push(layer('Primary', s, { rotation_virtual_start: vs[zone], turn: hourly ? 12 * 3600 : 604800, users: people }));
    const owners = s === 11 ? [teams[1]!, teams[3]!] : [teams[t]!];
    const name = s < 10 ? `${TEAMS[t]} primary` : `${TEAMS[t]} secondary`;
    schedules.push({ id: `PS${String(s).padStart(5, '0')}`, type: 'schedule', name, summary: name, time_zone: zone, description: s % 2 ? null : `On call for ${TEAMS[t]}`, schedule_layers: layers, teams: owners.map((o) => ref('team_reference', o.id, o.name)), users: [] });
  }
  const overrides = new Map<string, Json[]>(schedules.map((s) => [s.id, []]));
  const override = (s: number, id: string, start: string, end: string, user: number) => overrides.get(schedules[s]!.id)!.push({ id, start, end, user: uref(user) });
  override(0, 'PO0001', '2026-12-20T00:00:00Z', '2026-12-21T00:00:00Z', 30); // over before the import
  override(0, 'PO0002', '2027-01-12T06:00:00Z', '2027-01-13T06:00:00Z', 2);
  override(2, 'PO0003', '2027-01-15T20:00:00+01:00', '2027-01-16T08:00:00+01:00', 9);
  override(4, 'PO0004', '2027-01-09T12:00:00Z', '2027-01-11T12:00:00Z', 17); // under way at the import
  override(6, 'PO0005', '2027-01-20T00:00:00Z', '2027-01-22T00:00:00Z', 25);
  override(6, 'PO0006', '2027-01-23T00:00:00Z', '2027-01-23T12:00:00Z', 25);
  override(11, 'PO0007', '2027-01-14T10:00:00Z', '2027-01-14T22:00:00Z', 5);
  const sref = (s: number) => ref('schedule_reference', schedules[s]!.id, schedules[s]!.name);
  const policies: Json[] = [];
  for (let p = 0; p < 15; p++) {
    const t = p % 10;
    const rules: Json[] = [{ id: `PR${p}A`, escalation_delay_in_minutes: 10 + (p % 3) * 5, targets: [sref(p % 12)] }];
    if (p % 2 === 0) rules.push({ id: `PR${p}B`, escalation_delay_in_minutes: 15, targets: [uref(t * 4), ...(p % 4 === 0 ? [sref((p + 1) % 12)] : [])] });
    if (p % 5 === 0) rules.push({ id: `PR${p}C`, escalation_delay_in_minutes: p === 5 ? 30 : 15, targets: [uref((t * 4 + 1) % 40), uref((t * 4 + 2) % 40)] });
    // two policies of one name (PagerDuty does not insist on unique names; Vigil's are natural keys)
    const name = p < 10 || p === 12 ? `${TEAMS[t]} escalation` : `${TEAMS[t]} after hours`;
    policies.push({
      id: `PE${String(p).padStart(5, '0')}`, type: 'escalation_policy', name, summary: name, description: p % 3 ? '' : `Escalation for ${TEAMS[t]}`,
      num_loops: p === 7 ? 12 : p % 3, on_call_handoff_notifications: 'if_has_services', escalation_rules: rules, services: [], teams: p === 13 ? [] : [ref('team_reference', teams[t]!.id, teams[t]!.name)],
    });
  }
  const vendors = [
    { type: 'events_api_v2_inbound_integration', vendor: null, name: 'Events API v2' },
    { type: 'generic_events_api_inbound_integration', vendor: { type: 'vendor_reference', id: 'PAM4FGS', summary: 'Datadog' }, name: 'Datadog' },
    { type: 'generic_events_api_inbound_integration', vendor: { type: 'vendor_reference', id: 'PZQ6AUS', summary: 'Grafana' }, name: 'Grafana' },
    { type: 'aws_cloudwatch_inbound_integration', vendor: { type: 'vendor_reference', id: 'PZQ6AUT', summary: 'Amazon CloudWatch' }, name: 'CloudWatch' },
    { type: 'events_api_v2_inbound_integration', vendor: { type: 'vendor_reference', id: 'PQD7MGU', summary: 'Prometheus' }, name: 'Alertmanager' },
    { type: 'generic_email_inbound_integration', vendor: null, name: 'Email' },
  ];
  const services: Json[] = [];
  for (let v = 0; v < 15; v++) {
    const p = v;
    const t = p % 10;
    const name = `${['checkout', 'api', 'search', 'ios', 'warehouse', 'login', 'invoices', 'cdn', 'blobs', 'metrics'][t]}${v >= 10 ? '-batch' : ''}`;
    const integrations = [vendors[v % 6]!, ...(v % 4 === 0 ? [vendors[(v + 3) % 6]!] : [])].map((x, k) => ({ id: `PI${v}${k}`, type: x.type, name: x.name, summary: x.name, vendor: x.vendor, integration_key: `key${v}${k}` }));
    services.push({
      id: `PV${String(v).padStart(5, '0')}`, type: 'service', name, summary: name, description: `${name} service`, status: v === 14 ? 'disabled' : 'active',
      escalation_policy: ref('escalation_policy_reference', policies[p]!.id, policies[p]!.name), teams: p === 13 ? [] : [ref('team_reference', teams[t]!.id, teams[t]!.name)], integrations,
    });
  }
  const sv = (v: number) => ref('service_reference', services[v]!.id, services[v]!.name);
  const maintenance = [
    { id: 'PW0001', type: 'maintenance_window', description: 'Database upgrade', start_time: '2027-01-16T22:00:00Z', end_time: '2027-01-17T02:00:00Z', services: [sv(4), sv(8)] },
    { id: 'PW0002', type: 'maintenance_window', description: 'CDN provider switch', start_time: '2027-02-01T06:00:00Z', end_time: '2027-02-01T07:30:00Z', services: [sv(7)] },
    { id: 'PW0003', type: 'maintenance_window', description: 'Past window', start_time: '2026-12-01T06:00:00Z', end_time: '2026-12-01T07:30:00Z', services: [sv(1)] },
  ];
  return { users, teams, members, schedules, overrides, policies, services, maintenance };
}

export type Account = ReturnType<typeof pagerDutyAccount>;

// ------------------------------------------------------------------------------------ who is on call, PagerDuty's way

const MS = 1000;

/** The user on a layer at `at` (ms), or null. */
function layerUser(layer: Json, zone: string, at: number): string | null {
  if (Date.parse(layer.start) > at || (layer.end && Date.parse(layer.end) <= at)) return null;
  const virtual = Temporal.Instant.from(layer.rotation_virtual_start).toZonedDateTimeISO(zone);
  const turn = Number(layer.rotation_turn_length_seconds);
  if (at < virtual.epochMilliseconds) return null;
  let index = Math.floor((at - virtual.epochMilliseconds) / (turn * MS));
  if (turn % 86400 === 0) {
    // whole days: each handoff at the same local time, whatever the offset
    const days = turn / 86400;
    const boundary = (k: number) => virtual.add({ days: k * days }).epochMilliseconds;
    while (index > 0 && boundary(index) > at) index--;
    while (boundary(index + 1) <= at) index++;
  }
  if (layer.restrictions.length) {
    const local = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone);
    const minuteOfWeek = (local.dayOfWeek - 1) * 1440 + local.hour * 60 + local.minute + local.second / 60;
    const inside = layer.restrictions.some((r: Json) => {
      const [h, m, s] = String(r.start_time_of_day).split(':').map(Number);
      const startOfDay = h! * 60 + m! + (s ?? 0) / 60;
      const minutes = r.duration_seconds / 60;
      if (r.type === 'daily_restriction') return minutes >= 1440 || ((((minuteOfWeek % 1440) - startOfDay) % 1440) + 1440) % 1440 < minutes;
      const start = (r.start_day_of_week - 1) * 1440 + startOfDay;
      return ((((minuteOfWeek - start) % 10080) + 10080) % 10080) < minutes;
    });
    if (!inside) return null;
  }
  return layer.users[index % layer.users.length].user.id;
}

/** PagerDuty's on-call user of a schedule at `at`, or null. */
export function pagerDutyOnCall(account: Account, scheduleId: string, at: number): string | null {
  const schedule = account.schedules.find((s) => s.id === scheduleId)!;
  const override = account.overrides.get(scheduleId)!.find((o) => Date.parse(o.start) <= at && at < Date.parse(o.end));
  if (override) return override.user.id;
  for (const layer of schedule.schedule_layers) {
    const user = layerUser(layer, schedule.time_zone, at);
    if (user) return user;
  }
  return null;
}

// ------------------------------------------------------------------------------------------------------ the server

export interface PagerDutyServer {
  url: string;
  account: Account;
  /** what the next requests meet: refuse the token, answer 500 or malformed JSON at a path, or a body not in PagerDuty's form */
  fault: { path: string; kind: '500' | 'malformed' | 'undocumented' } | null;
  /** the Retry-After of the one 429 (seconds) */
  retryAfter: string;
  /** requests seen, `METHOD path?query` */
  requests: string[];
  /** the next import meets a 429 again */
  rearm(): void;
  close(): Promise<void>;
}

export async function startPagerDuty(account: Account = pagerDutyAccount()): Promise<PagerDutyServer> {
  let limited = false;
  const state: PagerDutyServer = {
    url: '', account, fault: null, retryAfter: '7', requests: [],
    rearm: () => (limited = false),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const page = (url: URL, key: string, all: Json[]) => {
    const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 25)));
    const offset = Math.max(0, Number(url.searchParams.get('offset') ?? 0));
    const items = all.slice(offset, offset + limit);
    return { [key]: items, limit, offset, more: offset + limit < all.length, total: url.searchParams.get('total') === 'true' ? all.length : null };
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://pd');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers.authorization !== `Token token=${PD_TOKEN}`) return send(res, 401, { error: { message: 'Unauthorized', code: 2006 } });
    if (req.headers.accept !== 'application/vnd.pagerduty+json;version=2') return send(res, 406, { error: { message: 'Not Acceptable', code: 2001 } });
    const path = url.pathname;
    if (state.fault && path === state.fault.path) {
      if (state.fault.kind === '500') return send(res, 500, { error: { message: 'Internal Server Error', code: 2000 } });
      if (state.fault.kind === 'malformed') return send(res, 200, '{"users": [{"id": "PU0');
      if (state.fault.kind === 'undocumented') return send(res, 200, { data: [], next_cursor: null });
    }
    if (path === '/escalation_policies' && !limited) {
      limited = true;
      return send(res, 429, { error: { message: 'Rate Limit Exceeded', code: 2020 } }, { 'retry-after': state.retryAfter });
    }
    const includes = url.searchParams.getAll('include[]');
    let m: RegExpExecArray | null;
    if (path === '/users') {
      return send(res, 200, page(url, 'users', account.users.map((u) => {
        const { contact_methods, notification_rules, ...rest } = u;
        return { ...rest, ...(includes.includes('contact_methods') ? { contact_methods } : { contact_methods: contact_methods.map((c: Json) => ref(`${c.type}_reference`, c.id)) }), ...(includes.includes('notification_rules') ? { notification_rules } : {}) };
      })));
    }
    if (path === '/teams') return send(res, 200, page(url, 'teams', account.teams));
    if ((m = /^\/teams\/([^/]+)\/members$/.exec(path))) {
      const list = account.members.get(m[1]!);
      return list ? send(res, 200, page(url, 'members', list)) : send(res, 404, { error: { message: 'Not Found', code: 2100 } });
    }
    if (path === '/schedules') return send(res, 200, page(url, 'schedules', account.schedules.map(({ schedule_layers: _l, ...s }) => s)));
    if ((m = /^\/schedules\/([^/]+)\/overrides$/.exec(path))) {
      const since = Date.parse(url.searchParams.get('since') ?? '');
      const until = Date.parse(url.searchParams.get('until') ?? '');
      if (!Number.isFinite(since) || !Number.isFinite(until)) return send(res, 400, { error: { message: 'Invalid Input Provided', code: 2001, errors: ['since and until are required'] } });
      const list = account.overrides.get(m[1]!);
      if (!list) return send(res, 404, { error: { message: 'Not Found', code: 2100 } });
      // not paginated: every override between since and until
      return send(res, 200, { overrides: list.filter((o) => Date.parse(o.end) > since && Date.parse(o.start) < until) });
    }
    if ((m = /^\/schedules\/([^/]+)$/.exec(path))) {
      const schedule = account.schedules.find((s) => s.id === m![1]);
      return schedule ? send(res, 200, { schedule }) : send(res, 404, { error: { message: 'Not Found', code: 2100 } });
    }
    if (path === '/escalation_policies') return send(res, 200, page(url, 'escalation_policies', account.policies));
    if (path === '/services') {
      return send(res, 200, page(url, 'services', account.services.map((s) => (includes.includes('integrations') ? s : { ...s, integrations: s.integrations.map((i: Json) => ref(`${i.type}_reference`, i.id)) }))));
    }
    if (path === '/maintenance_windows') return send(res, 200, page(url, 'maintenance_windows', account.maintenance));
    if (path === '/oncalls') {
      const at = Date.parse(url.searchParams.get('since') ?? '');
      const ids = url.searchParams.getAll('schedule_ids[]');
      const entries = ids.flatMap((id) => {
        const user = pagerDutyOnCall(account, id, at);
        return user ? [{ user: ref('user_reference', user), schedule: ref('schedule_reference', id), escalation_level: 1, start: null, end: null }] : [];
      });
      return send(res, 200, page(url, 'oncalls', entries));
    }
    return send(res, 404, { error: { message: 'Not Found', code: 2100 } });
  };
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
