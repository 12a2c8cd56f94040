/**
 * `POST /paging/twilio/status`: Twilio's status callbacks for the texts and calls pages sent (the StatusCallback each
 * request names): `MessageSid` and `MessageStatus` (queued, sent, delivered, undelivered, failed…) or `CallSid` and
 * `CallStatus` (initiated, ringing, in-progress, completed, busy, no-answer, failed…), with `ErrorCode` on a failure.
 * Signed (twilio-signed.ts); recorded on the page's alerts' timelines (domain/paging/delivery-status.ts). A SID Vigil
 * did not send answers 200 and records nothing (Twilio would only retry).
 */
import Router from '@koa/router';
import type { Services } from '../../engine/services.ts';
import { TWILIO_PATHS } from '../../domain/paging/channels/twilio-client.ts';
import { recordDeliveryStatus } from '../../domain/paging/delivery-status.ts';
import { formOf, twilioForm, twilioSigned } from './twilio-signed.ts';

const STATUS = /^[a-z-]{1,30}$/;
const SID = /^(SM|MM|CA)[0-9a-fA-F]{32}$/;

export function twilioStatusRoutes(services: Services): Router {
  const router = new Router();
  router.post(TWILIO_PATHS.status, twilioForm, twilioSigned(services), async (ctx) => {
    const form = formOf(ctx);
    const call = form.CallSid && form.CallStatus && !form.MessageSid;
    const sid = call ? form.CallSid : form.MessageSid ?? form.SmsSid;
    const status = call ? form.CallStatus : form.MessageStatus ?? form.SmsStatus;
    if (!sid || !SID.test(sid) || !status || !STATUS.test(status)) {
      ctx.status = 400;
      ctx.body = { error: 'bad_request', message: `${call ? 'CallStatus' : 'MessageSid and MessageStatus'} are required` };
      return;
    }
    const reason = form.ErrorCode && /^[0-9]{1,6}$/.test(form.ErrorCode) ? `Twilio error ${form.ErrorCode}` : undefined;
    const recorded = await recordDeliveryStatus(services, call ? 'voice' : 'sms', sid, { status, ...(reason ? { reason } : {}) });
    ctx.status = 200;
    ctx.body = { status: recorded ? 'recorded' : 'ignored', message: recorded ? 'Recorded on the alerts\' timelines.' : 'No page of Vigil\'s has this SID; nothing was recorded.' };
  });
  return router;
}
