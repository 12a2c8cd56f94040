/**
 * `POST /paging/twilio/voice/<token>`: the `<Gather numDigits="1">` action of a voice page (form `AccountSid`,
 * `CallSid`, `Digits`…; the token is the call's own, domain/paging/twilio-pages.ts). Signed (twilio-signed.ts), and
 * the call must be the page's. 1 acknowledges, 2 resolves the page's alerts as the paged person (actOnPage: credential
 * kind `page`, transport `voice`); the answer is TwiML `<Say>` saying what happened. Any other key, a page answered
 * already or a person no longer a member: said, nothing changed. An unknown token: 404.
 */
import Router from '@koa/router';
import type { Services } from '../../engine/services.ts';
import { actOnPage, pagedPerson } from '../../domain/alerts/page-actions.ts';
import { TWILIO_PATHS, twiml } from '../../domain/paging/channels/twilio-client.ts';
import { claimTwilioPage, pageByGatherToken } from '../../domain/paging/twilio-pages.ts';
import { answerTwiml, formOf, twilioForm, twilioSigned } from './twilio-signed.ts';

export function twilioVoiceRoutes(services: Services): Router {
  const router = new Router();
  router.post(`${TWILIO_PATHS.voice}/:token`, twilioForm, twilioSigned(services), async (ctx) => {
    const form = formOf(ctx);
    const token = String(ctx.params.token ?? '');
    const page = token.length <= 100 ? await pageByGatherToken(services, token) : null;
    if (!page || page.accountSid !== form.AccountSid || (form.CallSid && page.sid !== form.CallSid)) {
      ctx.status = 404;
      ctx.body = { error: 'not_found', message: 'No voice page has this address and call.' };
      return;
    }
    const say = (text: string) => {
      const response = new twiml.VoiceResponse();
      response.say(text);
      answerTwiml(ctx, response.toString());
    };
    const action = form.Digits === '1' ? 'acknowledge' : form.Digits === '2' ? 'resolve' : null;
    if (!action) return say('That key does nothing. Nothing was changed. Goodbye.');
    if (page.acted) return say('This page was answered already. Nothing was changed. Goodbye.');
    const caller = await pagedPerson(services, page.organizationId, page.userId, 'voice', page.sid ?? page.id);
    if (!caller) return say('You are no longer a member of the organization this page was from. Nothing was changed. Goodbye.');
    if (!(await claimTwilioPage(services, page.id, services.clock.now()))) return say('This page was answered already. Nothing was changed. Goodbye.');
    const result = await actOnPage(services, caller, page.alertIds, action);
    const verb = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    say(result.refused.length
      ? `${result.done.length} alert${result.done.length === 1 ? '' : 's'} ${verb}; ${result.refused.length} could not be. Goodbye.`
      : `${result.done.length === 1 ? 'The alert is' : `${result.done.length} alerts are`} ${verb}. Goodbye.`);
  });
  return router;
}
