/**
 * Email notifications: each event whose kind's `notification_settings.channels` include `email` becomes one
 * `email_notices` row, written through the caller's open transaction (so it commits with the change that caused
 * it), due now, at the next digest time, or at the end of quiet hours (email-schedule.ts). A notice due now is
 * queued at once (a job in the same transaction); a later one waits for the release pass (email-release.ts). The
 * send job (email-send.ts) mails everything due of one organization. Without outgoing mail configured
 * (`VIGIL_SMTP_URL`) nothing is recorded: there would be no way to send it.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { OutboundEvent } from '../events.ts';
import { envelope } from '../render/envelope.ts';
import { sendTime } from './schedule.ts';
import { readNotificationSettings } from '../preferences/notification-settings.ts';

/** The queue of the send job: one job mails what is due of one organization. */
export const EMAIL_QUEUE = 'email.send';

/** The release pass's key: one job per organization and due time, a second send while the first is queued is absorbed. */
export const emailJobKey = (organizationId: string, due: Date) => `${organizationId}/${due.toISOString()}`;

/** Whether this instance can mail: outgoing mail is configured and the send job is served. */
export const canMail = (services: Services) => Boolean(services.config.email?.smtpUrl) && services.jobs?.queues.includes(EMAIL_QUEUE) === true;

export async function enqueueEmailNotices(services: Services, store: { execute: Sql }, organizationId: string, events: OutboundEvent[], now: Date): Promise<void> {
  if (events.length === 0 || !canMail(services)) return;
  const settings = await readNotificationSettings(services, store.execute, organizationId);
  if (settings.email_recipients.length === 0) return;
  const mailed = events.filter((e) => settings.channels[e.type]?.includes('email'));
  if (mailed.length === 0) return;
  const { sendAfter, batched } = sendTime(settings, now);
  await store.execute(
    `insert into email_notices (id, organization_id, event_id, event_type, subject_id, payload, created_at, send_after, batched, status, attempts)
     values ${mailed.map(() => `(?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0)`).join(', ')}`,
    mailed.flatMap((e) => [randomUUID(), organizationId, e.id, e.type, e.subjectId, envelope(e, organizationId), now, sendAfter, batched]),
  );
  if (sendAfter.getTime() <= now.getTime()) {
    // a job of its own (no singleton key): a queued job of the same key could start before this commits and miss it
    await services.jobs.send(EMAIL_QUEUE, { organization_id: organizationId }, { store });
  }
}
