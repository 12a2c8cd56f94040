/**
 * What Twilio's three inbound requests share (twilio-sms.ts, twilio-voice.ts, twilio-status.ts): the form Twilio
 * posts, checked against X-Twilio-Signature over the public URL Twilio called (services.config.publicUrl and the
 * request's path and query: behind a proxy that rewrites the path, the signature cannot match, see docs/paging.md)
 * with the auth token of the account the form names (`AccountSid`: an organization's that saved it, else the
 * operator's). Unsigned, wrongly signed or naming an account Vigil does not hold: 403, nothing changed.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import type { Services } from '../../engine/services.ts';
import { signedByTwilio, tokensForAccount, twilioWebhookUrl } from '../../domain/paging/channels/twilio-client.ts';

export const twilioForm = bodyParser({ enableTypes: ['form'], formLimit: '32kb' });

/** The form's fields as strings (Twilio posts each once; a repeated field keeps its last value). */
export function formOf(ctx: Context): Record<string, string> {
  const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string') form[key] = value;
    else if (Array.isArray(value) && typeof value.at(-1) === 'string') form[key] = value.at(-1) as string;
  }
  return form;
}

/** Middleware: 403 unless the request is signed by the account it names. */
export function twilioSigned(services: Services) {
  return async (ctx: Context, next: Next) => {
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    const accountSid = typeof body.AccountSid === 'string' ? body.AccountSid : '';
    const tokens = accountSid ? await tokensForAccount(services, accountSid) : [];
    const signature = ctx.get('x-twilio-signature') || undefined;
    if (!signedByTwilio(tokens, signature, twilioWebhookUrl(services, ctx.originalUrl), body as Record<string, string>)) {
      ctx.status = 403;
      ctx.body = { error: 'forbidden', message: 'This request does not carry a valid X-Twilio-Signature for the account it names; nothing was changed.' };
      return;
    }
    await next();
  };
}

/** Answers TwiML. */
export function answerTwiml(ctx: Context, xml: string): void {
  ctx.status = 200;
  ctx.type = 'text/xml';
  ctx.body = xml;
}
