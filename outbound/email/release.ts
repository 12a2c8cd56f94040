/**
 * The email side of the release pass (tick.ts): queues one send job for every organization with notices due by
 * `now` (quiet hours ended, digest time, a retry's wait over), keyed by organization and earliest due time so
 * passes that meet a job still queued add none. It also ends claims left by a send that never finished (its
 * instance stopped): those notices are `failed` rather than sent again, since the server may have taken them.
 */
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { canMail, EMAIL_QUEUE, emailJobKey } from './notices.ts';

/** longer than any one send job may run (its expiry), so a live send is never taken for a dead one */
export const STALE_CLAIM_MINUTES = 30;
const MINUTE = 60_000;

export async function releaseDueEmail(services: Services, now: Date): Promise<void> {
  if (!canMail(services)) return;
  const sql = readStore(services).execute;
  await sql(
    `update email_notices set status = 'failed', claim_id = null,
            last_error = 'the send was interrupted before the SMTP server answered; not sent again, as it may have been delivered'
      where status = 'sending' and claimed_at < ?`,
    [new Date(now.getTime() - STALE_CLAIM_MINUTES * MINUTE)],
  );
  const due = await sql(
    `select e.organization_id, min(e.send_after) as due from email_notices e
       join organizations o on o.id = e.organization_id and not o.disabled
      where e.status = 'pending' and e.send_after <= ?
      group by e.organization_id`,
    [now],
  );
  for (const row of due) {
    const organizationId = String(row.organization_id);
    const at = row.due instanceof Date ? row.due : new Date(String(row.due));
    await services.jobs.send(EMAIL_QUEUE, { organization_id: organizationId }, { singletonKey: emailJobKey(organizationId, at) });
  }
}
