/**
 * The one way the escalation engine reaches a person: `notifyPerson`, in the step's transaction. It asks the
 * person's contact plan for the page's urgency (contacts.ts: their notification rules on usable contact methods, or
 * their account email at once when they have none) and writes one row per (escalation, step, loop, person, contact
 * method) due `delay_minutes` after the step, before anything is sent: a step run again finds them and adds nothing.
 * The rows are sent by dispatch.ts (bundled per person and method, limited, through each type's channel).
 */
import type { FamilyStore } from '../../engine/persistence/store.ts';
import { prepared, type SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import teamMembers from '../../resources/team_members.ts';
import { contactPlan, type PlannedContact } from './contacts.ts';
import { channelFor } from './channels/index.ts';
import { NOTIFICATIONS } from './escalation-entities.ts';

/** The method key of the account email (a person with no usable rule). */
export const ACCOUNT_METHOD = 'account';

export interface NotifyContext {
  services: Services;
  /** the transaction the step runs in */
  store: FamilyStore;
  now: Date;
}

export interface PersonPage {
  organizationId: string;
  /** the member (team_members.user_id); null when the email is no user's any more */
  userId: string | null;
  email: string;
  alertId: string;
  incidentId: string | null;
  urgency: 'high' | 'low';
  stepIndex: number;
  loop: number;
  escalationId: string;
}

/**
 * Records who is to be notified how and when for this step. Answers the method keys of the rows it wrote that are due
 * at once (none when the step already notified them: a step run again), which a page's first step sends straight away.
 */
export async function notifyPerson(ctx: NotifyContext, page: PersonPage): Promise<string[]> {
  const plan: PlannedContact[] = page.userId
    ? await contactPlan(ctx.store, { organizationId: page.organizationId, userId: page.userId, urgency: page.urgency, email: page.email })
    : [];
  const usable = await setUp(ctx, page.organizationId, plan);
  if (!usable.length) usable.push({ contactMethod: { id: null, type: 'email', address: page.email, name: 'account email' }, delayMinutes: 0, fallback: plan.length ? 'not_configured' : 'no_rule' });
  const due: string[] = [];
  for (const { contactMethod: m, delayMinutes, fallback } of usable) {
    const rows = await ctx.store.execute(
      prepared(`insert into ${NOTIFICATIONS} (escalation_id, step, loop, email, method_key, organization_id, user_id, alert_id, incident_id, urgency, contact_type, address, method_name, fallback, status, send_after, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) on conflict do nothing returning escalation_id`),
      [page.escalationId, page.stepIndex, page.loop, page.email, m.id ?? ACCOUNT_METHOD, page.organizationId, page.userId, page.alertId, page.incidentId, page.urgency,
        m.type, m.address, m.name, fallback ?? null, new Date(ctx.now.getTime() + delayMinutes * 60_000), ctx.now],
    );
    if (rows.length && delayMinutes === 0) due.push(m.id ?? ACCOUNT_METHOD);
  }
  return due;
}

/**
 * The planned contacts whose channel can send for this organization now (channels/channel.ts `configured`): a method on
 * a channel whose provider is not set up (no Twilio account, no Pushover application) would only fail, so the person
 * gets their account email instead (`fallback: not_configured`), as a person with no usable rule does.
 */
async function setUp(ctx: NotifyContext, organizationId: string, plan: PlannedContact[]): Promise<PlannedContact[]> {
  const answers = new Map<string, boolean>();
  const kept: PlannedContact[] = [];
  for (const contact of plan) {
    const channel = channelFor(contact.contactMethod.type);
    if (contact.contactMethod.id && channel?.configured) {
      if (!answers.has(channel.type)) answers.set(channel.type, await channel.configured(ctx.services, organizationId, ctx.store));
      if (!answers.get(channel.type)) continue;
    }
    kept.push(contact);
  }
  return kept;
}

/** The members among these emails, with their user ids (someone who left the organization is no one to page). */
export async function membersOf(services: Services, sql: Sql, organizationId: string, emails: readonly string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (!emails.length) return found;
  const table = `"${tableName(services.registry.family(teamMembers))}"`;
  const rows = await sql(`select email, user_id from ${table} where organization_id = ? and email in (${emails.map(() => '?').join(', ')})`, [organizationId, ...emails]);
  for (const r of rows) found.set(String(r.email), (r.user_id as string | null) ?? null);
  return found;
}
