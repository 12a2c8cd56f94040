/**
 * Voice through Twilio: `POST /2010-04-01/Accounts/<sid>/Calls.json` (form: To, From, Twiml, StatusCallback,
 * StatusCallbackEvent), answered 201 with the call's `sid`. The TwiML is passed inline: it says the alert(s) inside a
 * `<Gather numDigits="1">` whose action is Vigil's URL with a token of its own per call (twilio-pages.ts), where
 * webhooks/paging/twilio-voice.ts turns 1 into acknowledge and 2 into resolve. A call cannot come from a Messaging
 * Service: the account's `from` must be a number. Verification codes are calls that say the digits twice.
 */
import type { Channel, PageMessage } from './channel.ts';
import { newTwilioPage, settleTwilioPage } from '../twilio-pages.ts';
import { TWILIO_LIMIT } from './sms.ts';
import { cannotSendCode, noSmsProvider, TWILIO_PATHS, twilioAccount, twilioPost, twilioWebhookUrl, twiml } from './twilio-client.ts';

/** what is said is cut to this: Twilio takes at most 4,000 characters of inline TwiML */
const SPOKEN_MAX = 600;
const NOT_A_NUMBER = 'a Messaging Service (MG…) cannot place calls: set twilio_from (or VIGIL_TWILIO_FROM) to a number';

export function callTwiml(message: PageMessage, gatherUrl: string | null): string {
  const n = message.alerts.length;
  let titles = message.alerts.map((a) => `${a.severity} alert: ${a.title}`).join('. ');
  if (titles.length > SPOKEN_MAX) titles = titles.slice(0, SPOKEN_MAX);
  const said = `This is Vigil. ${n > 1 ? `${n} alerts. ` : ''}${titles}.`;
  const response = new twiml.VoiceResponse();
  if (gatherUrl) {
    const gather = response.gather({ numDigits: 1, action: gatherUrl, method: 'POST', timeout: 10 });
    gather.say(`${said} Press 1 to acknowledge, or 2 to resolve.`);
    response.say('No key was pressed. Goodbye.');
  } else {
    response.say(`${said} Open Vigil to acknowledge.`);
  }
  return response.toString();
}

export const voiceChannel: Channel = {
  type: 'voice',
  limit: TWILIO_LIMIT,
  async send({ services, now }, to, message) {
    const account = await twilioAccount(services, message.organizationId);
    if (!account) return { status: 'failed', reason: 'twilio_not_configured: no Twilio account (an org admin saves twilio_account_sid, twilio_auth_token and twilio_from, or the operator sets VIGIL_TWILIO_*)' };
    if (account.from.startsWith('MG')) return { status: 'failed', reason: NOT_A_NUMBER };
    const page = message.userId
      ? await newTwilioPage(services, { kind: 'voice', accountSid: account.accountSid, organizationId: message.organizationId, userId: message.userId, bundleId: message.bundleId, to: to.address, alertIds: message.alerts.map((a) => a.id) }, now)
      : null;
    const gatherUrl = page?.gatherToken ? twilioWebhookUrl(services, `${TWILIO_PATHS.voice}/${page.gatherToken}`) : null;
    const form = new URLSearchParams({ To: to.address, From: account.from, Twiml: callTwiml(message, gatherUrl), StatusCallback: twilioWebhookUrl(services, TWILIO_PATHS.status) });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    const result = await twilioPost(services, account, 'Calls', form, 'twilio voice page', [to.address]);
    if (page) await settleTwilioPage(services, page.id, result.status === 'sent' ? result.providerId : undefined);
    return result;
  },
  configured: async (services, organizationId, store) => (await twilioAccount(services, organizationId, store)) !== null,
  async sendVerification({ services, store, organizationId }, message) {
    const account = await twilioAccount(services, organizationId, store);
    if (!account) throw noSmsProvider('voice');
    if (account.from.startsWith('MG')) throw cannotSendCode('voice', NOT_A_NUMBER);
    const digits = message.code.split('').join(', ');
    const response = new twiml.VoiceResponse();
    response.say(`Your Vigil verification code is ${digits}. Again: ${digits}. It expires in ${message.minutes} minutes.`);
    const form = new URLSearchParams({ To: message.address, From: account.from, Twiml: response.toString() });
    const result = await twilioPost(services, account, 'Calls', form, 'twilio voice verification', [message.address]);
    if (result.status !== 'sent') throw cannotSendCode('voice', result.reason ?? 'Twilio did not accept it');
  },
};
