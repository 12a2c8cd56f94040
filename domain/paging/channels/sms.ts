/**
 * SMS through Twilio: `POST /2010-04-01/Accounts/<sid>/Messages.json` (form: To, From or MessagingServiceSid, Body,
 * StatusCallback), answered 201 with the message's `sid`. The text is short: the alert title(s) and "Reply <code> to
 * acknowledge" (twilio-pages.ts keeps the code; webhooks/paging/twilio-sms.ts reads the reply). Twilio's status
 * callbacks for it go to /paging/twilio/status. Verification codes are texts too.
 */
import type { Channel, PageMessage } from './channel.ts';
import { newTwilioPage, settleTwilioPage } from '../twilio-pages.ts';
import { cannotSendCode, noSmsProvider, TWILIO_PATHS, twilioAccount, twilioPost, twilioWebhookUrl, type TwilioAccount } from './twilio-client.ts';

/**
 * At most 5 texts (and, for voice, 5 calls) per method in 15 minutes; beyond it the engine sends one summary when the
 * window ends. The figure is the suggestion, in the spirit of GoAlert's per-method throttle: enough for a
 * burst of separate alerts, few enough that a flapping check does not buzz a phone every minute.
 */
export const TWILIO_LIMIT = { messages: 5, perMinutes: 15 };
/** titles beyond this are cut: one SMS segment is 160 GSM characters, and a page should fit in about two */
const TITLES_MAX = 200;

export function smsBody(message: PageMessage, replyCode: string | null): string {
  const n = message.alerts.length;
  let titles = message.alerts.map((a) => a.title).join('; ');
  if (titles.length > TITLES_MAX) titles = `${titles.slice(0, TITLES_MAX - 1)}…`;
  const head = n > 1 ? `Vigil: ${n} alerts: ${titles}` : `Vigil: ${titles}`;
  return replyCode ? `${head}. Reply ${replyCode} to acknowledge.` : head;
}

export function fromField(account: TwilioAccount, form: URLSearchParams): void {
  if (account.from.startsWith('MG')) form.set('MessagingServiceSid', account.from);
  else form.set('From', account.from);
}

export const smsChannel: Channel = {
  type: 'sms',
  limit: TWILIO_LIMIT,
  async send({ services, now }, to, message) {
    const account = await twilioAccount(services, message.organizationId);
    if (!account) return { status: 'failed', reason: 'twilio_not_configured: no Twilio account (an org admin saves twilio_account_sid, twilio_auth_token and twilio_from, or the operator sets VIGIL_TWILIO_*)' };
    const page = message.userId
      ? await newTwilioPage(services, { kind: 'sms', accountSid: account.accountSid, organizationId: message.organizationId, userId: message.userId, bundleId: message.bundleId, to: to.address, alertIds: message.alerts.map((a) => a.id) }, now)
      : null;
    const form = new URLSearchParams({ To: to.address, Body: smsBody(message, page?.replyCode ?? null), StatusCallback: twilioWebhookUrl(services, TWILIO_PATHS.status) });
    fromField(account, form);
    const result = await twilioPost(services, account, 'Messages', form, 'twilio sms page', [to.address]);
    if (page) await settleTwilioPage(services, page.id, result.status === 'sent' ? result.providerId : undefined);
    return result;
  },
  configured: async (services, organizationId, store) => (await twilioAccount(services, organizationId, store)) !== null,
  async sendVerification({ services, store, organizationId }, message) {
    const account = await twilioAccount(services, organizationId, store);
    if (!account) throw noSmsProvider('sms');
    const form = new URLSearchParams({ To: message.address, Body: `Your Vigil verification code for ${message.name.slice(0, 40)} is ${message.code}. It expires in ${message.minutes} minutes.` });
    fromField(account, form);
    const result = await twilioPost(services, account, 'Messages', form, 'twilio sms verification', [message.address]);
    if (result.status !== 'sent') throw cannotSendCode('sms', result.reason ?? 'Twilio did not accept it');
  },
};
