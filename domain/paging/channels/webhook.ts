/**
 * Webhook: the page as JSON POSTed to the person's https URL, signed exactly like outbound deliveries (Standard
 * Webhooks: `webhook-id` = the page's bundle id, so a receiver de-duplicates a page sent again; `webhook-timestamp`;
 * `webhook-signature` with the organization's `webhook_signing_secret`, absent when none is set). The body names the
 * alerts, the person, the urgency and the page's one-time `acknowledge_url` / `resolve_url`: a receiver acknowledges
 * by POSTing to acknowledge_url. Any 2xx is sent; anything else is failed, with the status.
 */
import { standardWebhookHeaders } from '../../../engine/standard-webhooks.ts';
import type { Channel, PageMessage } from './channel.ts';
import { providerCall, refusal } from './provider-call.ts';
import { providerAccounts } from './providers.ts';

/** The JSON a webhook page carries (documented in docs/paging.md, "Webhook"). */
export function webhookPage(message: PageMessage, now: Date) {
  return {
    type: 'page',
    page_id: message.bundleId,
    sent_at: now.toISOString(),
    urgency: message.urgency,
    person: { user_id: message.userId, email: message.email },
    subject: message.subject,
    text: message.text,
    alerts: message.alerts.map((a) => ({ id: a.id, title: a.title, severity: a.severity, incident_id: a.incidentId, url: a.url })),
    acknowledge_url: message.acknowledgeUrl,
    resolve_url: message.resolveUrl,
  };
}

export const webhookChannel: Channel = {
  type: 'webhook',
  async send({ services, now }, to, message) {
    const body = JSON.stringify(webhookPage(message, now));
    const { webhookSigningSecret } = await providerAccounts(services, message.organizationId);
    const called = await providerCall(services, 'the webhook receiver', {
      url: to.address,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vigil-Paging/1', ...standardWebhookHeaders(webhookSigningSecret, message.bundleId, now, body) },
      body,
      maxResponseBytes: 4096,
      purpose: 'webhook page',
    });
    if ('failed' in called) return called.failed;
    const { status } = called.response;
    if (status >= 300 && status < 400) return refusal('the webhook receiver', status, 'a redirect, which a page does not follow');
    if (status < 200 || status >= 300) return refusal('the webhook receiver', status);
    return { status: 'sent', providerId: message.bundleId };
  },
};
