/**
 * Pushover: `POST <api>/1/messages.json` (form: token, user, title, message, url, url_title, priority;
 * pushover.net/api). A high-urgency page is an emergency (priority 2): Pushover repeats it every `retry` seconds
 * until the person acknowledges it in the app or `expire` passes, and then calls the page's `callback` URL
 * (pushover-receipts.ts: a token per page; the callback acts only once the receipts API confirms). A low-urgency
 * page is normal priority (0), its link the page's acknowledge link. The application token is the organization's
 * (`pushover_app_token`), else the operator's (`VIGIL_PUSHOVER_APP_TOKEN`). The providerId is the receipt of an
 * emergency, the request id otherwise.
 */
import { newCallback, settleCallback } from '../pushover-receipts.ts';
import type { Channel } from './channel.ts';
import { jsonOf, providerCall, refusal } from './provider-call.ts';
import { DEFAULT_PUSHOVER_API } from './pushover-config.ts';
import { providerAccounts } from './providers.ts';
import type { FamilyStore } from '../../../engine/persistence/store.ts';
import type { Services } from '../../../engine/services.ts';

/** an emergency is repeated every minute (Pushover's floor is 30 s) for an hour (its ceiling is 3 hours) */
export const EMERGENCY_RETRY_SECONDS = 60;
export const EMERGENCY_EXPIRE_SECONDS = 3600;
/** Pushover's limits: title 250, message 1,024, url 512, url_title 100 characters */
const LIMITS = { title: 250, message: 1024, url: 512, urlTitle: 100 };
const RECEIPT = /^[A-Za-z0-9]{1,64}$/;

export function pushoverApi(services: Services, path: string): string {
  return `${(services.config.pushover?.apiUrl ?? DEFAULT_PUSHOVER_API).replace(/\/+$/, '')}${path}`;
}

/** The application token pages are sent as: the organization's, else the operator's. */
export async function pushoverAppToken(services: Services, organizationId: string, store?: Pick<FamilyStore, 'execute'>): Promise<string | null> {
  return (await providerAccounts(services, organizationId, store)).pushoverAppToken ?? services.config.pushover?.appToken ?? null;
}

/** Pushover's own error sentences (`errors`), with anything of the request that they could echo taken out. */
function errorsOf(answer: Record<string, unknown> | null, secrets: string[]): string | undefined {
  if (!answer || !Array.isArray(answer.errors)) return undefined;
  let text = answer.errors.filter((e): e is string => typeof e === 'string').join('; ').slice(0, 200);
  for (const secret of secrets) text = text.replaceAll(secret, '(removed)');
  return text || undefined;
}

export const pushoverChannel: Channel = {
  type: 'pushover',
  configured: async (services, organizationId, store) => (await pushoverAppToken(services, organizationId, store)) !== null,
  async send({ services, now }, to, message) {
    const token = await pushoverAppToken(services, message.organizationId);
    if (!token) return { status: 'failed', reason: 'pushover_not_configured: no Pushover application token (an org admin sets pushover_app_token, or the operator VIGIL_PUSHOVER_APP_TOKEN)' };
    const emergency = message.urgency === 'high';
    const open = message.alerts.find((a) => a.url)?.url ?? null;
    // an emergency is acknowledged in the app; a normal push links to the page's acknowledge link
    const link = emergency ? (open ? { url: open, title: 'Open in Vigil' } : null) : message.acknowledgeUrl ? { url: message.acknowledgeUrl, title: 'Acknowledge' } : open ? { url: open, title: 'Open in Vigil' } : null;
    const callback = emergency && message.userId
      ? await newCallback(services, { organizationId: message.organizationId, userId: message.userId, bundleId: message.bundleId, alertIds: message.alerts.map((a) => a.id) }, now)
      : null;
    const form = new URLSearchParams({
      token, user: to.address, title: message.subject.slice(0, LIMITS.title), message: message.text.slice(0, LIMITS.message), priority: emergency ? '2' : '0',
    });
    if (link && link.url.length <= LIMITS.url) {
      form.set('url', link.url);
      form.set('url_title', link.title.slice(0, LIMITS.urlTitle));
    }
    if (emergency) {
      form.set('retry', String(EMERGENCY_RETRY_SECONDS));
      form.set('expire', String(EMERGENCY_EXPIRE_SECONDS));
      if (callback) form.set('callback', callback.url);
    }
    const called = await providerCall(services, 'Pushover', {
      url: pushoverApi(services, '/1/messages.json'),
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Vigil-Paging/1' },
      body: form.toString(),
      purpose: 'pushover page',
    });
    const answer = 'response' in called ? jsonOf(called.response) : null;
    const ok = 'response' in called && called.response.status === 200 && answer?.status === 1;
    const receipt = ok && typeof answer?.receipt === 'string' && RECEIPT.test(answer.receipt) ? answer.receipt : null;
    if (callback) await settleCallback(services, callback.tokenHash, receipt);
    if ('failed' in called) return called.failed;
    if (!ok) {
      const status = called.response.status;
      return refusal('Pushover', status, errorsOf(answer, [token, to.address]) ?? (status === 429 ? 'the application is over its message limit' : undefined));
    }
    const request = typeof answer?.request === 'string' && answer.request.length <= 64 ? answer.request : undefined;
    const providerId = receipt ?? request;
    return { status: 'sent', ...(providerId ? { providerId } : {}) };
  },
};
