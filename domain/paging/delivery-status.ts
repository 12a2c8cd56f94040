/**
 * A provider's later report on a page it accepted (a Twilio status callback: queued, sent, delivered, undelivered,
 * failed; a call's initiated, ringing, in-progress, completed, busy, no-answer…): the one place it is recorded, on the
 * message (its paging_bundles row's `delivery`) and as a `notified` effect with status `delivery` on each alert of the
 * message, so the alert's timeline (and its incident's) shows whether the text arrived or the call was answered.
 *
 * The message is found by the provider's id on the bundle (recorded once the channel answered), or, for a Twilio
 * page, by the SID its twilio-pages.ts row keeps: Twilio may call back before the engine has recorded the channel's
 * answer, and that row is written by the channel before it returns. A page without notification rows (a channel
 * called outside the engine) is recorded on the alerts its Twilio row names. Answers false when no page of that
 * channel carries that id (a callback for something else: nothing recorded).
 */
import type { ContactType } from '../../resources/contact_methods.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { notified, type Claimed } from './dispatch.ts';
import { recordEffects } from './effects.ts';
import { BUNDLES, NOTIFICATIONS } from './escalation-entities.ts';
import { pageBySid } from './twilio-pages.ts';

export async function recordDeliveryStatus(
  services: Services, channel: ContactType, providerId: string, delivery: { status: string; reason?: string },
): Promise<boolean> {
  const now = services.clock.now();
  const twilio = channel === 'sms' || channel === 'voice' ? await pageBySid(services, providerId) : null;
  const page = twilio?.kind === channel ? twilio : null;
  return inTransaction(services, async (store) => {
    const [bundle] = page
      ? await store.execute(`update ${BUNDLES} set delivery = ? where id = ? returning id`, [delivery.status, page.bundleId])
      : await store.execute(`update ${BUNDLES} set delivery = ? where channel = ? and provider_id = ? returning id`, [delivery.status, channel, providerId]);
    if (!bundle && !page) return false;
    const detail = { status: 'delivery', delivery: delivery.status, ...(delivery.reason ? { reason: delivery.reason } : {}), provider_id: providerId };
    const rows = bundle ? (await store.execute(`select * from ${NOTIFICATIONS} where bundle_id = ?`, [bundle.id])) as unknown as Claimed[] : [];
    if (rows.length) {
      await recordEffects(store.execute, now, rows.map((n) => notified(n, { ...detail, bundle_id: String(bundle!.id) })));
    } else if (page) {
      await recordEffects(store.execute, now, page.alertIds.map((alertId) => ({
        organizationId: page.organizationId, alertId, kind: 'notified' as const,
        detail: { ...detail, channel, bundle_id: page.bundleId, user_id: page.userId },
      })));
    }
    return true;
  });
}
