/**
 * The one way the escalation engine reaches a person: `notifyPerson`. For now every person gets email (the spec: "a
 * member with no rule gets email immediately"); the person's notification rules and contact methods will be consulted
 * here, behind the same call, so the engine does not change when they are.
 *
 * A notification is written as a row (escalation, step, loop, person) in the step's transaction, before anything is
 * sent: a step run again finds it and adds nothing. It waits `BUNDLE_SECONDS` so that several alerts paging one
 * person together make one message (`sendBundles`: the pending rows of each person whose oldest is due are claimed
 * with `FOR UPDATE SKIP LOCKED`, one mail queued for them in the same transaction, each row marked queued, and a
 * `notified` effect recorded on each alert: its timeline and its incident's).
 */
import { randomUUID } from 'node:crypto';
import { html } from '../../engine/html.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { canSendMail, queueMail } from '../../outbound/mail.ts';
import teamMembers from '../../resources/team_members.ts';
import { NOTIFICATIONS } from './escalation-entities.ts';
import { recordEffects, type PagingEffect } from './effects.ts';

/** How long a notification waits for others to the same person, so they go out as one message. */
export const BUNDLE_SECONDS = 5;
const CLAIM_LIMIT = 200;

export interface NotifyContext {
  services: Services;
  /** the transaction the step runs in */
  sql: Sql;
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

/** Records that this person is to be notified for this step; false when the step already notified them (a step run again). */
export async function notifyPerson(ctx: NotifyContext, page: PersonPage): Promise<boolean> {
  const sendAfter = new Date(ctx.now.getTime() + BUNDLE_SECONDS * 1000);
  const rows = await ctx.sql(
    `insert into ${NOTIFICATIONS} (escalation_id, step, loop, email, organization_id, user_id, alert_id, incident_id, urgency, status, send_after, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) on conflict do nothing returning escalation_id`,
    [page.escalationId, page.stepIndex, page.loop, page.email, page.organizationId, page.userId, page.alertId, page.incidentId, page.urgency, sendAfter, ctx.now],
  );
  return rows.length > 0;
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

interface Claimed {
  escalation_id: string;
  step: number;
  loop: number;
  email: string;
  organization_id: string;
  alert_id: string;
  incident_id: string | null;
  urgency: string;
  title: string;
  severity: string;
}

const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

/** One message for one person's bundle: the alerts paged, newest step first. */
function message(services: Services, group: Claimed[]) {
  const base = services.config.publicUrl?.replace(/\/$/, '') ?? '';
  const lines = group.map((n) => `- [${n.severity}] ${oneLine(n.title)} (step ${n.step + 1}${n.loop ? `, repeat ${n.loop}` : ''})${base ? `: ${base}/console/alerts/${n.alert_id}` : ''}`);
  const subject = group.length === 1 ? `[Vigil] Page: ${oneLine(group[0]!.title)}` : `[Vigil] Page: ${group.length} alerts`;
  const text = `You are paged for ${group.length === 1 ? 'this alert' : `these ${group.length} alerts`}:\n\n${lines.join('\n')}\n\nAcknowledge it in Vigil to stop the escalation.\n`;
  const body = html`<p>You are paged for ${group.length === 1 ? 'this alert' : `these ${group.length} alerts`}:</p><ul>${lines.map((l) => html`<li>${l.slice(2)}</li>`)}</ul><p>Acknowledge it in Vigil to stop the escalation.</p>`;
  return { subject, text, html: body.text };
}

/** Sends every bundle that is due (the injected clock's now): one mail per person. Answers how many notifications went out. */
export async function sendBundles(services: Services): Promise<number> {
  const now = services.clock.now();
  let sent = 0;
  for (;;) {
    const claimed = await inTransaction(services, async (store) => {
      const rows = (await store.execute(
        `select n.escalation_id, n.step, n.loop, n.email, n.organization_id, n.alert_id, n.incident_id, n.urgency, a.title, a.severity
           from ${NOTIFICATIONS} n join alerts a on a.id = n.alert_id
          where n.status = 'pending' and (n.organization_id, n.email) in (
                select organization_id, email from ${NOTIFICATIONS} where status = 'pending' group by organization_id, email having min(send_after) <= ?)
          order by n.organization_id, n.email, n.created_at
          limit ${CLAIM_LIMIT}
          for update of n skip locked`,
        [now],
      )) as unknown as Claimed[];
      if (!rows.length) return 0;
      const mail = canSendMail(services);
      const people = new Map<string, Claimed[]>();
      for (const r of rows) people.set(`${r.organization_id} ${r.email}`, [...(people.get(`${r.organization_id} ${r.email}`) ?? []), r]);
      const effects: PagingEffect[] = [];
      for (const group of people.values()) {
        const bundle = randomUUID();
        if (mail) await queueMail(services, store, [{ to: group[0]!.email, ...message(services, group) }]);
        const status = mail ? 'queued' : 'not_sent';
        for (const n of group) {
          await store.execute(
            `update ${NOTIFICATIONS} set status = ?, reason = ?, channel = 'email', sent_at = ?, bundle_id = ? where escalation_id = ? and step = ? and loop = ? and email = ?`,
            [status, mail ? null : 'email_not_configured', now, bundle, n.escalation_id, n.step, n.loop, n.email],
          );
          effects.push({
            organizationId: n.organization_id, alertId: n.alert_id, kind: 'notified',
            detail: {
              escalation_id: n.escalation_id, step: n.step, loop: n.loop, email: n.email, channel: 'email', urgency: n.urgency, bundle_id: bundle, bundled: group.length,
              ...(mail ? { queued: true } : { queued: false, not_notified: 'email_not_configured' }),
            },
          });
        }
      }
      await recordEffects(store.execute, now, effects);
      return rows.length;
    });
    sent += claimed;
    if (claimed < CLAIM_LIMIT) return sent;
  }
}
