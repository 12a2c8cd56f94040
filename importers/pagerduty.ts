/**
 * `vigil import pagerduty`: PagerDuty's REST API v2 (`Authorization: Token token=…`, `Accept:
 * application/vnd.pagerduty+json;version=2`, classic pagination: `offset`, `limit`, and `more` in each answer) read
 * and translated into Vigil's families:
 *
 * | PagerDuty | Vigil |
 * |---|---|
 * | users (their role, contact methods, notification rules) | people.json (users, memberships, contact methods, notification rules) |
 * | teams and their members | `teams` (member_emails; the team's escalation policy) |
 * | schedules, layers (top layer first in the API), restrictions | `schedules` (layers bottom first) |
 * | overrides that have not ended | `schedule_overrides` |
 * | escalation policies (rules, delays, loops) | `escalation_policies` |
 * | services → their escalation policy | `alert_routes` (service equals the service's name) paging a team with that policy |
 * | integrations | REPORT.md: the Vigil URL each sender points at instead |
 * | maintenance windows | REPORT.md only: a Vigil mute starts when it is made |
 *
 * Where PagerDuty says more than Vigil can hold, the nearest translation is written and REPORT.md says what moved.
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

export const PRODUCT = 'PagerDuty';
type Json = Record<string, any>;

export interface PagerDutyOptions extends FetchOptions {
  url: string;
  token: string;
  /** what counts as now: overrides and maintenance windows that ended before it are not carried */
  now: Date;
}

const PAGE = 100;

/** Every object of a classic-paginated list (`offset`, `limit`, `more`). */
async function list(api: RestSource, path: string, key: string, query: Record<string, string | readonly string[]> = {}): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0; ; ) {
    const body = await api.get(path, { ...query, offset, limit: PAGE });
    const items = body[key];
    if (!Array.isArray(items)) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, `no "${key}" list`));
    if (items.some((i) => i === null || typeof i !== 'object')) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, `an entry of "${key}" is not an object`));
    all.push(...(items as Json[]));
    if (body.more !== true || items.length === 0) return all;
    offset += items.length;
  }
}

async function one(api: RestSource, path: string, key: string, query: Record<string, string | readonly string[]> = {}): Promise<Json> {
  const body = await api.get(path, query);
  const item = body[key];
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new ImportFailure(notDocumented(PRODUCT, `GET ${path}`, `no "${key}" object`));
  return item as Json;
}

/** A required string member, or a stop naming the call. */
function str(item: Json, field: string, call: string): string {
  const v = item[field];
  if (typeof v !== 'string' || v === '') throw new ImportFailure(notDocumented(PRODUCT, call, `${field} is not a string`));
  return v;
}

const ROLE: Record<string, Person['role']> = {
  owner: 'org_admin', admin: 'org_admin',
  user: 'member', limited_user: 'member',
  observer: 'viewer', read_only_user: 'viewer', read_only_limited_user: 'viewer', restricted_access: 'viewer',
};

// ---------------------------------------------------------------------------------------------------- schedules

/** A turn length in seconds as a rotation; null when it is not a whole number of hours (rounded then). */
export function rotationOf(seconds: number): { rotation: { unit: 'hourly' | 'daily' | 'weekly'; length: number }; exact: boolean } {
  const hours = Math.max(1, Math.round(seconds / 3600));
  const exact = hours * 3600 === seconds;
  if (hours % 168 === 0) return { rotation: { unit: 'weekly', length: hours / 168 }, exact };
  if (hours % 24 === 0) return { rotation: { unit: 'daily', length: hours / 24 }, exact };
  return { rotation: { unit: 'hourly', length: Math.min(1000, hours) }, exact: exact && hours <= 1000 };
}

/** An instant as a local date-time in `zone`, to the second when it has seconds. */
function localOf(instant: string, zone: string, call: string): string {
  let local: Temporal.PlainDateTime;
  try {
    local = Temporal.Instant.from(instant).toZonedDateTimeISO(zone).toPlainDateTime();
  } catch {
    throw new ImportFailure(notDocumented(PRODUCT, call, `a time that is not an instant with an offset`));
  }
  const text = local.toString({ smallestUnit: 'second' });
  return text.endsWith(':00') ? text.slice(0, 16) : text;
}

// ---------------------------------------------------------------------------------------------------- the import

/** Reads the account and translates it; throws an ImportFailure (one sentence) on the first refusal. */
export async function importPagerDuty(options: PagerDutyOptions): Promise<ImportResult> {
  if (!options.token) throw new ImportFailure('no PagerDuty API key: pass --token <key> (a REST API key, read-only is enough).');
  const api = new RestSource(PRODUCT, options.url, {
    authorization: `Token token=${options.token}`,
    accept: 'application/vnd.pagerduty+json;version=2',
  }, options);
  const report = new Report();
  const labels = new Labels();
  const entries: HclEntry[] = [];
  const nowMs = options.now.getTime();

  // people
  const users = await list(api, '/users', 'users', { 'include[]': ['contact_methods', 'notification_rules'] });
  const emailOf = new Map<string, string>();
  const people: Person[] = [];
  for (const u of users) {
    const email = str(u, 'email', 'GET /users').trim().toLowerCase();
    const id = str(u, 'id', 'GET /users');
    emailOf.set(id, email);
    const role = ROLE[String(u.role)] ?? 'member';
    const who = `${String(u.name ?? email)} <${email}> (${id})`;
    if (!ROLE[String(u.role)]) report.add({ kind: 'user', source: who, outcome: 'approximate', became: `people.json ${email}`, reason: `PagerDuty role ${String(u.role)} has no Vigil equivalent: member` });
    else report.add({ kind: 'user', source: who, outcome: 'carried', became: `people.json ${email} (${role})` });
    const methods: Person['contact_methods'] = [];
    const keys = new Map<string, string>();
    for (const m of (Array.isArray(u.contact_methods) ? u.contact_methods : []) as Json[]) {
      const what = `${email}: ${String(m.label ?? m.type)} (${String(m.id)})`;
      const type = m.type === 'email_contact_method' ? 'email' : m.type === 'sms_contact_method' ? 'sms' : m.type === 'phone_contact_method' ? 'voice' : null;
      if (!type) {
        report.add({ kind: 'contact method', source: what, outcome: 'not carried', became: '', reason: `${String(m.type)}: Vigil has no mobile app; add an ntfy or Pushover method instead` });
        continue;
      }
      const address = type === 'email' ? String(m.address) : `+${String(m.country_code ?? '')}${String(m.address).replace(/\D/g, '')}`;
      const key = `${type}-${methods.filter((x) => x.type === type).length + 1}`;
      keys.set(String(m.id), key);
      methods.push({ key, type, name: String(m.label || type).slice(0, 100), address });
      report.add({ kind: 'contact method', source: what, outcome: 'carried', became: `people.json ${email} ${key} (unverified until ${email} confirms it)` });
    }
    const rules: Person['notification_rules'] = [];
    for (const r of (Array.isArray(u.notification_rules) ? u.notification_rules : []) as Json[]) {
      const what = `${email}: after ${String(r.start_delay_in_minutes)} min, ${String(r.urgency)} (${String(r.id)})`;
      const key = keys.get(String(r.contact_method?.id));
      if (!key) {
        report.add({ kind: 'notification rule', source: what, outcome: 'not carried', became: '', reason: 'its contact method is not carried' });
        continue;
      }
      const delay = Math.min(1440, Math.max(0, Math.round(Number(r.start_delay_in_minutes) || 0)));
      const urgencies = r.urgency === 'any' ? (['high', 'low'] as const) : r.urgency === 'low' ? (['low'] as const) : (['high'] as const);
      for (const urgency of urgencies) rules.push({ contact_method: key, delay_minutes: delay, urgency });
      report.add({ kind: 'notification rule', source: what, outcome: 'carried', became: `people.json ${email} ${key} ${urgencies.join('+')} after ${delay} min` });
    }
    rules.sort((a, b) => cmp(a.urgency, b.urgency) || a.delay_minutes - b.delay_minutes || cmp(a.contact_method, b.contact_method));
    people.push({ email, name: String(u.name ?? ''), role, contact_methods: methods, notification_rules: rules });
  }
  people.sort((a, b) => cmp(a.email, b.email));
  const member = (id: unknown, where: string): string | undefined => {
    const email = emailOf.get(String(id));
    if (!email) report.add({ kind: 'reference', source: where, outcome: 'not carried', became: '', reason: `user ${String(id)} is not in GET /users` });
    return email;
  };

  // escalation policies (read before teams: a team takes the policy its services use)
  const policies = (await list(api, '/escalation_policies', 'escalation_policies')).sort((a, b) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id)));
  // schedules
  const scheduleList = (await list(api, '/schedules', 'schedules')).sort((a, b) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id)));
  const teamList = (await list(api, '/teams', 'teams')).sort((a, b) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id)));
  const services = (await list(api, '/services', 'services', { 'include[]': ['integrations'] })).sort((a, b) => cmp(String(a.name), String(b.name)) || cmp(String(a.id), String(b.id)));

  // Vigil's names are natural keys, at most 100 characters: a second object of one name is told apart by its id
  const vigilNames = new UniqueNames();
  for (const [items, call] of [[teamList, 'GET /teams'], [policies, 'GET /escalation_policies'], [scheduleList, 'GET /schedules'], [services, 'GET /services']] as const) {
    for (const item of items) {
      str(item, 'id', call);
      str(item, 'name', call);
    }
  }
  const nameOf = new Map([...vigilNames.of(teamList), ...vigilNames.of(policies), ...vigilNames.of(scheduleList), ...vigilNames.of(services)]);
  const renameNote = (id: string) => vigilNames.note(id);
  const teamLabel = new Map<string, string>();
  for (const t of teamList) teamLabel.set(str(t, 'id', 'GET /teams'), labels.take(teams.name, nameOf.get(String(t.id))!));
  const policyLabel = new Map<string, string>();
  for (const p of policies) policyLabel.set(str(p, 'id', 'GET /escalation_policies'), labels.take(escalationPolicies.name, nameOf.get(String(p.id))!));
  const scheduleLabel = new Map<string, string>();
  for (const s of scheduleList) scheduleLabel.set(str(s, 'id', 'GET /schedules'), labels.take(schedules.name, nameOf.get(String(s.id))!));
  const ref = (family: string, label: string) => new Expression(`${resourceType(family)}.${label}.id`);
  const block = (family: string, label: string, attributes: Record<string, HclValue>, sortKey = label) =>
    entries.push({ sortKey: `${family}\u0000${sortKey}`, block: { type: 'resource', labels: [resourceType(family), label], attributes } });

  // which policy each team pages through: the one most of its services use, else the first that names the team
  const policyOfTeam = new Map<string, string>();
  const teamsOfService = (s: Json): string[] => {
    const own = ((Array.isArray(s.teams) ? s.teams : []) as Json[]).map((t) => String(t.id));
    if (own.length) return own;
    const policy = policies.find((p) => p.id === s.escalation_policy?.id);
    return ((Array.isArray(policy?.teams) ? policy!.teams : []) as Json[]).map((t: Json) => String(t.id));
  };
  for (const t of teamList) {
    const counts = new Map<string, number>();
    for (const s of services) if (teamsOfService(s).includes(String(t.id)) && s.escalation_policy?.id) counts.set(String(s.escalation_policy.id), (counts.get(String(s.escalation_policy.id)) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || cmp(policyLabel.get(a[0]) ?? '', policyLabel.get(b[0]) ?? ''));
    const chosen = ranked[0]?.[0] ?? policies.find((p) => ((p.teams ?? []) as Json[]).some((x) => x.id === t.id))?.id;
    if (chosen && policyLabel.has(String(chosen))) policyOfTeam.set(String(t.id), String(chosen));
  }

  // A schedule naming its team, the team naming its policy and the policy naming the schedule would be a cycle that one
  // apply cannot create (each row needs the other's id first): a schedule's owning team is left out where it closes one.
  const scheduleTeam = new Map<string, string>();
  const reaches = (from: string, target: string, seen = new Set<string>()): boolean => {
    if (from === target) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    const [kind, id] = [from.slice(0, from.indexOf(':')), from.slice(from.indexOf(':') + 1)];
    const next: string[] = [];
    if (kind === 'team' && policyOfTeam.has(id)) next.push(`policy:${policyOfTeam.get(id)}`);
    if (kind === 'policy') {
      const p = policies.find((x) => String(x.id) === id);
      for (const rule of (Array.isArray(p?.escalation_rules) ? p!.escalation_rules : []) as Json[]) {
        for (const target of (Array.isArray(rule.targets) ? rule.targets : []) as Json[]) if (String(target.type).startsWith('schedule')) next.push(`schedule:${String(target.id)}`);
      }
    }
    if (kind === 'schedule' && scheduleTeam.has(id)) next.push(`team:${scheduleTeam.get(id)}`);
    return next.some((n) => reaches(n, target, seen));
  };

  // schedules, one GET each for the layers
  const overrideRows: { email: string; start: string; end: string; schedule: string; source: string }[] = [];
  for (const s of scheduleList) {
    const id = String(s.id);
    const call = `GET /schedules/${id}`;
    const full = await one(api, `/schedules/${id}`, 'schedule');
    const zone = str(full, 'time_zone', call);
    const label = scheduleLabel.get(id)!;
    const name = `${String(full.name)} (${id})`;
    const notes: string[] = renameNote(id);
    const rawLayers = full.schedule_layers;
    if (!Array.isArray(rawLayers)) throw new ImportFailure(notDocumented(PRODUCT, call, 'no schedule_layers list'));
    // the API lists the top layer first; Vigil's layers are bottom first
    const layers: Json[] = [];
    for (const l of [...(rawLayers as Json[])].reverse()) {
      const layerName = String(l.name || `Layer ${layers.length + 1}`).slice(0, 100);
      if (l.end && Date.parse(String(l.end)) <= nowMs) {
        notes.push(`layer "${layerName}" ended before the import and is left out`);
        continue;
      }
      const participants = ((Array.isArray(l.users) ? l.users : []) as Json[]).map((u) => member(u.user?.id, `${name} layer "${layerName}"`)).filter((e): e is string => !!e);
      const unique = participants.filter((e, i) => participants.indexOf(e) === i);
      if (unique.length !== participants.length) notes.push(`layer "${layerName}" lists a person more than once in its rotation; Vigil rotates each person once per cycle, so the turns after the first repeat move`);
      if (!unique.length) {
        notes.push(`layer "${layerName}" has no one and is left out`);
        continue;
      }
      const turn = Number(l.rotation_turn_length_seconds);
      if (!Number.isFinite(turn) || turn <= 0) throw new ImportFailure(notDocumented(PRODUCT, call, 'a layer without rotation_turn_length_seconds'));
      const { rotation, exact } = rotationOf(turn);
      if (!exact) notes.push(`layer "${layerName}": a turn of ${turn} seconds is not a whole number of hours; rounded to ${rotation.length} ${rotation.unit === 'hourly' ? 'hour(s)' : rotation.unit === 'daily' ? 'day(s)' : 'week(s)'}`);
      const { windows, rounded } = restrictionWindows(PRODUCT, (Array.isArray(l.restrictions) ? l.restrictions : []) as Json[], call);
      if (rounded) notes.push(`layer "${layerName}": restriction times with seconds are rounded to the minute`);
      if (windows && windows.length > 20) throw new ImportFailure(`schedule ${name} layer "${layerName}" has restrictions Vigil cannot hold in 20 windows.`);
      const start = str(l, 'rotation_virtual_start', call);
      if (l.start && Date.parse(String(l.start)) > Math.max(nowMs, Date.parse(start))) {
        notes.push(`layer "${layerName}" starts at ${String(l.start)}, after its rotation's virtual start: in Vigil it has someone from the virtual start (${start})`);
      }
      const layer: Json = { name: layerName, participants: unique, rotation, handoff: localOf(start, zone, call) };
      if (l.end) layer.ends = localOf(String(l.end), zone, call);
      if (windows) layer.restrictions = windows;
      layers.push(layer);
    }
    if (layers.length > 10) {
      notes.push(`${layers.length} layers: Vigil holds 10; the ${layers.length - 10} lowest are left out`);
      layers.splice(0, layers.length - 10);
    }
    const owners = (Array.isArray(full.teams) ? full.teams : []) as Json[];
    const owner = owners.map((t) => String(t.id)).find((t) => teamLabel.has(t));
    let team = owner ? teamLabel.get(owner) : undefined;
    if (owners.length > 1) notes.push(`owned by ${owners.length} teams; Vigil names one owning team (${team})`);
    if (owner && reaches(`team:${owner}`, `schedule:${id}`)) {
      report.add({
        kind: 'schedule owner', source: `${name}: team ${String(owners.find((o) => String(o.id) === owner)?.summary ?? owner)}`, outcome: 'not carried', became: '',
        reason: `its team pages through a policy that pages this schedule: one apply cannot create the three rows naming each other; set team_id on ${resourceType(schedules.name)}.${label} after the apply if you want it`,
      });
      team = undefined;
    } else if (owner) scheduleTeam.set(id, owner);
    const attributes: Record<string, HclValue> = { name: nameOf.get(id)!, time_zone: zone, layers: layers as HclValue };
    if (full.description) attributes.description = String(full.description).slice(0, 1000);
    if (team) attributes.team_id = ref(teams.name, team);
    block(schedules.name, label, attributes);
    report.add({ kind: 'schedule', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(schedules.name)}.${label}`, reason: notes.join('; ') || undefined });

    // overrides that have not ended
    const overrides = await list(api, `/schedules/${id}/overrides`, 'overrides', {
      since: options.now.toISOString(), until: new Date(nowMs + 366 * 86_400_000).toISOString(),
    });
    for (const o of overrides.filter((x) => !(Date.parse(String(x.end)) > nowMs))) {
      report.add({ kind: 'override', source: `${name}: ${String(o.start)} → ${String(o.end)} (${String(o.id)})`, outcome: 'not carried', became: '', reason: 'it ended before the import' });
    }
    const kept = overrides
      .filter((o) => Date.parse(String(o.end)) > nowMs)
      .map((o) => ({ o, email: member(o.user?.id, `${name} override ${String(o.id)}`) }))
      .filter((x): x is { o: Json; email: string } => !!x.email)
      .sort((a, b) => cmp(a.email, b.email) || Date.parse(String(a.o.start)) - Date.parse(String(b.o.start)) || cmp(String(a.o.id), String(b.o.id)));
    for (const { o, email } of kept) {
      const start = new Date(Date.parse(str(o, 'start', `GET /schedules/${id}/overrides`))).toISOString();
      const end = new Date(Date.parse(str(o, 'end', `GET /schedules/${id}/overrides`))).toISOString();
      overrideRows.push({ email, start, end, schedule: label, source: `${name}: ${email} ${start} → ${end} (${String(o.id)})` });
    }
  }
  // an override has no natural key: `vigil plan` matches it by label, which the export gives by email, then start
  overrideRows.sort((a, b) => cmp(a.email, b.email) || cmp(a.start, b.start) || cmp(a.schedule, b.schedule) || cmp(a.end, b.end));
  for (const o of overrideRows) {
    const overrideLabel = labels.take(scheduleOverrides.name, o.email);
    block(scheduleOverrides.name, overrideLabel, { schedule_id: ref(schedules.name, o.schedule), email: o.email, start: o.start, end: o.end });
    report.add({ kind: 'override', source: o.source, outcome: 'carried', became: `${resourceType(scheduleOverrides.name)}.${overrideLabel}` });
  }

  // escalation policies
  for (const p of policies) {
    const id = String(p.id);
    const name = `${String(p.name)} (${id})`;
    const call = 'GET /escalation_policies';
    const rules = p.escalation_rules;
    if (!Array.isArray(rules) || !rules.length) throw new ImportFailure(notDocumented(PRODUCT, call, `policy ${id} has no escalation_rules`));
    const notes: string[] = renameNote(id);
    const steps = (rules as Json[]).slice(0, MAX_STEPS).map((rule, i) => {
      const targets: HclValue[] = [];
      for (const target of (Array.isArray(rule.targets) ? rule.targets : []) as Json[]) {
        if (String(target.type).startsWith('schedule')) {
          const s = scheduleLabel.get(String(target.id));
          if (s) targets.push({ schedule_id: ref(schedules.name, s) });
          else notes.push(`rule ${i + 1} names schedule ${String(target.id)}, which GET /schedules did not list`);
        } else if (String(target.type).startsWith('user')) {
          const email = member(target.id, `${name} rule ${i + 1}`);
          if (email) targets.push({ email });
        } else notes.push(`rule ${i + 1}: a target of type ${String(target.type)} is not carried`);
      }
      const delay = i === 0 ? 0 : Math.min(1440, Math.max(0, Math.round(Number((rules as Json[])[i - 1]!.escalation_delay_in_minutes) || 0)));
      return { delay_minutes: delay, targets: targets.slice(0, 20) };
    });
    if (rules.length > MAX_STEPS) notes.push(`${rules.length} rules: Vigil holds ${MAX_STEPS}; the rest are left out`);
    const loops = Math.max(0, Math.round(Number(p.num_loops) || 0));
    const repeat = Math.min(MAX_REPEAT, loops);
    if (loops > MAX_REPEAT) notes.push(`repeats ${loops} times; Vigil repeats at most ${MAX_REPEAT}`);
    const last = Number((rules as Json[]).at(-1)!.escalation_delay_in_minutes) || 0;
    const lastStepDelay = steps.length > 1 ? steps.at(-1)!.delay_minutes : 0;
    if (repeat > 0 && last !== lastStepDelay) notes.push(`PagerDuty waits ${last} min after the last rule before repeating; Vigil waits as long as its last step did (${lastStepDelay} min)`);
    const label = policyLabel.get(id)!;
    const attributes: Record<string, HclValue> = { name: nameOf.get(id)!, steps: steps as HclValue, repeat };
    if (p.description) attributes.description = String(p.description).slice(0, 1000);
    block(escalationPolicies.name, label, attributes);
    report.add({ kind: 'escalation policy', source: name, outcome: notes.length ? 'approximate' : 'carried', became: `${resourceType(escalationPolicies.name)}.${label}`, reason: notes.join('; ') || undefined });
  }

  // teams, with their members
  for (const t of teamList) {
    const id = String(t.id);
    const members = await list(api, `/teams/${id}/members`, 'members');
    const emails = [...new Set(members.map((m) => member(m.user?.id, `team ${String(t.name)} (${id})`)).filter((e): e is string => !!e))].sort(cmp);
    const attributes: Record<string, HclValue> = { name: nameOf.get(id)!, member_emails: emails };
    if (t.description) attributes.description = String(t.description).slice(0, 255);
    const policy = policyOfTeam.get(id);
    if (policy) attributes.escalation_policy_id = ref(escalationPolicies.name, policyLabel.get(policy)!);
    block(teams.name, teamLabel.get(id)!, attributes);
    const roles = members.filter((m) => m.role && m.role !== 'responder').length;
    const teamNotes = [...renameNote(id), ...(roles ? [`${roles} member(s) with a team role (manager, observer): Vigil teams have members only; each person's organization role is in people.json`] : [])];
    report.add({
      kind: 'team', source: `${String(t.name)} (${id})`, outcome: teamNotes.length ? 'approximate' : 'carried', became: `${resourceType(teams.name)}.${teamLabel.get(id)}`,
      reason: teamNotes.join('; ') || undefined,
    });
  }

  // services: a route per service to a team that pages through the service's policy (a team made for it when none does)
  const extraTeams = new Map<string, string>();
  for (const s of services) {
    const id = String(s.id);
    const name = `${String(s.name)} (${id})`;
    const policy = String(s.escalation_policy?.id ?? '');
    if (!policyLabel.has(policy)) {
      report.add({ kind: 'service', source: name, outcome: 'not carried', became: '', reason: `its escalation policy ${policy || '(none)'} is not in GET /escalation_policies` });
      continue;
    }
    let team = teamsOfService(s).find((t) => policyOfTeam.get(t) === policy);
    let teamRef = team ? teamLabel.get(team)! : undefined;
    if (!teamRef) {
      teamRef = extraTeams.get(policy);
      if (!teamRef) {
        const p = policies.find((x) => x.id === policy)!;
        const teamName = `${String(p.name)} routing`.slice(0, 100);
        teamRef = labels.take(teams.name, teamName);
        extraTeams.set(policy, teamRef);
        block(teams.name, teamRef, { name: teamName, escalation_policy_id: ref(escalationPolicies.name, policyLabel.get(policy)!), member_emails: [], description: `Pages through ${String(p.name)}; made by the PagerDuty import for the services that use it.`.slice(0, 255) });
        report.add({ kind: 'team', source: `(none: escalation policy ${String(p.name)} (${policy}))`, outcome: 'approximate', became: `${resourceType(teams.name)}.${teamRef}`, reason: 'Vigil routes page a team, which pages through its policy: a team is made for a policy that no team pages through' });
      }
    }
    const routeLabel = labels.take(alertRoutes.name, nameOf.get(id)!);
    block(alertRoutes.name, routeLabel, {
      name: nameOf.get(id)!,
      matchers: [{ field: 'service', operator: 'equals', value: String(s.name).slice(0, 200) }],
      team_id: ref(teams.name, teamRef),
      enabled: s.status !== 'disabled',
    });
    report.add({ kind: 'service', source: name, outcome: vigilNames.renamed.has(id) ? 'approximate' : 'carried', became: `${resourceType(alertRoutes.name)}.${routeLabel} (alerts whose service is "${String(s.name)}")`, reason: renameNote(id)[0] });
    for (const i of (Array.isArray(s.integrations) ? s.integrations : []) as Json[]) {
      const what = `${String(s.name)}: ${String(i.name ?? i.summary ?? i.type)} (${String(i.id)})`;
      const vendor = String(i.vendor?.summary ?? i.vendor?.name ?? '');
      const sender = senderFor(String(i.type), vendor, String(s.name));
      if (!sender) {
        report.add({ kind: 'integration', source: what, outcome: 'not carried', became: '', reason: `${String(i.type)}${vendor ? ` (${vendor})` : ''}: Vigil takes no alerts this way; point the sender at the Events API v2 URL` });
        continue;
      }
      report.senders.push({ source: what, sender: vendor || String(i.type), url: sender.url, note: sender.note });
      report.add({ kind: 'integration', source: what, outcome: 'carried', became: sender.url });
    }
  }

  // maintenance windows: Vigil mutes start when they are made, so a future window is listed to make at its start
  const windows = await list(api, '/maintenance_windows', 'maintenance_windows', { filter: 'open' });
  for (const w of windows.filter((x) => !(Date.parse(String(x.end_time)) > nowMs))) {
    report.add({ kind: 'maintenance window', source: `${String(w.description ?? w.id)} (${String(w.id)})`, outcome: 'not carried', became: '', reason: 'it ended before the import' });
  }
  for (const w of windows.filter((x) => Date.parse(String(x.end_time)) > nowMs).sort((a, b) => cmp(String(a.start_time), String(b.start_time)) || cmp(String(a.id), String(b.id)))) {
    const names = ((Array.isArray(w.services) ? w.services : []) as Json[]).map((s) => String(s.summary ?? s.id)).join(', ');
    report.add({
      kind: 'maintenance window', source: `${String(w.description ?? w.id)} (${String(w.id)}) ${String(w.start_time)} → ${String(w.end_time)}`, outcome: 'not carried', became: '',
      reason: `a Vigil mute starts when it is made and matches text, not a service: at ${String(w.start_time)} mute ${names || 'the services'} (alert_mutes, duration_minutes) for the window`,
    });
  }

  const header = [
    `Written by \`vigil import pagerduty\` from ${api.base} (${users.length} users, ${teamList.length} teams, ${scheduleList.length} schedules, ${policies.length} escalation policies, ${services.length} services).`,
    'Create the people first: `vigil users import people.json --org <org-id>`; then `vigil plan vigil.tf` and `vigil apply vigil.tf`.',
    'REPORT.md says what each PagerDuty object became and what was not carried.',
  ];
  return { hcl: { header, entries }, people: { source: 'pagerduty', people }, report };
}

/** Where a PagerDuty integration's sender points in Vigil, by the integration's type and vendor. */
function senderFor(type: string, vendor: string, service: string): { url: string; note: string } | null {
  const events = { url: '<vigil>/v2/enqueue', note: `Events API v2: routing_key <token>; set payload.component (or custom_details.service) to "${service}" so the route pages` };
  const v = vendor.toLowerCase();
  if (v.includes('datadog')) return { url: '<vigil>/webhooks/monitoring-a/<token>', note: `Datadog webhook; tag the monitors service:${service}` };
  if (v.includes('new relic')) return { url: '<vigil>/webhooks/monitoring-b/<token>', note: `New Relic webhook; tag the policy service:${service}` };
  if (v.includes('cloudwatch')) return { url: '<vigil>/webhooks/cloud-alarms/<token>', note: 'subscribe the SNS topic to this URL (HTTPS)' };
  if (v.includes('grafana')) return { url: '<vigil>/webhooks/metric-dashboard/<token>', note: `Grafana webhook contact point; label service=${service}` };
  if (v.includes('prometheus') || v.includes('alertmanager')) return { ...events, note: `Alertmanager pagerduty_configs: url <vigil>/v2/enqueue, routing_key <token>; component "${service}"` };
  if (/events_api|generic_events|event_transformer/.test(type)) return events;
  if (type === 'generic_email_inbound_integration' || type === 'email_inbound_integration') return null;
  return vendor ? events : null;
}
