/**
 * The escalation engine. A page (an alert route paging a team) starts an escalation in the alert pipeline's
 * transaction (`startEscalations`): one per subject and team — the subject is the alert's incident when the alert is
 * in one (so an incident escalates once, however many of its alerts page), else the alert. The team's policy is
 * snapshotted: its escalation_policies row, or the policy its old `escalation` list implies (`impliedPolicy`).
 *
 * Steps run in `runEscalations` (each instance's pass, every second; a page's first step at once, `wakeEscalations`;
 * tests call it with the injected clock): due rows are claimed
 * with `FOR UPDATE SKIP LOCKED` in a transaction that also runs the step — targets resolved at that moment
 * (a schedule: who is on call then, domain/oncall/on-call.ts; a team: its members then; an email: that member), each
 * person handed to notifyPerson (a row written before anything is sent), the step recorded, and the next deadline
 * set. Whatever instance claims a row, the step commits once with its notifications: a crash before the commit
 * leaves the row due for another instance; after it, the step is done. A step that resolves to nobody is recorded
 * `empty` and the next starts at once. Before a step, the subject is read: an acknowledged or resolved alert (an
 * acknowledged or closed incident, or one with no alert still firing) stops the escalation.
 */
import { randomUUID } from 'node:crypto';
import type { Row } from '../../engine/descriptor.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { localPass } from '../../engine/jobs/local-pass.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { jsonValue, type FamilyStore } from '../../engine/persistence/store.ts';
import { prepared, type SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import escalationPolicies, { type PolicyStep, type PolicyTarget } from '../../resources/escalation_policies.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import teams from '../../resources/teams.ts';
import { onCallAt } from '../oncall/on-call.ts';
import { loadCalendars } from '../oncall/calendar.ts';
import { followsCalendar } from '../oncall/operations.ts';
import { ESCALATIONS } from './escalation-entities.ts';
import { recordEffects, type PagingEffect } from './effects.ts';
import { cancelPending, sendBundles, sendsDue, type GroupKey } from './dispatch.ts';
import { membersOf, notifyPerson } from './notify.ts';
import { stopReason } from './stop.ts';

/** Minutes between the steps of a policy a team's old `escalation` list implies (GoAlert's default step delay). */
export const IMPLIED_STEP_MINUTES = 15;
/** A repeat waits the last step's delay; when that is 0 (a one-step policy), this many minutes. */
export const REPEAT_FALLBACK_MINUTES = 15;
/** Escalations one transaction claims: small, so a pass's claimers (CLAIMERS at once) share a backlog evenly. */
const CLAIM_LIMIT = 10;
const CLAIMERS = 4;
/** Steps one claim may run back to back (empty steps fall through at once); a bound against a policy of empty steps repeating. */
const MAX_STEPS_PER_CLAIM = 200;

export interface PolicySnapshot {
  steps: PolicyStep[];
  repeat: number;
  name: string | null;
}

const table = (services: Services, family: Parameters<Services['registry']['family']>[0]) => `"${tableName(services.registry.family(family))}"`;
const list = (value: unknown): unknown[] => (Array.isArray(jsonValue(value)) ? (jsonValue(value) as unknown[]) : []);

/** The policy a team without escalation_policy_id pages through: one step per `escalation` email, 15 minutes apart; none: every member at once. */
export function impliedPolicy(team: { escalation: string[]; member_emails: string[] }): PolicySnapshot {
  if (team.escalation.length === 0) return { name: null, repeat: 0, steps: [{ delay_minutes: 0, targets: team.member_emails.map((email) => ({ email })) }] };
  return { name: null, repeat: 0, steps: team.escalation.map((email, i) => ({ delay_minutes: i === 0 ? 0 : IMPLIED_STEP_MINUTES, targets: [{ email }] })) };
}

export interface PagedTeam {
  id: string;
  name: string;
}

/**
 * Starts (or joins) the escalation of each paged team for the alert, or its incident: in the pipeline's transaction.
 * Answers the effects to record on the alert (`escalation_started`, with `joined: true` when one was already running).
 */
export async function startEscalations(
  services: Services, sql: Sql, organizationId: string, alertId: string, incidentId: string | null, paged: readonly PagedTeam[], now: Date,
): Promise<{ kind: 'escalation_started'; detail: Record<string, unknown> }[]> {
  if (!paged.length) return [];
  const ids = paged.map((t) => t.id);
  const rows = await sql(
    `select t.id, t.name, t.escalation, t.member_emails, p.id as policy_id, p.name as policy_name, p.steps, p.repeat
       from ${table(services, teams)} t left join ${table(services, escalationPolicies)} p on p.organization_id = t.organization_id and p.id = t.escalation_policy_id
      where t.organization_id = ? and t.id in (${ids.map(() => '?').join(', ')})`,
    [organizationId, ...ids],
  );
  const effects: { kind: 'escalation_started'; detail: Record<string, unknown> }[] = [];
  for (const team of rows) {
    const policy: PolicySnapshot = team.policy_id
      ? { name: String(team.policy_name), steps: list(team.steps) as PolicyStep[], repeat: Number(team.repeat ?? 0) }
      : impliedPolicy({ escalation: list(team.escalation) as string[], member_emails: list(team.member_emails) as string[] });
    const subject = incidentId ? { kind: 'incident', id: incidentId } : { kind: 'alert', id: alertId };
    const started = await sql(
      `insert into ${ESCALATIONS} (id, organization_id, subject_kind, subject_id, alert_id, team_id, policy_id, policy, step, loop, next_at, state, reason, started_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, 0, 0, ?, 'active', null, ?, ?)
       on conflict (organization_id, subject_id, team_id) do update
         set alert_id = excluded.alert_id, policy_id = excluded.policy_id, policy = excluded.policy, step = 0, loop = 0, next_at = excluded.next_at,
             state = 'active', reason = null, started_at = excluded.started_at, updated_at = excluded.updated_at
         where ${ESCALATIONS}.state <> 'active'
       returning id`,
      [randomUUID(), organizationId, subject.kind, subject.id, alertId, String(team.id), (team.policy_id as string | null) ?? null, JSON.stringify(policy), now, now, now],
    );
    const base = { team_id: String(team.id), team: String(team.name), policy_id: (team.policy_id as string | null) ?? null, policy: policy.name, subject: subject.kind, ...(incidentId ? { incident_id: incidentId } : {}) };
    if (started[0]) {
      effects.push({ kind: 'escalation_started', detail: { escalation_id: String(started[0].id), ...base, steps: policy.steps.length, repeat: policy.repeat } });
    } else {
      const [running] = await sql(`select id from ${ESCALATIONS} where organization_id = ? and subject_id = ? and team_id = ?`, [organizationId, subject.id, String(team.id)]);
      effects.push({ kind: 'escalation_started', detail: { escalation_id: String(running?.id), ...base, joined: true } });
    }
  }
  return effects;
}

interface EscalationRow {
  id: string;
  organization_id: string;
  subject_kind: 'alert' | 'incident';
  subject_id: string;
  alert_id: string;
  team_id: string;
  policy: PolicySnapshot;
  step: number;
  loop: number;
  next_at: Date;
  /** the escalation's alert as the claim read it: its status (the stop check of an alert's escalation) and severity */
  alert_status: string | null;
  alert_severity: string | null;
}

/** The people a target names at `at` (emails, lowercased): a schedule's on-call person, a team's members, a member. */
async function resolveTarget(services: Services, sql: Sql, organizationId: string, target: PolicyTarget, at: Date): Promise<string[]> {
  if (target.email) return [target.email];
  if (target.team_id) {
    const [team] = await sql(`select member_emails from ${table(services, teams)} where organization_id = ? and id = ?`, [organizationId, target.team_id]);
    return team ? (list(team.member_emails) as string[]) : [];
  }
  if (target.schedule_id) {
    const [schedule] = await sql(`select * from ${table(services, schedules)} where organization_id = ? and id = ?`, [organizationId, target.schedule_id]);
    if (!schedule) return [];
    const overrides = await sql(`select * from ${table(services, scheduleOverrides)} where organization_id = ? and schedule_id = ?`, [organizationId, target.schedule_id]);
    const row = { ...schedule, layers: jsonValue(schedule.layers) } as Row;
    if (followsCalendar(row)) await loadCalendars(services, organizationId, [String(row.id)]);
    const { current } = onCallAt(row, overrides as Row[], at.getTime());
    return current ? [current.email] : [];
  }
  return [];
}

/**
 * The page's urgency, which chooses the person's notification rules: high for an alert of severity critical or high
 * (as its route set it, else as its source did), low for warning and info.
 */
const urgencyOf = (e: EscalationRow): 'high' | 'low' => (['critical', 'high'].includes(String(e.alert_severity)) ? 'high' : 'low');

/** Runs the claimed escalation's due step(s), in the claim's transaction; answers its effects, and adds to `sendNow` the people's methods it made due at once. */
async function runDue(services: Services, store: FamilyStore, e: EscalationRow, now: Date, sendNow: GroupKey[]): Promise<PagingEffect[]> {
  const sql = store.execute;
  const effects: PagingEffect[] = [];
  const effect = (kind: PagingEffect['kind'], detail: Record<string, unknown>) => effects.push({ organizationId: e.organization_id, alertId: e.alert_id, kind, detail: { escalation_id: e.id, ...detail } });
  const save = (fields: { step: number; loop: number; next_at: Date | null; state: string; reason: string | null }) =>
    sql(prepared(`update ${ESCALATIONS} set step = ?, loop = ?, next_at = ?, state = ?, reason = ?, updated_at = ? where id = ?`), [fields.step, fields.loop, fields.next_at, fields.state, fields.reason, now, e.id]);
  const stop = await stopReason(sql, e);
  if (stop) {
    effect('escalation_stopped', { reason: stop, step: e.step, loop: e.loop });
    await save({ step: e.step, loop: e.loop, next_at: null, state: 'stopped', reason: stop });
    effects.push(...(await cancelPending(store, now, e.id, stop)));
    return effects;
  }
  const incidentId = e.subject_kind === 'incident' ? e.subject_id : null;
  const urgency = urgencyOf(e);
  const steps = e.policy.steps;
  let { step, loop } = e;
  let due = e.next_at;
  for (let ran = 0; ran < MAX_STEPS_PER_CLAIM; ran++) {
    const current = steps[step];
    const people: string[] = [];
    for (const target of current?.targets ?? []) for (const email of await resolveTarget(services, sql, e.organization_id, target, now)) if (!people.includes(email)) people.push(email);
    const members = await membersOf(services, sql, e.organization_id, people);
    const reached = people.filter((p) => members.has(p));
    for (const email of reached) {
      const methods = await notifyPerson({ services, store, now }, {
        organizationId: e.organization_id, userId: members.get(email) ?? null, email, alertId: e.alert_id, incidentId, urgency, stepIndex: step, loop, escalationId: e.id,
      });
      for (const method_key of methods) sendNow.push({ organization_id: e.organization_id, email, method_key });
    }
    effect('escalation_step', {
      step, loop, targets: current?.targets ?? [], people: reached, ...(reached.length ? {} : { empty: true }),
      ...(people.length > reached.length ? { not_members: people.filter((p) => !members.has(p)) } : {}),
    });
    // the next step, or the policy again, or done
    let nextStep = step + 1;
    let nextLoop = loop;
    let delay: number;
    if (nextStep < steps.length) delay = steps[nextStep]!.delay_minutes;
    else if (loop < e.policy.repeat) {
      nextStep = 0;
      nextLoop = loop + 1;
      delay = steps[steps.length - 1]!.delay_minutes || REPEAT_FALLBACK_MINUTES;
    } else {
      effect('escalation_stopped', { reason: 'exhausted', step, loop });
      await save({ step, loop, next_at: null, state: 'done', reason: 'exhausted' });
      return effects;
    }
    step = nextStep;
    loop = nextLoop;
    // an empty step is recorded and the next one starts at once; otherwise the next waits its delay from this one's deadline
    if (reached.length === 0) continue;
    due = new Date(due.getTime() + delay * 60_000);
    if (due.getTime() > now.getTime()) break;
  }
  await save({ step, loop, next_at: due, state: 'active', reason: null });
  return effects;
}

/** One transaction: claims up to CLAIM_LIMIT due escalations (of `only`, when given), runs their steps, records the effects. Answers how many it claimed. */
async function runBatch(services: Services, now: Date, only?: readonly string[]): Promise<{ claimed: number; due: GroupKey[] }> {
  return inTransaction(services, async (store) => {
    const rows = await store.execute(
      `select e.id, e.organization_id, e.subject_kind, e.subject_id, e.alert_id, e.team_id, e.policy, e.step, e.loop, e.next_at,
              a.status as alert_status, coalesce(a.severity_override, a.severity) as alert_severity
         from ${ESCALATIONS} e join organizations o on o.id = e.organization_id and not o.disabled
         left join alerts a on a.organization_id = e.organization_id and a.id = e.alert_id
        where e.state = 'active' and e.next_at <= ?${only ? ` and e.id in (${only.map(() => '?').join(', ')})` : ''}
        order by e.next_at
        limit ${CLAIM_LIMIT}
        for update of e skip locked`,
      [now, ...(only ?? [])],
    );
    const effects: PagingEffect[] = [];
    const due: GroupKey[] = [];
    for (const r of rows) {
      const row = { ...r, policy: jsonValue(r.policy), next_at: new Date(r.next_at as string | Date) } as unknown as EscalationRow;
      effects.push(...(await runDue(services, store, row, now, due)));
    }
    await recordEffects(store.execute, now, effects);
    return { claimed: rows.length, due };
  });
}

/**
 * One pass with the injected clock's now: every due escalation, claimed in batches by CLAIMERS transactions at once
 * (a pass under load runs steps side by side on the pool, not one after another), then the due notifications sent.
 * With `only`, just those escalations, and then the people and methods their steps made due at once (the first step
 * of pages that just committed: no scan of the rest, no wait for a pass). Answers the escalations run.
 */
export async function runEscalations(services: Services, only?: readonly string[]): Promise<number> {
  const now = services.clock.now();
  let ran = 0;
  if (only) {
    const due: GroupKey[] = [];
    for (let i = 0; i < only.length; i += CLAIM_LIMIT) {
      const batch = await runBatch(services, now, only.slice(i, i + CLAIM_LIMIT));
      ran += batch.claimed;
      due.push(...batch.due);
    }
    await sendBundles(services, due);
    return ran;
  }
  // a pass runs every second on every instance and almost always finds nothing: one read says whether anything is
  // due, and a pass with nothing opens no transaction
  const sends = sendsDue(now);
  const [due] = await readStore(services).execute(`select exists (select 1 from ${ESCALATIONS} where state = 'active' and next_at <= ?) as steps, ${sends.sql}`, [now, ...sends.params]);
  if (!due?.steps && !due?.sends) return 0;
  // one batch first: most passes find a few due; a full batch means a backlog, shared by CLAIMERS at once
  const first = due.steps ? await runBatch(services, now) : { claimed: 0 };
  ran += first.claimed;
  if (first.claimed === CLAIM_LIMIT) {
    await Promise.all(Array.from({ length: CLAIMERS }, async () => {
      for (;;) {
        const { claimed } = await runBatch(services, now);
        ran += claimed;
        if (claimed < CLAIM_LIMIT) return;
      }
    }));
  }
  await sendBundles(services);
  return ran;
}

/**
 * Runs the first step of escalations a transaction just started (the alert pipeline calls it after the commit), in
 * this process at once, so a new page does not wait for the next pass. Each call runs on its own; the rows it names
 * are claimed as any pass claims them, so a pass that got there first leaves it nothing. A crash before it runs loses
 * nothing: the step is still due for the next pass. Not where passes are run by hand (tick 0: tests).
 */
export function wakeEscalations(services: Services, started: readonly string[]): void {
  if (services.config.checks?.tickSeconds === 0 || !started.length) return;
  runEscalations(services, started).catch((error: unknown) => {
    if (!services.outage.noted(error)) services.log.error({ code: (error as { code?: unknown })?.code }, 'the first step of a page failed; the next pass runs it');
  });
}

/** seconds between this instance's passes when the deployment does not say (the checks' cadence) */
const PASS_SECONDS = 1;

const pass = localPass('paging.escalations', (services) => runEscalations(services));

/** The module's start-up hook: this instance's passes at the checks' cadence (`VIGIL_CHECK_TICK_SECONDS`; 0: none, tests run them by hand). */
export function escalationPasses(services: Services): Promise<void> {
  return pass.start(services, services.config.checks?.tickSeconds === 0 ? 0 : PASS_SECONDS);
}

/** The module's close hook: this instance's passes stop (one running finishes). */
export const stopEscalationPasses = (services: Services): Promise<void> => pass.stop(services);
