/**
 * `vigil import opsgenie`: Opsgenie's REST API (`Authorization: GenieKey <key>`, answers `{ data, took, requestId }`,
 * lists of users paged with `offset` and `limit` and a `paging.next` link while there are more) read and translated
 * into Vigil's families:
 *
 * | Opsgenie | Vigil |
 * |---|---|
 * | users, /contacts, /notification-rules and their /steps | people.json |
 * | teams and their members (/v2/teams/{id}) | `teams` (member_emails; the escalation the team owns) |
 * | schedules (?expand=rotation): rotations, participants, time restrictions | `schedules` (one layer per rotation, the first rotation on top) |
 * | /v2/schedules/{id}/overrides that have not ended | `schedule_overrides` |
 * | escalations (rules by delay since the alert, notifyType, repeat) | `escalation_policies` |
 * | integrations owned by a team | `alert_routes` (service equals the integration's name) paging that team; REPORT.md: the Vigil URL |
 * | maintenance (/v1/maintenance) | REPORT.md only: a Vigil mute starts when it is made |
 * | heartbeats (/v2/heartbeats) | `heartbeats` (REPORT.md: the ping URL each job calls instead) |
 *
 * A 429 is waited out for `X-RateLimit-Period-In-Sec`, the header Opsgenie's rate-limiting page documents (a
 * Retry-After, should one come, is honoured first). Where Opsgenie says more than Vigil can hold, the nearest
 * translation is written and REPORT.md says what moved.
 */
import { Temporal } from 'temporal-polyfill';
import { Expression, type HclEntry, type HclValue } from '../export/hcl-writer.ts';
import { resourceType } from '../export/export.ts';
import alertRoutes from '../resources/alert_routes.ts';
import escalationPolicies, { MAX_REPEAT, MAX_STEPS } from '../resources/escalation_policies.ts';
import heartbeats from '../resources/heartbeats.ts';
import scheduleOverrides from '../resources/schedule_overrides.ts';
import schedules from '../resources/schedules.ts';
import teams from '../resources/teams.ts';
import { cmp, ImportFailure, Labels, notDocumented, Report, RestSource, retryAfterMs, type FetchOptions, type ImportResult, type Person } from './core.ts';
import { restrictionWindows } from './restrictions.ts';

export const PRODUCT = 'Opsgenie';
type Json = Record<string, any>;

export interface OpsgenieOptions extends FetchOptions {
  url: string;
  token: string;
  /** what counts as now: overrides, rotations and maintenance that ended before it are not carried */
  now: Date;
  /** users asked per page (default 100; Opsgenie answers at most 500) */
  pageSize?: number;
}

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Opsgenie's 429 carries X-RateLimit-Period-In-Sec (its documented header); Retry-After first should it come. */
class OpsgenieApi extends RestSource {
  protected override waitOf(res: Response): number {
    if (res.headers.get('retry-after')) return retryAfterMs(res.headers.get('retry-after'));
    return retryAfterMs(res.headers.get('x-ratelimit-period-in-sec'));
  }
}

/** `data` of an answer as a list of objects, or a stop naming the call. */
function dataList(body: Json, call: string): Json[] {
  const items = body.data;
  if (!Array.isArray(items)) throw new ImportFailure(notDocumented(PRODUCT, call, 'no "data" list'));
  if (items.some((i) => i === null || typeof i !== 'object')) throw new ImportFailure(notDocumented(PRODUCT, call, 'an entry of "data" is not an object'));
  return items as Json[];
}

/** Every object of a paged list: `offset` and `limit`, on while `paging.next` names a next page. */
async function list(api: RestSource, path: string, pageSize: number, query: Record<string, string> = {}): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0; ; ) {
    const body = await api.get(path, { ...query, offset, limit: pageSize });
    const items = dataList(body, `GET ${path}`);
    all.push(...items);
    const next = (body.paging as Json | undefined)?.next;
    if (typeof next !== 'string' || !items.length) return all;
    // the link names api.opsgenie.com: only its offset is taken, the call stays on --url
    const nextOffset = Number(new URL(next, api.base).searchParams.get('offset'));
    if (!Number.isInteger(nextOffset) || nextOffset <= offset) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, 'paging.next has no later offset'));
    offset = nextOffset;
  }
}

async function all(api: RestSource, path: string, query: Record<string, string> = {}): Promise<Json[]> {
  return dataList(await api.get(path, query), `GET ${path}`);
}

function str(item: Json, field: string, call: string): string {
  const v = item[field];
  if (typeof v !== 'string' || v === '') throw new ImportFailure(notDocumented(PRODUCT, call, `${field} is not a string`));
  return v;
}

const ROLE: Record<string, Person['role']> = { owner: 'org_admin', admin: 'org_admin', user: 'member', observer: 'viewer', stakeholder: 'viewer' };

/** An instant as a local date-time in `zone`. */
function localOf(instant: string, zone: string, call: string): string {
  let local: Temporal.PlainDateTime;
  try {
    local = Temporal.Instant.from(instant).toZonedDateTimeISO(zone).toPlainDateTime();
  } catch {
    throw new ImportFailure(notDocumented(PRODUCT, call, 'a date that is not an instant with an offset, or a zone that is not one'));
  }
  const text = local.toString({ smallestUnit: 'second' });
  return text.endsWith(':00') ? text.slice(0, 16) : text;
}

const minuteOf = (h: unknown, m: unknown) => Number(h) * 60 + Number(m);
const two = (n: number) => String(n).padStart(2, '0');

/**
 * An Opsgenie timeRestriction as PagerDuty-shaped restrictions (a start and a duration, daily or weekly), which
 * restrictionWindows cuts into Vigil's windows: an end at or before its start runs past midnight (past the week's
 * end for a weekday restriction).
 */
export function restrictionsOf(tr: Json | null | undefined, call: string): Json[] {
  if (!tr) return [];
  const bad = () => new ImportFailure(notDocumented(PRODUCT, call, `a timeRestriction of type ${String(tr.type)}`));
  const time = (minutes: number) => `${two(Math.floor(minutes / 60))}:${two(minutes % 60)}:00`;
  if (tr.type === 'time-of-day') {
    const r = tr.restriction as Json | undefined;
    if (!r) throw bad();
    const start = minuteOf(r.startHour, r.startMin);
    const end = minuteOf(r.endHour, r.endMin);
    if (![start, end].every((x) => Number.isInteger(x) && x >= 0 && x <= 1440)) throw bad();
    return [{ type: 'daily_restriction', start_time_of_day: time(start), duration_seconds: (((end - start) % 1440 + 1440) % 1440 || 1440) * 60 }];
  }
  if (tr.type === 'weekday-and-time-of-day') {
    if (!Array.isArray(tr.restrictions)) throw bad();
    return (tr.restrictions as Json[]).map((r) => {
      const startDay = DAYS.indexOf(String(r.startDay).toLowerCase());
      const endDay = DAYS.indexOf(String(r.endDay).toLowerCase());
      const start = startDay * 1440 + minuteOf(r.startHour, r.startMin);
      const end = endDay * 1440 + minuteOf(r.endHour, r.endMin);
      if (startDay < 0 || endDay < 0 || !Number.isInteger(start) || !Number.isInteger(end)) throw bad();
      return { type: 'weekly_restriction', start_day_of_week: startDay + 1, start_time_of_day: time(start % 1440), duration_seconds: ((((end - start) % 10080) + 10080) % 10080 || 10080) * 60 };
    });
  }
  throw bad();
}

/** Minutes of the week (local) a rotation's restrictions cover, for telling whether two rotations overlap. */
function coverage(restrictions: Json[]): Uint8Array {
  const covered = new Uint8Array(10080);
  if (!restrictions.length) return covered.fill(1);
  for (const r of restrictions) {
    const [h, m] = String(r.start_time_of_day).split(':').map(Number);
    const minutes = Number(r.duration_seconds) / 60;
    const starts = r.type === 'daily_restriction' ? [0, 1, 2, 3, 4, 5, 6].map((d) => d * 1440 + h! * 60 + m!) : [(Number(r.start_day_of_week) - 1) * 1440 + h! * 60 + m!];
    for (const s of starts) for (let k = 0; k < minutes; k++) covered[(s + k) % 10080] = 1;
  }
  return covered;
}

// ---------------------------------------------------------------------------------------------------- the import

export async function importOpsgenie(options: OpsgenieOptions): Promise<ImportResult> {
  if (!options.token) throw new ImportFailure('no Opsgenie API key: pass --token <key> (an API integration key with read access is enough).');
  const api = new OpsgenieApi(PRODUCT, options.url, { authorization: `GenieKey ${options.token}`, accept: 'application/json' }, options);
  const report = new Report();
  const labels = new Labels();
  const entries: HclEntry[] = [];
  const nowMs = options.now.getTime();
  const ref = (family: string, label: string) => new Expression(`${resourceType(family)}.${label}.id`);
  const block = (family: string, label: string, attributes: Record<string, HclValue>) =>
    entries.push({ sortKey: `${family}\u0000${label}`, block: { type: 'resource', labels: [resourceType(family), label], attributes } });

  // people
  const users = (await list(api, '/v2/users', options.pageSize ?? 100)).sort((a, b) => cmp(String(a.username), String(b.username)));
  const emailOf = new Map<string, string>();
  const people: Person[] = [];
  for (const u of users) {
    const id = str(u, 'id', 'GET /v2/users');
    const email = str(u, 'username', 'GET /v2/users').trim().toLowerCase();
    emailOf.set(id, email);
    const roleName = String(u.role?.name ?? u.role?.id ?? '').toLowerCase();
    const role = ROLE[roleName] ?? 'member';
    const who = `${String(u.fullName ?? email)} <${email}> (${id})`;
    if (!ROLE[roleName]) report.add({ kind: 'user', source: who, outcome: 'approximate', became: `people.json ${email}`, reason: `Opsgenie role ${String(u.role?.name)} has no Vigil equivalent: member` });
    else report.add({ kind: 'user', source: who, outcome: 'carried', became: `people.json ${email} (${role})` });
    const contactsCall = `GET /v2/users/${id}/contacts`;
    const methods: Person['contact_methods'] = [];
    const keys = new Map<string, string>();
    for (const c of (await all(api, `/v2/users/${id}/contacts`)).sort((a, b) => cmp(String(a.method), String(b.method)) || cmp(String(a.to), String(b.to)))) {
      const method = str(c, 'method', contactsCall);
      const to = str(c, 'to', contactsCall);
      const what = `${email}: ${method} ${to} (${String(c.id)})`;
      const type = method === 'email' ? 'email' : method === 'sms' ? 'sms' : method === 'voice' ? 'voice' : null;
      if (!type) {
        report.add({ kind: 'contact method', source: what, outcome: 'not carried', became: '', reason: `${method}: Vigil has no mobile app; add an ntfy or Pushover method instead` });
        continue;
      }
      // Opsgenie writes phone numbers as <country code>-<number>
      const address = type === 'email' ? to : `+${to.replace(/\D/g, '')}`;
      const key = `${type}-${methods.filter((x) => x.type === type).length + 1}`;
      keys.set(`${method}\u0000${to}`, key);
      methods.push({ key, type, name: type === 'email' ? 'Email' : 'Phone', address });
      const disabled = c.status?.enabled === false;
      report.add({
        kind: 'contact method', source: what, outcome: disabled ? 'approximate' : 'carried', became: `people.json ${email} ${key} (unverified until ${email} confirms it)`,
        reason: disabled ? 'disabled in Opsgenie; Vigil has no disabled method, it waits unverified like the others' : undefined,
      });
    }
    const rules: Person['notification_rules'] = [];
    const rulesCall = `GET /v2/users/${id}/notification-rules`;
    for (const r of (await all(api, `/v2/users/${id}/notification-rules`)).sort((a, b) => cmp(String(a.actionType), String(b.actionType)) || Number(a.order) - Number(b.order) || cmp(String(a.id), String(b.id)))) {
      const ruleId = str(r, 'id', rulesCall);
      const what = `${email}: ${String(r.name ?? r.actionType)} (${ruleId})`;
      if (r.actionType !== 'create-alert') {
        report.add({ kind: 'notification rule', source: what, outcome: 'not carried', became: '', reason: `${String(r.actionType)}: Vigil's notification rules say how a page reaches someone; other notices are per-method settings` });
        continue;
      }
      if (r.enabled === false) {
        report.add({ kind: 'notification rule', source: what, outcome: 'not carried', became: '', reason: 'disabled in Opsgenie' });
        continue;
      }
      const steps = await all(api, `/v2/users/${id}/notification-rules/${ruleId}/steps`);
      const notes: string[] = [];
      if (r.criteria && r.criteria.type && r.criteria.type !== 'match-all') notes.push(`its criteria (${String(r.criteria.type)}) are not carried: it applies to every page`);
      if (Array.isArray(r.timeRestriction?.restrictions) || r.timeRestriction?.restriction) notes.push('its time restriction is not carried');
      const became: string[] = [];
      for (const s of steps) {
        const key = keys.get(`${String(s.contact?.method)}\u0000${String(s.contact?.to)}`);
        if (!key || s.enabled === false) {
          notes.push(`a step to ${String(s.contact?.method)} ${String(s.contact?.to)} is left out (${key ? 'disabled' : 'its contact method is not carried'})`);
          continue;
        }
        const amount = Number(s.sendAfter?.timeAmount ?? 0);
        const delay = Math.min(1440, Math.max(0, Math.round(s.sendAfter?.timeUnit === 'hours' ? amount * 60 : amount)));
        for (const urgency of ['high', 'low'] as const) rules.push({ contact_method: key, delay_minutes: delay, urgency });
        became.push(`${key} after ${delay} min`);
      }
      report.add({
        kind: 'notification rule', source: what, outcome: became.length ? (notes.length ? 'approximate' : 'carried') : 'not carried',
        became: became.length ? `people.json ${email} ${became.join(', ')} (high and low urgency)` : '', reason: notes.join('; ') || (became.length ? undefined : 'no step is carried'),
      });
    }
    rules.sort((a, b) => cmp(a.urgency, b.urgency) || a.delay_minutes - b.delay_minutes || cmp(a.contact_method, b.contact_method));
    const unique = rules.filter((r, i) => rules.findIndex((x) => x.urgency === r.urgency && x.delay_minutes === r.delay_minutes && x.contact_method === r.contact_method) === i);
    people.push({ email, name: String(u.fullName ?? ''), role, contact_methods: methods, notification_rules: unique });
  }
  people.sort((a, b) => cmp(a.email, b.email));
  const member = (id: unknown, where: string): string | undefined => {
    const email = emailOf.get(String(id));
    if (!email) report.add({ kind: 'reference', source: where, outcome: 'not carried', became: '', reason: `user ${String(id)} is not in GET /v2/users` });
    return email;
  };

  const byName = (a: Json, b: Json) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id));
  const teamList = (await all(api, '/v2/teams')).sort(byName);
  const scheduleList = (await all(api, '/v2/schedules', { expand: 'rotation' })).sort(byName);
  const policies = (await all(api, '/v2/escalations')).sort(byName);
  const integrations = (await all(api, '/v2/integrations')).sort(byName);
  for (const [items, call] of [[teamList, 'GET /v2/teams'], [scheduleList, 'GET /v2/schedules'], [policies, 'GET /v2/escalations'], [integrations, 'GET /v2/integrations']] as const) {
    for (const item of items) (str(item, 'id', call), str(item, 'name', call));
  }
  // Opsgenie names are unique per kind; Vigil's are at most 100 characters
  const nameOf = (item: Json) => String(item.name).slice(0, 100);
  const teamLabel = new Map(teamList.map((t) => [String(t.id), labels.take(teams.name, nameOf(t))]));
  const scheduleLabel = new Map(scheduleList.map((s) => [String(s.id), labels.take(schedules.name, nameOf(s))]));
  const policyLabel = new Map(policies.map((p) => [String(p.id), labels.take(escalationPolicies.name, nameOf(p))]));

  // team members (one GET per team)
  const teamMembers = new Map<string, { email: string; role: string }[]>();
  for (const t of teamList) {
    const id = String(t.id);
    const body = await api.get(`/v2/teams/${id}`);
    const data = body.data as Json | undefined;
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ImportFailure(notDocumented(PRODUCT, `GET /v2/teams/${id}`, 'no "data" object'));
    const members = ((Array.isArray(data.members) ? data.members : []) as Json[])
      .map((m) => ({ email: member(m.user?.id, `team ${String(t.name)} (${id})`), role: String(m.role ?? 'user') }))
      .filter((m): m is { email: string; role: string } => !!m.email);
    teamMembers.set(id, members);
  }

  // the policy each team pages through: the escalation it owns (the first by name)
  const policyOfTeam = new Map<string, string>();
  for (const p of policies) {
    const owner = String(p.ownerTeam?.id ?? '');
    if (teamLabel.has(owner) && !policyOfTeam.has(owner)) policyOfTeam.set(owner, String(p.id));
  }

  // what names what, for the cycles one apply cannot create (team → its policy → a schedule or team → ...)
  const edges = new Map<string, Set<string>>();
  const edge = (from: string, to: string) => (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
  const reaches = (from: string, target: string, seen = new Set<string>()): boolean => {
    if (from === target) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return [...(edges.get(from) ?? [])].some((n) => reaches(n, target, seen));
  };
  for (const [team, policy] of policyOfTeam) edge(`team:${team}`, `policy:${policy}`);

  // the people of each schedule's rotations (an escalation rule may notify all of them)
  const scheduleUsers = new Map(scheduleList.map((s) => [String(s.id), [...new Set(((Array.isArray(s.rotations) ? s.rotations : []) as Json[])
    .filter((r) => !(r.endDate && Date.parse(String(r.endDate)) <= nowMs))
    .flatMap((r) => ((Array.isArray(r.participants) ? r.participants : []) as Json[]).filter((p) => p.type === 'user').flatMap((p) => emailOf.get(String(p.id)) ?? []))
  )].sort(cmp)]));

  // escalation policies
  for (const p of policies) {
    const id = String(p.id);
    const name = `${String(p.name)} (${id})`;
    const call = 'GET /v2/escalations';
    if (!Array.isArray(p.rules) || !p.rules.length) throw new ImportFailure(notDocumented(PRODUCT, call, `escalation ${id} has no rules`));
    const notes: string[] = [];
    const rules = (p.rules as Json[]).map((r, i) => {
      const amount = Number(r.delay?.timeAmount ?? 0);
      if (!Number.isFinite(amount) || amount < 0) throw new ImportFailure(notDocumented(PRODUCT, call, `escalation ${id} rule ${i + 1} has no delay.timeAmount`));
      return { r, i, delay: Math.round(r.delay?.timeUnit === 'hours' ? amount * 60 : r.delay?.timeUnit === 'days' ? amount * 1440 : amount) };
    }).sort((a, b) => a.delay - b.delay || a.i - b.i);
    const conditions = new Set(rules.map((x) => String(x.r.condition ?? 'if-not-acked')));
    if (conditions.has('if-not-closed')) notes.push('a rule escalates if the alert is not closed: Vigil escalates while nobody acknowledges, so an acknowledged alert stops there');
    // rules at one delay notify together: one step
    const groups: { delay: number; targets: HclValue[] }[] = [];
    for (const { r, i, delay } of rules) {
      const where = `rule ${i + 1}`;
      let group = groups.at(-1);
      if (!group || group.delay !== delay) groups.push((group = { delay, targets: [] }));
      const recipient = (r.recipient ?? {}) as Json;
      const notify = String(r.notifyType ?? 'default');
      const rid = String(recipient.id ?? '');
      if (recipient.type === 'user') {
        const email = member(rid, `${name} ${where}`);
        if (email) group.targets.push({ email });
      } else if (recipient.type === 'schedule') {
        const s = scheduleLabel.get(rid);
        if (!s) {
          notes.push(`${where} names schedule ${rid}, which GET /v2/schedules did not list`);
          continue;
        }
        if (notify === 'all') {
          const emails = scheduleUsers.get(rid) ?? [];
          for (const email of emails) group.targets.push({ email });
          notes.push(`${where} notifies everyone in schedule ${String(recipient.name ?? rid)}: its ${emails.length} participants of today are named instead`);
        } else {
          group.targets.push({ schedule_id: ref(schedules.name, s) });
          edge(`policy:${id}`, `schedule:${rid}`);
          if (notify === 'next' || notify === 'previous') notes.push(`${where} notifies the ${notify} on-call of schedule ${String(recipient.name ?? rid)}: Vigil notifies whoever is on call now`);
          else if (notify !== 'default') notes.push(`${where}: notifyType ${notify} of a schedule is read as its on-call`);
        }
      } else if (recipient.type === 'team') {
        const team = teamLabel.get(rid);
        if (!team) {
          notes.push(`${where} names team ${rid}, which GET /v2/teams did not list`);
          continue;
        }
        const members = teamMembers.get(rid) ?? [];
        if (notify === 'admins') {
          const admins = members.filter((m) => m.role === 'admin').map((m) => m.email);
          for (const email of admins) group.targets.push({ email });
          notes.push(`${where} notifies the admins of team ${String(recipient.name ?? rid)}: the ${admins.length} admin(s) of today are named`);
        } else if (reaches(`team:${rid}`, `policy:${id}`)) {
          for (const m of members) group.targets.push({ email: m.email });
          notes.push(`${where} notifies team ${String(recipient.name ?? rid)}, whose escalation leads back here: one apply cannot create rows naming each other, so its members of today are named`);
        } else {
          group.targets.push({ team_id: ref(teams.name, team) });
          edge(`policy:${id}`, `team:${rid}`);
          if (notify !== 'users') notes.push(`${where} notifies team ${String(recipient.name ?? rid)} through its own routing (notifyType ${notify}): Vigil notifies every member of the team`);
        }
      } else notes.push(`${where}: a recipient of type ${String(recipient.type)} is not carried`);
    }
    if (groups[0]!.delay > 0) notes.push(`the first rule waits ${groups[0]!.delay} min after the alert: Vigil's first step starts at once, the later ones keep their spacing`);
    if (groups.length > MAX_STEPS) notes.push(`${groups.length} delays: Vigil holds ${MAX_STEPS} steps; the rest are left out`);
    const steps = groups.slice(0, MAX_STEPS).map((g, k) => ({ delay_minutes: k === 0 ? 0 : Math.min(1440, g.delay - groups[k - 1]!.delay), targets: dedupe(g.targets).slice(0, 20) }));
    const count = Math.max(0, Math.round(Number(p.repeat?.count ?? 0) || 0));
    const repeat = Math.min(MAX_REPEAT, count);
    if (count > MAX_REPEAT) notes.push(`repeats ${count} times; Vigil repeats at most ${MAX_REPEAT}`);
    const wait = Math.round(Number(p.repeat?.waitInterval ?? 0) || 0);
    const lastStepDelay = steps.length > 1 ? steps.at(-1)!.delay_minutes : 0;
    if (repeat > 0 && wait !== lastStepDelay) notes.push(`Opsgenie waits ${wait} min before repeating; Vigil waits as long as its last step did (${lastStepDelay} min)`);
    if (repeat > 0 && p.repeat?.closeAlertAfterAll) notes.push('Opsgenie closes the alert after the last repeat; Vigil leaves it open');
    const label = policyLabel.get(id)!;
    const attributes: Record<string, HclValue> = { name: nameOf(p), steps: steps as HclValue, repeat };
    if (p.description) attributes.description = String(p.description).slice(0, 1000);
    block(escalationPolicies.name, label, attributes);
    report.add({ kind: 'escalation policy', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(escalationPolicies.name)}.${label}`, reason: notes.join('; ') || undefined });
  }

  // teams
  for (const t of teamList) {
    const id = String(t.id);
    const members = teamMembers.get(id)!;
    const attributes: Record<string, HclValue> = { name: nameOf(t), member_emails: [...new Set(members.map((m) => m.email))].sort(cmp) };
    if (t.description) attributes.description = String(t.description).slice(0, 255);
    const policy = policyOfTeam.get(id);
    if (policy) attributes.escalation_policy_id = ref(escalationPolicies.name, policyLabel.get(policy)!);
    block(teams.name, teamLabel.get(id)!, attributes);
    const admins = members.filter((m) => m.role !== 'user').length;
    const notes = [...(admins ? [`${admins} member(s) with the team role admin: Vigil teams have members only; each person's organization role is in people.json`] : []), ...(policy ? [] : ['it owns no escalation: its routes page nobody until one is set'])];
    report.add({ kind: 'team', source: `${String(t.name)} (${id})`, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(teams.name)}.${teamLabel.get(id)}`, reason: notes.join('; ') || undefined });
  }

  // schedules: one layer per rotation, the first rotation on top
  const overrideRows: { email: string; start: string; end: string; schedule: string; source: string; some: boolean }[] = [];
  for (const s of scheduleList) {
    const id = String(s.id);
    const call = 'GET /v2/schedules';
    const zone = str(s, 'timezone', call);
    const label = scheduleLabel.get(id)!;
    const name = `${String(s.name)} (${id})`;
    const notes: string[] = [];
    if (!Array.isArray(s.rotations)) throw new ImportFailure(notDocumented(PRODUCT, call, `schedule ${id} has no rotations list (expand=rotation)`));
    if (s.enabled === false) notes.push('disabled in Opsgenie; Vigil schedules have no off switch: leave it out of every policy until you want it');
    const layers: (Json & { cover: Uint8Array; start: number; end: number })[] = [];
    for (const r of s.rotations as Json[]) {
      const rotationName = String(r.name || `Rotation ${layers.length + 1}`).slice(0, 100);
      const end = r.endDate ? Date.parse(String(r.endDate)) : Infinity;
      if (end <= nowMs) {
        notes.push(`rotation "${rotationName}" ended before the import and is left out`);
        continue;
      }
      const participants: string[] = [];
      for (const p of (Array.isArray(r.participants) ? r.participants : []) as Json[]) {
        if (p.type === 'user') {
          const email = member(p.id, `${name} rotation "${rotationName}"`);
          if (email) participants.push(email);
        } else if (p.type === 'none') notes.push(`rotation "${rotationName}" has a turn with no one (participant none): Vigil rotates people only, so that turn is left out and the turns after it move`);
        else notes.push(`rotation "${rotationName}": a participant of type ${String(p.type)} (${String(p.name ?? p.id ?? '')}) is left out: Vigil rotates people, not ${p.type === 'team' ? 'teams' : 'escalations'}, and the turns after it move`);
      }
      const unique = participants.filter((e, i) => participants.indexOf(e) === i);
      if (unique.length !== participants.length) notes.push(`rotation "${rotationName}" lists a person more than once; Vigil rotates each person once per cycle`);
      if (!unique.length) {
        notes.push(`rotation "${rotationName}" has no one and is left out`);
        continue;
      }
      const length = Number(r.length ?? 1);
      const unit = r.type === 'hourly' ? 'hourly' : r.type === 'daily' ? 'daily' : r.type === 'weekly' ? 'weekly' : null;
      if (!unit || !Number.isInteger(length) || length < 1) throw new ImportFailure(notDocumented(PRODUCT, call, `rotation ${String(r.id)} of type ${String(r.type)} and length ${String(r.length)}`));
      const restrictions = restrictionsOf(r.timeRestriction, call);
      const { windows } = restrictionWindows(PRODUCT, restrictions, call);
      if (windows && windows.length > 20) throw new ImportFailure(`schedule ${name} rotation "${rotationName}" has time restrictions Vigil cannot hold in 20 windows.`);
      const start = str(r, 'startDate', call);
      const layer: Json = { name: rotationName, participants: unique, rotation: { unit, length: Math.min(1000, length) }, handoff: localOf(start, zone, call) };
      if (length > 1000) notes.push(`rotation "${rotationName}": ${length} ${unit} turns; Vigil's are at most 1000 long`);
      if (r.endDate) layer.ends = localOf(String(r.endDate), zone, call);
      if (windows) layer.restrictions = windows;
      layers.push(Object.assign(layer, { cover: coverage(restrictions), start: Date.parse(start), end }));
    }
    // Opsgenie has everyone of every rotation on call at once; Vigil one person, from the top layer that has someone
    for (let a = 0; a < layers.length; a++) {
      for (let b = a + 1; b < layers.length; b++) {
        const [x, y] = [layers[a]!, layers[b]!];
        if (x.start < y.end && y.start < x.end && x.cover.some((c, k) => c && y.cover[k])) {
          notes.push(`rotations "${String(x.name)}" and "${String(y.name)}" can both have someone on call at once: Opsgenie notifies both, Vigil the upper layer's ("${String(x.name)}")`);
        }
      }
    }
    if (layers.length > 10) {
      notes.push(`${layers.length} rotations: Vigil holds 10 layers; the ${layers.length - 10} last are left out`);
      layers.splice(10);
    }
    const owner = String(s.ownerTeam?.id ?? '');
    let team = teamLabel.get(owner);
    if (team) {
      if (reaches(`team:${owner}`, `schedule:${id}`)) {
        report.add({
          kind: 'schedule owner', source: `${name}: team ${String(s.ownerTeam?.name ?? owner)}`, outcome: 'not carried', became: '',
          reason: `its team pages through an escalation that pages this schedule: one apply cannot create the three rows naming each other; set team_id on ${resourceType(schedules.name)}.${label} after the apply if you want it`,
        });
        team = undefined;
      } else edge(`schedule:${id}`, `team:${owner}`);
    }
    const attributes: Record<string, HclValue> = {
      name: nameOf(s), time_zone: zone,
      layers: [...layers].reverse().map(({ cover: _c, start: _s, end: _e, ...l }) => l) as HclValue,
    };
    if (s.description) attributes.description = String(s.description).slice(0, 1000);
    if (team) attributes.team_id = ref(teams.name, team);
    block(schedules.name, label, attributes);
    report.add({ kind: 'schedule', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(schedules.name)}.${label}`, reason: [...new Set(notes)].join('; ') || undefined });

    // overrides that have not ended
    const overridesCall = `GET /v2/schedules/${id}/overrides`;
    for (const o of (await all(api, `/v2/schedules/${id}/overrides`)).sort((a, b) => cmp(String(a.startDate), String(b.startDate)) || cmp(String(a.alias), String(b.alias)))) {
      const what = `${String(s.name)}: ${String(o.startDate)} → ${String(o.endDate)} (${String(o.alias)})`;
      const startMs = Date.parse(str(o, 'startDate', overridesCall));
      const endMs = Date.parse(str(o, 'endDate', overridesCall));
      if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) throw new ImportFailure(notDocumented(PRODUCT, overridesCall, 'startDate or endDate is not an instant'));
      if (endMs <= nowMs) {
        report.add({ kind: 'override', source: what, outcome: 'not carried', became: '', reason: 'it ended before the import' });
        continue;
      }
      if (o.user?.type !== 'user') {
        report.add({ kind: 'override', source: what, outcome: 'not carried', became: '', reason: `it puts a ${String(o.user?.type)} on call: a Vigil override names a person` });
        continue;
      }
      const email = member(o.user?.id, `${name} override ${String(o.alias)}`);
      if (!email) continue;
      const some = Array.isArray(o.rotations) && o.rotations.length > 0 && o.rotations.length < (s.rotations as Json[]).length;
      overrideRows.push({ email, start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(), schedule: label, source: what, some });
    }
  }
  // an override has no natural key: `vigil plan` matches it by label, which the export gives by email, then start
  overrideRows.sort((a, b) => cmp(a.email, b.email) || cmp(a.start, b.start) || cmp(a.schedule, b.schedule) || cmp(a.end, b.end));
  for (const o of overrideRows) {
    const overrideLabel = labels.take(scheduleOverrides.name, o.email);
    block(scheduleOverrides.name, overrideLabel, { schedule_id: ref(schedules.name, o.schedule), email: o.email, start: o.start, end: o.end });
    report.add({
      kind: 'override', source: o.source, outcome: o.some ? 'approximate' : 'carried', became: `${resourceType(scheduleOverrides.name)}.${overrideLabel}`,
      reason: o.some ? 'it overrides some of the schedule\'s rotations: a Vigil override puts its person on call for the whole schedule' : undefined,
    });
  }

  // integrations: a route per team-owned integration, and where its sender points now
  for (const i of integrations) {
    const id = String(i.id);
    const what = `${String(i.name)} (${String(i.type)}, ${id})`;
    const sender = senderFor(String(i.type), String(i.name));
    const team = teamLabel.get(String(i.teamId ?? i.ownerTeam?.id ?? ''));
    if (!sender) {
      report.add({ kind: 'integration', source: what, outcome: 'not carried', became: '', reason: `type ${String(i.type)}: Vigil takes no alerts this way` });
      continue;
    }
    report.senders.push({ source: what, sender: String(i.type), url: sender.url, note: sender.note });
    if (!team) {
      report.add({ kind: 'integration', source: what, outcome: 'approximate', became: sender.url, reason: 'it belongs to no team: no route is made; alerts from it page whoever the organization\'s default route names' });
      continue;
    }
    const routeLabel = labels.take(alertRoutes.name, nameOf(i));
    block(alertRoutes.name, routeLabel, {
      name: nameOf(i),
      matchers: [{ field: 'service', operator: 'equals', value: String(i.name).slice(0, 200) }],
      team_id: ref(teams.name, team),
      enabled: i.enabled !== false,
    });
    report.add({ kind: 'integration', source: what, outcome: 'carried', became: `${resourceType(alertRoutes.name)}.${routeLabel} (alerts whose service is "${String(i.name)}") and ${sender.url}` });
  }

  // maintenance: Vigil mutes start when they are made
  const maintenance = await all(api, '/v1/maintenance', { type: 'non-expired' });
  for (const m of maintenance.sort((a, b) => cmp(String(a.time?.startDate), String(b.time?.startDate)) || cmp(String(a.id), String(b.id)))) {
    const end = Date.parse(String(m.time?.endDate ?? ''));
    const what = `${String(m.description ?? m.id)} (${String(m.id)}) ${String(m.time?.startDate ?? '')} → ${String(m.time?.endDate ?? 'indefinitely')}`;
    if (Number.isFinite(end) && end <= nowMs) {
      report.add({ kind: 'maintenance', source: what, outcome: 'not carried', became: '', reason: 'it ended before the import' });
      continue;
    }
    const rules = [...new Set(((Array.isArray(m.rules) ? m.rules : []) as Json[]).map((r) => `an Opsgenie ${String(r.entity?.type ?? 'entity')}`))].join(' or ');
    report.add({
      kind: 'maintenance', source: what, outcome: 'not carried', became: '',
      reason: `a Vigil mute starts when it is made and matches text, not ${rules || 'an Opsgenie integration or policy'}: at ${String(m.time?.startDate ?? 'its start')} mute the alerts it covers (alert_mutes, duration_minutes) for the window`,
    });
  }

  // heartbeats: Vigil's own, one ping URL each; Opsgenie expires one exactly at its interval (no grace)
  const heartbeatBody = await api.get('/v2/heartbeats', {});
  const heartbeatList = (heartbeatBody.data as Json | undefined)?.heartbeats;
  if (!Array.isArray(heartbeatList) || heartbeatList.some((h) => h === null || typeof h !== 'object')) throw new ImportFailure(notDocumented(PRODUCT, 'GET /v2/heartbeats', 'no "data.heartbeats" list'));
  for (const h of (heartbeatList as Json[]).sort((a, b) => cmp(String(a.name), String(b.name)))) {
    const source = str(h, 'name', 'GET /v2/heartbeats');
    const what = `${source} (heartbeat)`;
    if (h.enabled === false) {
      report.add({ kind: 'heartbeat', source: what, outcome: 'not carried', became: '', reason: 'it is disabled in Opsgenie' });
      continue;
    }
    const unit = ({ minutes: 60, hours: 3600, days: 86_400 } as Record<string, number>)[String(h.intervalUnit)];
    if (!unit || !Number.isInteger(h.interval)) throw new ImportFailure(notDocumented(PRODUCT, 'GET /v2/heartbeats', `heartbeat "${source}" has no interval in minutes, hours or days`));
    const seconds = Number(h.interval) * unit;
    const interval = Math.min(2_678_400, Math.max(30, seconds));
    // a ping URL's last segment: letters, digits, '.', '_', '-'
    const name = source.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100) || 'heartbeat';
    const notes = [
      ...(name !== source ? [`named "${name}": a Vigil heartbeat's name is the last segment of its ping URL`] : []),
      ...(interval !== seconds ? [`an interval of ${seconds} s is held as ${interval} s (Vigil: 30 s to 31 days)`] : []),
    ];
    const severity = ({ P1: 'critical', P2: 'high', P3: 'warning', P4: 'info', P5: 'info' } as Record<string, string>)[String(h.alertPriority ?? 'P3')] ?? 'warning';
    const label = labels.take(heartbeats.name, name);
    block(heartbeats.name, label, { name, interval_seconds: interval, grace_seconds: 0, severity });
    report.senders.push({ source: what, sender: 'heartbeat ping', url: `<vigil>/webhooks/heartbeat/<token>/${name}`, note: `the job's ping to Opsgenie's /v2/heartbeats/${source}/ping goes here instead (GET or POST)` });
    report.add({ kind: 'heartbeat', source: what, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(heartbeats.name)}.${label}`, reason: notes.join('; ') || undefined });
  }

  const header = [
    `Written by \`vigil import opsgenie\` from ${api.base} (${users.length} users, ${teamList.length} teams, ${scheduleList.length} schedules, ${policies.length} escalations, ${integrations.length} integrations).`,
    'Create the people first: `vigil users import people.json --org <org-id>`; then `vigil plan vigil.tf` and `vigil apply vigil.tf`.',
    'REPORT.md says what each Opsgenie object became and what was not carried.',
  ];
  return { hcl: { header, entries }, people: { source: 'opsgenie', people }, report };
}

/** Targets listed once, in their first order. */
function dedupe(targets: HclValue[]): HclValue[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const key = JSON.stringify(t);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** Where an Opsgenie integration's sender points in Vigil, by the integration's type. */
function senderFor(type: string, name: string): { url: string; note: string } | null {
  const t = type.toLowerCase();
  if (t.includes('datadog')) return { url: '<vigil>/webhooks/monitoring-a/<token>', note: `Datadog webhook; tag the monitors service:${name}` };
  if (t.includes('newrelic') || t.includes('new relic')) return { url: '<vigil>/webhooks/monitoring-b/<token>', note: `New Relic webhook; tag the policy service:${name}` };
  if (t.includes('cloudwatch')) return { url: '<vigil>/webhooks/cloud-alarms/<token>', note: 'subscribe the SNS topic to this URL (HTTPS)' };
  if (t.includes('grafana')) return { url: '<vigil>/webhooks/metric-dashboard/<token>', note: `Grafana webhook contact point; label service=${name}` };
  if (t.includes('prometheus') || t.includes('alertmanager')) return { url: '<vigil>/v2/enqueue', note: `Alertmanager pagerduty_configs: url <vigil>/v2/enqueue, routing_key <token>; component "${name}"` };
  if (t === 'api' || t === 'webhook' || t.includes('rest')) return { url: '<vigil>/v2/enqueue', note: `Events API v2 (PagerDuty's format, not Opsgenie's alert API): routing_key <token>; payload.component "${name}"` };
  return null;
}
