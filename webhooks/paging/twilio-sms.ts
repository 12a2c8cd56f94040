/**
 * `POST /paging/twilio/sms`: a text to the Twilio number (the number's "A message comes in" webhook in Twilio's
 * console; form `AccountSid`, `From`, `To`, `Body`). Signed (twilio-signed.ts). A reply with a page's code, or "ACK"
 * or "1" for the latest open page to that number, acknowledges the page's alerts as the paged person (actOnPage:
 * credential kind `page`, transport `sms`); "RES <code>" resolves them. The answer is TwiML `<Message>` saying what
 * happened. An unknown number or code, a used code, or a person no longer a member: a polite message, nothing changed.
 */
import Router from '@koa/router';
import type { Services } from '../../engine/services.ts';
import { actOnPage, pagedPerson, type PageAction } from '../../domain/alerts/page-actions.ts';
import { TWILIO_PATHS, twiml } from '../../domain/paging/channels/twilio-client.ts';
import { claimTwilioPage, pageForReply } from '../../domain/paging/twilio-pages.ts';
import { answerTwiml, formOf, twilioForm, twilioSigned } from './twilio-signed.ts';

/** what a reply may say: a code, ACK/1 (the latest page), or RES and a code to resolve */
function readReply(body: string): { action: PageAction; code: string | null } | null {
  const text = body.trim().toUpperCase().replace(/\s+/g, ' ');
  if (/^[0-9]{4}$/.test(text)) return { action: 'acknowledge', code: text };
  if (text === 'ACK' || text === '1' || text === 'ACKNOWLEDGE') return { action: 'acknowledge', code: null };
  const resolve = /^(?:RES|RESOLVE) ([0-9]{4})$/.exec(text);
  if (resolve) return { action: 'resolve', code: resolve[1]! };
  return null;
}

export function twilioSmsRoutes(services: Services): Router {
  const router = new Router();
  router.post(TWILIO_PATHS.sms, twilioForm, twilioSigned(services), async (ctx) => {
    const form = formOf(ctx);
    const say = (text: string) => {
      const response = new twiml.MessagingResponse();
      response.message(text);
      answerTwiml(ctx, response.toString());
    };
    const reply = readReply(form.Body ?? '');
    if (!reply) return say('Vigil: reply with the code in the page to acknowledge it (or ACK for the latest page; RES and the code to resolve).');
    const page = await pageForReply(services, form.AccountSid!, form.From ?? '', reply.code);
    if (!page) return say(reply.code ? `Vigil: no page to this number has the code ${reply.code}; nothing was changed.` : 'Vigil: no open page to this number; nothing was changed.');
    if (page.acted) return say('Vigil: that page was answered already; nothing was changed.');
    const caller = await pagedPerson(services, page.organizationId, page.userId, 'sms', page.sid ?? page.id);
    if (!caller) return say('Vigil: you are no longer a member of the organization this page was from; nothing was changed.');
    if (!(await claimTwilioPage(services, page.id, services.clock.now()))) return say('Vigil: that page was answered already; nothing was changed.');
    const result = await actOnPage(services, caller, page.alertIds, reply.action);
    const verb = reply.action === 'acknowledge' ? 'Acknowledged' : 'Resolved';
    say(`Vigil: ${verb} ${result.done.length} alert(s)${result.refused.length ? `; ${result.refused.length} not: ${result.refused.map((r) => r.reason).join('; ').slice(0, 200)}` : ''}.`);
  });
  return router;
}
