/**
 * Sending: the `email.send` queue works one job per organization (and due time). A job:
 *
 * 1. claims every due, pending notice of the organization in one statement (`UPDATE … RETURNING` with a claim id
 *    of its own, the rows chosen `FOR UPDATE SKIP LOCKED`), so two instances, or a job and its retry, never
 *    claim one notice twice; a notice is claimed only while the organization is not disabled;
 * 2. reads the recipients as they are now (none left: the notices are `cancelled`);
 * 3. mails the held notices (digest, quiet hours) together as ONE email, and each other notice as an email of
 *    its own (digest off means one email per event), through the SMTP transport (email-transport.ts);
 * 4. marks an email's notices `sent` once the server accepted it; on a failure puts them back to `pending`
 *    with a later `send_after` (the release pass queues them again then), or `failed` after `MAX_ATTEMPTS`.
 *
 * A claim is never taken back once its email may have reached the server: a send interrupted there (the
 * instance stopped) is `failed` by the release pass after `STALE_CLAIM_MINUTES`, not sent a second time.
 */
import { randomUUID } from 'node:crypto';
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { canMail, EMAIL_QUEUE } from './notices.ts';
import { emailContent } from './message.ts';
import { mailError, transportFor } from './transport.ts';
import { readNotificationSettings } from '../preferences/notification-settings.ts';

/** tries of one notice before it is `failed`; the waits after each failed try, in minutes (about 48 minutes in all) */
export const MAX_ATTEMPTS = 6;
const RETRY_MINUTES = [1, 2, 5, 10, 30];
/** notices one job claims; more wait for the next job (the release pass queues it) */
const CLAIM_LIMIT = 200;
const MINUTE = 60_000;

interface Claimed {
  id: string;
  seq: number;
  payload: string;
  batched: boolean;
  attempts: number;
}

const ids = (notices: Claimed[]) => JSON.stringify(notices.map((n) => n.id));
const IN_IDS = `id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`;

async function claim(sql: Sql, organizationId: string, claimId: string, now: Date): Promise<Claimed[]> {
  const rows = await sql(
    `update email_notices n set status = 'sending', claim_id = ?, claimed_at = ?, attempts = n.attempts + 1
      where n.id in (
        select e.id from email_notices e
         where e.organization_id = ? and e.status = 'pending' and e.send_after <= ?
           and exists (select 1 from organizations o where o.id = e.organization_id and not o.disabled)
         order by e.seq
         limit ?
         for update of e skip locked)
      returning n.id, n.seq, n.payload, n.batched, n.attempts`,
    [claimId, now, organizationId, now, CLAIM_LIMIT],
  );
  return rows
    .map((r) => ({ id: String(r.id), seq: Number(r.seq), payload: String(r.payload), batched: r.batched === true || r.batched === 't', attempts: Number(r.attempts) }))
    .sort((a, b) => a.seq - b.seq);
}

/** The emails the claimed notices make: the held ones together, every other one alone; in the order they came. */
function emails(notices: Claimed[]): Claimed[][] {
  const held = notices.filter((n) => n.batched);
  const groups = notices.filter((n) => !n.batched).map((n) => [n]);
  if (held.length) groups.push(held);
  return groups.sort((a, b) => a[0]!.seq - b[0]!.seq);
}

async function markSent(sql: Sql, claimId: string, notices: Claimed[], now: Date): Promise<void> {
  await sql(`update email_notices set status = 'sent', sent_at = ?, last_error = null where claim_id = ? and status = 'sending' and ${IN_IDS}`, [now, claimId, ids(notices)]);
}

async function markCancelled(sql: Sql, claimId: string, notices: Claimed[], reason: string): Promise<void> {
  await sql(`update email_notices set status = 'cancelled', last_error = ? where claim_id = ? and status = 'sending' and ${IN_IDS}`, [reason, claimId, ids(notices)]);
}

/** A failed try: back to pending after the wait its attempt count earns, or `failed` after the last. */
async function markFailed(sql: Sql, claimId: string, notices: Claimed[], error: string, now: Date): Promise<void> {
  const byAttempts = Map.groupBy(notices, (n) => n.attempts);
  for (const [attempts, group] of byAttempts) {
    if (attempts >= MAX_ATTEMPTS) {
      await sql(`update email_notices set status = 'failed', claim_id = null, last_error = ? where claim_id = ? and status = 'sending' and ${IN_IDS}`, [error, claimId, ids(group)]);
    } else {
      const next = new Date(now.getTime() + RETRY_MINUTES[Math.min(attempts, RETRY_MINUTES.length) - 1]! * MINUTE);
      await sql(`update email_notices set status = 'pending', claim_id = null, send_after = ?, last_error = ? where claim_id = ? and status = 'sending' and ${IN_IDS}`, [next, error, claimId, ids(group)]);
    }
  }
}

/** Gives back, uncounted, claimed notices no email was attempted for (the job failed before sending them). */
async function unclaim(sql: Sql, claimId: string, notices: Claimed[]): Promise<void> {
  if (notices.length === 0) return;
  await sql(`update email_notices set status = 'pending', claim_id = null, attempts = attempts - 1 where claim_id = ? and status = 'sending' and ${IN_IDS}`, [claimId, ids(notices)]);
}

/** Mails what is due of one organization; answers how many emails the server accepted. */
export async function sendDueEmail(services: Services, organizationId: string): Promise<number> {
  const email = services.config.email;
  if (!email || !canMail(services)) return 0;
  const sql = readStore(services).execute;
  const now = services.clock.now();
  const claimId = randomUUID();
  const notices = await claim(sql, organizationId, claimId, now);
  if (notices.length === 0) return 0;
  const untouched = new Set(notices);
  const leave = (group: Claimed[]) => group.forEach((n) => untouched.delete(n));
  let accepted = 0;
  try {
    const { email_recipients: recipients } = await readNotificationSettings(services, sql, organizationId);
    const groups = emails(notices);
    if (recipients.length === 0) {
      leave(notices);
      await markCancelled(sql, claimId, notices, 'no email recipients were listed when it was due');
      return 0;
    }
    let unreachable: string | null = null;
    for (const group of groups) {
      if (unreachable !== null) {
        leave(group);
        await markFailed(sql, claimId, group, unreachable, now);
        continue;
      }
      const content = emailContent(group.map((n) => JSON.parse(n.payload)), services.config.publicUrl);
      leave(group); // from here the server may have it: never given back uncounted
      try {
        await transportFor(email.smtpUrl).sendMail({
          from: email.from, to: recipients, subject: content.subject, text: content.text, html: content.html,
          headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
        });
      } catch (error) {
        const reason = mailError(error, email.smtpUrl);
        services.log.warn({ organization_id: organizationId, notices: group.length, error: reason }, 'email notification not sent');
        await markFailed(sql, claimId, group, reason, now);
        services.metrics.attempt('email', 'failed');
        // no reply at all (connection, timeout): the rest of this run would fare the same
        if (typeof (error as { responseCode?: unknown })?.responseCode !== 'number') unreachable = reason;
        continue;
      }
      await markSent(sql, claimId, group, now);
      services.metrics.attempt('email', 'sent');
      accepted++;
    }
    return accepted;
  } finally {
    await unclaim(sql, claimId, [...untouched]);
  }
}

function organizationOf(job: Job): string {
  const id = (job.data as { organization_id?: unknown } | null)?.organization_id;
  if (typeof id !== 'string') throw new Error('an email send job needs organization_id');
  return id;
}

export const emailSendJob: JobHandler = {
  queue: EMAIL_QUEUE,
  concurrency: 2,
  // a failed send is rescheduled on its notices, not by the queue; a retry here covers a database failure
  retryLimit: 2,
  retryDelay: 30,
  expireInSeconds: 600,
  async handle(job, services) {
    await sendDueEmail(services, organizationOf(job));
  },
};
