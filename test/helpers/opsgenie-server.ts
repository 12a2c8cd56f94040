/**
 * A local Opsgenie REST API for the importer's tests, answering as Opsgenie's API documentation describes it:
 * `Authorization: GenieKey <key>` (401 `{ message: 'Could not authenticate', took, requestId }` otherwise), answers
 * `{ data, took, requestId }`, the users list paged (`offset`, `limit` default 20 at most 500, a `paging` object whose
 * `next` links the next page while there is one, `totalCount`), one 429 on the first call of /v2/escalations with the
 * headers the rate-limiting page documents (`X-RateLimit-State: THROTTLED`, `X-RateLimit-Reason`,
 * `X-RateLimit-Period-In-Sec`), and /v2/schedules/{id}/on-calls?date= (who is on call at an instant).
 *
 * The account is made here, deterministically, at a realistic size: 40 users, 10 teams, 12 schedules, 15
 * escalations, 15 integrations, overrides and maintenance, with constructs a migration cannot always carry: a
 * participant `none`, team and escalation participants, overlapping rotations, a rotation that ended, notifyType
 * `next`, `previous`, `all` and `admins`, an if-not-closed rule, a first rule that waits, more repeats than Vigil's,
 * a mobile contact method, a custom role, an email integration, an override of some rotations.
 *
 * The on-call answer is Opsgenie's, computed here from the rotations as Opsgenie documents them (everyone whose
 * rotation has them on call is on call at once; a turn counts from the rotation's startDate, whole days in the
 * schedule's zone, hours as elapsed time; time restrictions in the schedule's zone, an end at or before the start
 * running past midnight; an override replaces the participant of the rotations it names, all when it names none),
 * written independently of Vigil's schedule code and of the importer, so comparing the two proves the translation.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Temporal } from 'temporal-polyfill';

type Json = Record<string, any>;
export const OG_KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';

const FIRST = ['Ana', 'Ben', 'Cy', 'Dana', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jo', 'Kai', 'Lea', 'Max', 'Nia', 'Oto', 'Pia', 'Quin', 'Rae', 'Sol', 'Tia'];
const LAST = ['Silva', 'Berg'];
const TEAMS = ['Payments', 'Platform', 'Search', 'Mobile', 'Data', 'Identity', 'Billing', 'Edge', 'Storage', 'Observability'];
const ROLES = ['Owner', 'Admin', 'Admin', ...Array(31).fill('User'), 'Observer', 'Observer', 'Observer', 'Stakeholder', 'Responder', 'Responder'];
const uuid = (kind: number, n: number) => `${String(kind).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;

export function opsgenieAccount() {
  const users: Json[] = [];
  const contacts = new Map<string, Json[]>();
  const rules = new Map<string, Json[]>();
  const steps = new Map<string, Json[]>();
  for (let i = 0; i < 40; i++) {
    const fullName = `${FIRST[i % 20]} ${LAST[Math.floor(i / 20)]}`;
    const username = `${FIRST[i % 20]!.toLowerCase()}.${LAST[Math.floor(i / 20)]!.toLowerCase()}@example.com`;
    const id = uuid(1, i);
    users.push({ id, username, fullName, role: { id: ROLES[i]!.toLowerCase(), name: ROLES[i] }, timeZone: 'Europe/Berlin', locale: 'en_US', verified: true, blocked: false, createdAt: '2025-03-01T10:00:00.000Z' });
    const phone = `1-41555526${String(i).padStart(2, '0')}`;
    const list: Json[] = [{ id: uuid(2, i * 10), method: 'email', to: username, status: { enabled: true } }];
    if (i % 2 === 0) list.push({ id: uuid(2, i * 10 + 1), method: 'voice', to: phone, status: { enabled: true } });
    if (i % 3 === 0) list.push({ id: uuid(2, i * 10 + 2), method: 'sms', to: phone, status: { enabled: i !== 9 } });
    if (i % 5 === 0) list.push({ id: uuid(2, i * 10 + 3), method: 'mobile', to: `device-${i}`, status: { enabled: true } });
    contacts.set(id, list);
    const ruleId = uuid(3, i * 10);
    const own: Json[] = [{ id: ruleId, name: 'New alert', actionType: 'create-alert', order: 1, enabled: true, criteria: { type: 'match-all' }, notificationTime: ['just-before'] }];
    const ruleSteps: Json[] = [{ id: uuid(4, i * 10), sendAfter: { timeAmount: 0, timeUnit: 'minutes' }, contact: { method: 'email', to: username }, enabled: true }];
    if (i % 3 === 0) ruleSteps.push({ id: uuid(4, i * 10 + 1), sendAfter: { timeAmount: 5, timeUnit: 'minutes' }, contact: { method: 'sms', to: phone }, enabled: true });
    if (i % 2 === 0) ruleSteps.push({ id: uuid(4, i * 10 + 2), sendAfter: { timeAmount: 10, timeUnit: 'minutes' }, contact: { method: 'voice', to: phone }, enabled: true });
    if (i % 5 === 0) ruleSteps.push({ id: uuid(4, i * 10 + 3), sendAfter: { timeAmount: 1, timeUnit: 'minutes' }, contact: { method: 'mobile', to: `device-${i}` }, enabled: true });
    steps.set(ruleId, ruleSteps);
    if (i % 7 === 0) {
      own.push({ id: uuid(3, i * 10 + 1), name: 'Acknowledged', actionType: 'acknowledged-alert', order: 1, enabled: true });
      steps.set(uuid(3, i * 10 + 1), [{ id: uuid(4, i * 10 + 5), sendAfter: { timeAmount: 0, timeUnit: 'minutes' }, contact: { method: 'email', to: username }, enabled: true }]);
    }
    rules.set(id, own);
  }
  const uref = (i: number) => ({ type: 'user', id: users[i]!.id, username: users[i]!.username });
  const teams = TEAMS.map((name, t) => ({ id: uuid(5, t), name, description: `${name} engineering` }));
  const members = new Map<string, Json[]>();
  teams.forEach((team, t) => {
    const count = t >= 8 ? 6 : 4;
    members.set(team.id, Array.from({ length: count }, (_, k) => ({ user: { id: users[(t * 4 + k) % 40]!.id, username: users[(t * 4 + k) % 40]!.username }, role: k === 0 ? 'admin' : 'user' })));
  });
  const teamUsers = (t: number) => members.get(teams[t]!.id)!.map((m) => ({ type: 'user', id: m.user.id, username: m.user.username }));
  const zones = ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Tokyo', 'Asia/Kolkata'];
  const start: Record<string, string> = { 'Europe/Berlin': '2026-06-01T07:00:00Z', 'America/New_York': '2026-05-04T14:00:00Z', UTC: '2026-07-06T08:00:00Z', 'Asia/Tokyo': '2026-08-03T00:00:00Z', 'Asia/Kolkata': '2026-09-07T05:00:00Z' };
  const tod = (sh: number, sm: number, eh: number, em: number) => ({ type: 'time-of-day', restriction: { startHour: sh, startMin: sm, endHour: eh, endMin: em } });
  const wk = (...r: [string, number, number, string, number, number][]) => ({ type: 'weekday-and-time-of-day', restrictions: r.map(([startDay, startHour, startMin, endDay, endHour, endMin]) => ({ startDay, startHour, startMin, endDay, endHour, endMin })) });
  const schedules: Json[] = [];
  for (let s = 0; s < 12; s++) {
    const t = s % 10;
    const zone = zones[s % 5]!;
    const people = teamUsers(t);
    const rot = (name: string, type: string, length: number, participants: Json[], more: Json = {}) => ({ id: uuid(7, s * 10 + schedules.length), name, startDate: start[zone], type, length, participants, ...more });
    let rotations: Json[];
    if (s === 0) rotations = [rot('Days', 'daily', 1, people.slice(0, 2), { timeRestriction: tod(8, 0, 20, 0) }), rot('Nights', 'daily', 1, people.slice(2), { timeRestriction: tod(20, 0, 8, 0) })];
    else if (s === 1 || s === 11) {
      rotations = [
        rot('Weekdays', 'weekly', 1, people.slice(0, 3), { timeRestriction: wk(['monday', 9, 0, 'friday', 18, 0]) }),
        rot('Weekend', 'daily', 2, people.slice(1), { timeRestriction: wk(['friday', 18, 0, 'monday', 9, 0]) }),
      ];
    } else if (s === 2) rotations = [rot('Halves', 'hourly', 12, people)];
    else if (s === 3) rotations = [rot('Ten days', 'daily', 10, people)];
    else if (s === 4) rotations = [rot('With a gap', 'weekly', 1, [people[0]!, { type: 'none' }, people[1]!, people[2]!])];
    else if (s === 6) rotations = [rot('Mixed', 'daily', 1, [people[0]!, { type: 'team', id: teams[2]!.id, name: teams[2]!.name }, people[1]!, { type: 'escalation', id: uuid(8, 2), name: 'Search_escalation' }])];
    else if (s === 7) rotations = [rot('Day shift', 'hourly', 6, people.slice(0, 2), { timeRestriction: tod(6, 30, 18, 30) }), rot('Night shift', 'hourly', 6, people.slice(2), { timeRestriction: tod(18, 30, 6, 30) })];
    else if (s === 8) rotations = [rot('Primary', 'weekly', 1, people), rot('Shadow', 'daily', 1, people.slice(3))];
    else if (s === 9) rotations = [rot('Old', 'weekly', 1, people.slice(0, 2), { startDate: '2025-01-06T09:00:00Z', endDate: '2026-01-05T09:00:00Z' }), rot('Primary', 'weekly', 1, people)];
    else if (s === 10) rotations = [rot('Until spring', 'daily', 1, people.slice(1), { endDate: '2027-01-18T08:00:00Z' })];
    else rotations = [rot('Primary', 'weekly', 1, people)];
    const name = s < 10 ? `${TEAMS[t]} primary` : `${TEAMS[t]} secondary`;
    schedules.push({ id: uuid(6, s), name, description: s % 2 ? '' : `On call for ${TEAMS[t]}`, timezone: zone, enabled: true, ownerTeam: { id: teams[s === 11 ? 1 : t]!.id, name: teams[s === 11 ? 1 : t]!.name }, rotations });
  }
  const overrides = new Map<string, Json[]>(schedules.map((s) => [s.id, []]));
  const override = (s: number, alias: string, startDate: string, endDate: string, user: Json, rotations: Json[] = []) => overrides.get(schedules[s]!.id)!.push({ alias, user, startDate, endDate, rotations });
  override(0, 'o1', '2026-12-20T00:00:00Z', '2026-12-21T00:00:00Z', uref(30)); // over before the import
  override(0, 'o2', '2027-01-12T06:00:00Z', '2027-01-13T06:00:00Z', uref(2));
  override(2, 'o3', '2027-01-15T19:00:00Z', '2027-01-16T07:00:00Z', uref(9));
  override(5, 'o4', '2027-01-09T12:00:00Z', '2027-01-11T12:00:00Z', uref(17)); // under way at the import
  override(3, 'o5', '2027-01-20T00:00:00Z', '2027-01-22T00:00:00Z', uref(25));
  override(3, 'o6', '2027-01-23T00:00:00Z', '2027-01-23T12:00:00Z', uref(25));
  override(11, 'o7', '2027-01-14T10:00:00Z', '2027-01-14T22:00:00Z', uref(5));
  override(8, 'o8', '2027-01-16T00:00:00Z', '2027-01-17T00:00:00Z', uref(7), [{ id: schedules[8]!.rotations[1].id, name: 'Shadow' }]);
  override(6, 'o9', '2027-01-19T00:00:00Z', '2027-01-19T12:00:00Z', { type: 'team', id: teams[4]!.id, name: teams[4]!.name });
  const sref = (s: number) => ({ type: 'schedule', id: schedules[s]!.id, name: schedules[s]!.name });
  const rule = (delay: number, recipient: Json, notifyType = 'default', condition = 'if-not-acked') => ({ condition, notifyType, delay: { timeAmount: delay, timeUnit: 'minutes' }, recipient });
  const policies: Json[] = [];
  for (let p = 0; p < 15; p++) {
    const t = p % 10;
    const second = 10 + (p % 3) * 5;
    const list: Json[] = [rule(p === 9 ? 5 : 0, sref(p % 12), p === 3 ? 'next' : p === 7 ? 'previous' : p === 13 ? 'all' : 'default')];
    if (p % 2 === 0) {
      list.push(rule(second, uref(t * 4), 'default', p === 12 ? 'if-not-closed' : 'if-not-acked'));
      if (p % 4 === 0) list.push(rule(second, sref((p + 1) % 12)));
    }
    if (p % 5 === 0) list.push(rule(second + 20, { type: 'team', id: teams[(t + 1) % 10]!.id, name: teams[(t + 1) % 10]!.name }, 'users'));
    if (p === 11) list.push(rule(15, { type: 'team', id: teams[1]!.id, name: teams[1]!.name }, 'admins'));
    const lastDelay = list.at(-1)!.delay.timeAmount - (list.length > 1 ? list.at(-2)!.delay.timeAmount : 0);
    policies.push({
      id: uuid(8, p), name: p < 10 ? `${TEAMS[t]}_escalation` : `${TEAMS[t]} after hours`, description: p % 3 ? '' : `Escalation for ${TEAMS[t]}`,
      ...(p < 10 ? { ownerTeam: { id: teams[t]!.id, name: teams[t]!.name } } : {}),
      rules: list, repeat: { waitInterval: p === 4 ? 30 : lastDelay, count: p === 7 ? 12 : p % 3, resetRecipientStates: false, closeAlertAfterAll: p === 4 },
    });
  }
  const kinds = ['API', 'Prometheus', 'Grafana', 'Datadog', 'NewRelic', 'AmazonCloudWatch', 'Email', 'Jira'];
  const integrations = Array.from({ length: 15 }, (_, i) => ({
    id: uuid(9, i), name: `${['checkout', 'api', 'search', 'ios', 'warehouse', 'login', 'invoices', 'cdn', 'blobs', 'metrics'][i % 10]}-${kinds[i % 8]!.toLowerCase()}`,
    type: kinds[i % 8], enabled: i !== 14, ...(i === 13 ? {} : { teamId: teams[i % 10]!.id }), version: 'v2',
  }));
  const maintenance = [
    { id: uuid(10, 1), status: 'planned', description: 'Database upgrade', time: { type: 'schedule', startDate: '2027-01-16T22:00:00Z', endDate: '2027-01-17T02:00:00Z' }, rules: [{ state: 'disabled', entity: { id: integrations[4]!.id, type: 'integration' } }] },
    { id: uuid(10, 2), status: 'past', description: 'Past window', time: { type: 'schedule', startDate: '2026-12-01T06:00:00Z', endDate: '2026-12-01T07:30:00Z' }, rules: [] },
    { id: uuid(10, 3), status: 'active', description: 'Noisy policy', time: { type: 'indefinitely', startDate: '2027-01-05T06:00:00Z' }, rules: [{ state: 'disabled', entity: { id: uuid(11, 1), type: 'policy' } }] },
  ];
  // /v2/heartbeats: one each of what carries exactly, a name no URL segment holds, an interval under Vigil's 30 s floor
  // cannot be (Opsgenie's unit is at least minutes), and a disabled one
  const heartbeats = [
    { name: 'nightly-backup', description: 'the database dump', interval: 1, intervalUnit: 'days', enabled: true, expired: false, ownerTeam: { id: teams[0]!.id, name: teams[0]!.name }, alertMessage: 'nightly-backup is expired', alertTags: [], alertPriority: 'P2' },
    { name: 'Watchdog prometheus', description: 'Alertmanager watchdog', interval: 5, intervalUnit: 'minutes', enabled: true, expired: false, alertMessage: 'Watchdog is expired', alertTags: [], alertPriority: 'P1' },
    { name: 'old-cron', description: '', interval: 2, intervalUnit: 'hours', enabled: false, expired: true, alertMessage: 'old-cron is expired', alertTags: [], alertPriority: 'P3' },
  ];
  return { users, contacts, rules, steps, teams, members, schedules, overrides, policies, integrations, maintenance, heartbeats };
}

export type Account = ReturnType<typeof opsgenieAccount>;

// ------------------------------------------------------------------------------------- who is on call, Opsgenie's way

const DAY_INDEX: Record<string, number> = { monday: 0, tuesday: 1, wednesday: 2, thursday: 3, friday: 4, saturday: 5, sunday: 6 };

function restricted(tr: Json | undefined, zone: string, at: number): boolean {
  if (!tr) return true;
  const local = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone);
  const minuteOfDay = local.hour * 60 + local.minute;
  const minuteOfWeek = (local.dayOfWeek - 1) * 1440 + minuteOfDay;
  const inRange = (x: number, from: number, to: number, span: number) => (to > from ? x >= from && x < to : x >= from || x < to);
  if (tr.type === 'time-of-day') {
    const r = tr.restriction;
    return inRange(minuteOfDay, r.startHour * 60 + r.startMin, r.endHour * 60 + r.endMin, 1440);
  }
  return tr.restrictions.some((r: Json) => inRange(minuteOfWeek, DAY_INDEX[r.startDay]! * 1440 + r.startHour * 60 + r.startMin, DAY_INDEX[r.endDay]! * 1440 + r.endHour * 60 + r.endMin, 10080));
}

/** The participant of a rotation at `at`, or null. */
function rotationParticipant(rotation: Json, zone: string, at: number): Json | null {
  const start = Temporal.Instant.from(rotation.startDate).toZonedDateTimeISO(zone);
  if (at < start.epochMilliseconds || (rotation.endDate && Date.parse(rotation.endDate) <= at)) return null;
  let index: number;
  if (rotation.type === 'hourly') index = Math.floor((at - start.epochMilliseconds) / (rotation.length * 3_600_000));
  else {
    const days = rotation.length * (rotation.type === 'weekly' ? 7 : 1);
    index = Math.floor((at - start.epochMilliseconds) / (days * 86_400_000));
    const boundary = (k: number) => start.add({ days: k * days }).epochMilliseconds;
    while (index > 0 && boundary(index) > at) index--;
    while (boundary(index + 1) <= at) index++;
  }
  if (!restricted(rotation.timeRestriction, zone, at)) return null;
  return rotation.participants[index % rotation.participants.length];
}

/** Opsgenie's on-call participants of a schedule at `at`. */
export function opsgenieOnCall(account: Account, scheduleId: string, at: number): Json[] {
  const schedule = account.schedules.find((s) => s.id === scheduleId)!;
  const out: Json[] = [];
  for (const rotation of schedule.rotations) {
    const turn = rotationParticipant(rotation, schedule.timezone, at);
    if (!turn) continue;
    const o = account.overrides.get(scheduleId)!.find((x) => Date.parse(x.startDate) <= at && at < Date.parse(x.endDate) && (!x.rotations.length || x.rotations.some((r: Json) => r.id === rotation.id)));
    const p: Json = o ? o.user : turn;
    if (p.type !== 'none' && !out.some((x) => x.id === p.id)) out.push(p);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------------ the server

export interface OpsgenieServer {
  url: string;
  account: Account;
  fault: { path: string; kind: '500' | 'malformed' | 'undocumented' } | null;
  /** X-RateLimit-Period-In-Sec of the one 429 */
  period: string;
  requests: string[];
  rearm(): void;
  close(): Promise<void>;
}

export async function startOpsgenie(account: Account = opsgenieAccount()): Promise<OpsgenieServer> {
  let limited = false;
  let request = 0;
  const state: OpsgenieServer = {
    url: '', account, fault: null, period: '7', requests: [],
    rearm: () => (limited = false),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(typeof body === 'object' && body && !Array.isArray(body) ? { ...body, took: 0.01, requestId: `req-${++request}` } : body));
  };
  const notFound = (res: ServerResponse, what: string) => send(res, 404, { message: `No ${what} exists with identifier` });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://og');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers.authorization !== `GenieKey ${OG_KEY}`) return send(res, 401, { message: 'Could not authenticate' });
    const path = url.pathname;
    if (state.fault && path === state.fault.path) {
      if (state.fault.kind === '500') return send(res, 500, { message: 'Internal Server Error' });
      if (state.fault.kind === 'malformed') return send(res, 200, '{"data": [{"id": "0');
      if (state.fault.kind === 'undocumented') return send(res, 200, { items: [], next_cursor: null });
    }
    if (path === '/v2/escalations' && !limited) {
      limited = true;
      return send(res, 429, { message: 'Too many requests' }, { 'x-ratelimit-state': 'THROTTLED', 'x-ratelimit-reason': 'CONFIGURATION', 'x-ratelimit-period-in-sec': state.period });
    }
    let m: RegExpExecArray | null;
    if (path === '/v2/users') {
      const limit = Math.min(500, Math.max(1, Number(url.searchParams.get('limit') ?? 20)));
      const offset = Math.max(0, Number(url.searchParams.get('offset') ?? 0));
      const link = (o: number) => `https://api.opsgenie.com/v2/users?limit=${limit}&offset=${o}&order=ASC&sort=username`;
      const paging: Json = { first: link(0), last: link(Math.max(0, Math.floor((account.users.length - 1) / limit) * limit)) };
      if (offset + limit < account.users.length) paging.next = link(offset + limit);
      if (offset > 0) paging.prev = link(Math.max(0, offset - limit));
      return send(res, 200, { totalCount: account.users.length, data: account.users.slice(offset, offset + limit), paging });
    }
    if ((m = /^\/v2\/users\/([^/]+)\/contacts$/.exec(path))) return account.contacts.has(m[1]!) ? send(res, 200, { data: account.contacts.get(m[1]!) }) : notFound(res, 'user');
    if ((m = /^\/v2\/users\/([^/]+)\/notification-rules$/.exec(path))) {
      return account.rules.has(m[1]!) ? send(res, 200, { data: account.rules.get(m[1]!)!.map((r) => ({ ...r, _links: undefined })) }) : notFound(res, 'user');
    }
    if ((m = /^\/v2\/users\/([^/]+)\/notification-rules\/([^/]+)\/steps$/.exec(path))) {
      return account.rules.get(m[1]!)?.some((r) => r.id === m![2]) ? send(res, 200, { data: account.steps.get(m[2]!) ?? [] }) : notFound(res, 'notification rule');
    }
    if (path === '/v2/teams') return send(res, 200, { data: account.teams });
    if ((m = /^\/v2\/teams\/([^/]+)$/.exec(path))) {
      const team = account.teams.find((x) => x.id === m![1]);
      return team ? send(res, 200, { data: { ...team, members: account.members.get(team.id) } }) : notFound(res, 'team');
    }
    if (path === '/v2/schedules') {
      const expand = url.searchParams.get('expand') === 'rotation';
      return send(res, 200, { data: account.schedules.map(({ rotations, ...s }) => (expand ? { ...s, rotations } : s)), expandable: ['rotation'] });
    }
    if ((m = /^\/v2\/schedules\/([^/]+)\/overrides$/.exec(path))) return account.overrides.has(m[1]!) ? send(res, 200, { data: account.overrides.get(m[1]!) }) : notFound(res, 'schedule');
    if ((m = /^\/v2\/schedules\/([^/]+)\/on-calls$/.exec(path))) {
      const schedule = account.schedules.find((s) => s.id === m![1]);
      if (!schedule) return notFound(res, 'schedule');
      const at = Date.parse(url.searchParams.get('date') ?? new Date().toISOString());
      if (!Number.isFinite(at)) return send(res, 422, { message: 'date is not valid' });
      const participants = opsgenieOnCall(account, schedule.id, at);
      const _parent = { id: schedule.id, name: schedule.name, enabled: schedule.enabled };
      if (url.searchParams.get('flat') === 'true') {
        return send(res, 200, { data: { _parent, onCallRecipients: participants.map((p) => (p.type === 'user' ? p.username : p.name)) } });
      }
      return send(res, 200, { data: { _parent, onCallParticipants: participants.map((p) => ({ id: p.id, name: p.username ?? p.name, type: p.type })) } });
    }
    if (path === '/v2/escalations') return send(res, 200, { data: account.policies });
    if (path === '/v2/integrations') return send(res, 200, { data: account.integrations });
    if (path === '/v2/heartbeats') return send(res, 200, { data: { heartbeats: account.heartbeats } });
    if (path === '/v1/maintenance') {
      const type = url.searchParams.get('type');
      return send(res, 200, { data: type === 'non-expired' ? account.maintenance.filter((x) => x.status !== 'past') : type === 'past' ? account.maintenance.filter((x) => x.status === 'past') : account.maintenance });
    }
    return send(res, 404, { message: 'Resource not found' });
  };
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
