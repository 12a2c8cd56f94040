/**
 * A provider's later report on a page it accepted (a Twilio status callback: queued, sent, delivered, undelivered,
 * failed; a call's initiated, ringing, in-progress, completed, busy, no-answer…), recorded as a `notified` effect
 * with `delivery` on each alert of the page, so the alert's timeline (and its incident's) shows whether the text
 * arrived or the call was answered. Answers false when no page of that channel carries that provider id (a callback
 * for something else: nothing recorded). The paging-dispatch branch has a function of the same name and signature
 * over the engine's notification rows; this one reads the Twilio pages (twilio-pages.ts) the channels keep.
 */
import type { ContactType } from '../../resources/contact_methods.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { recordEffects } from './effects.ts';
import { pageBySid } from './twilio-pages.ts';

export async function recordDeliveryStatus(
  services: Services, channel: ContactType, providerId: string, delivery: { status: string; reason?: string },
): Promise<boolean> {
  const page = await pageBySid(services, providerId);
  if (!page || page.kind !== channel) return false;
  const now = services.clock.now();
  await inTransaction(services, (store) => recordEffects(store.execute, now, page.alertIds.map((alertId) => ({
    organizationId: page.organizationId, alertId, kind: 'notified' as const,
    detail: {
      status: 'delivery', channel, delivery: delivery.status, ...(delivery.reason ? { reason: delivery.reason } : {}),
      provider_id: providerId, bundle_id: page.bundleId, user_id: page.userId,
    },
  }))));
  return true;
}
