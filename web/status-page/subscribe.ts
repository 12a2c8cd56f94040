/**
 * Subscribing to a public status page by email, with no credential and no JavaScript: raw routes (the forms post
 * application/x-www-form-urlencoded, read before the API's JSON-only check).
 *
 * - `POST /status/<slug>/subscribe` (`email`): always the same answer for a well-formed address (a confirmation is
 *   on its way, or was not needed, or was sent within the last minutes: the answer never tells which); a malformed
 *   one is a 400 naming `email`; past SUBSCRIBE_LIMIT requests from one client address, 429 with Retry-After. No CSRF token: the double opt-in makes a forged request cost one confirmation mail.
 * - `GET /status/<slug>/confirm?token=` shows a button; its `POST` confirms (a mail scanner following links confirms nothing).
 * - `GET /status/<slug>/unsubscribe?token=` shows a button; `POST` to the same URL unsubscribes: the one-click POST
 *   of RFC 8058 (`List-Unsubscribe=One-Click` in the body, the token in the URL) or the button's form.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { publishedPage, type PublishedPage } from '../../domain/status-page/page.ts';
import { CONFIRM_HOURS, confirm, emailError, subscribe, unsubscribe } from '../../domain/status-page/subscribers.ts';
import type { CredentialLimiter } from '../../engine/http/rate-limit.ts';
import { clientOf } from '../../engine/http/client-address.ts';
import type { Services } from '../../engine/services.ts';
import { FormError, readForm } from '../console/http.ts';
import { NOT_FOUND_HTML, renderMessagePage, sendMessagePage as send } from './html.ts';


async function form(ctx: Context): Promise<Record<string, string> | null> {
  try {
    return await readForm(ctx);
  } catch (error) {
    if (!(error instanceof FormError)) throw error;
    send(ctx, error.status, renderMessagePage('Not sent', [error.message]));
    return null;
  }
}

/** The page or the one 404. */
async function pageOf(services: Services, ctx: Context): Promise<PublishedPage | null> {
  const page = await publishedPage(services, String(ctx.params.slug));
  if (!page) send(ctx, 404, NOT_FOUND_HTML);
  return page;
}

const tokenOf = (ctx: Context, body?: Record<string, string>) => (typeof ctx.query.token === 'string' ? ctx.query.token : body?.token);

export function subscribeRoutes(services: Services, limiter?: CredentialLimiter): Router {
  const router = new Router();
  router.post('/status/:slug/subscribe', async (ctx) => {
    const page = await pageOf(services, ctx);
    if (!page) return;
    const body = await form(ctx);
    if (!body) return;
    // well-formed addresses count against the client (a malformed one stores and mails nothing)
    const wait = limiter && !emailError(body.email) ? (await limiter.take(`address:${clientOf(ctx.ip)}`)).retryAfter : null;
    if (wait !== null) {
      ctx.set('Retry-After', String(wait));
      return send(ctx, 429, renderMessagePage('Too many requests', [`This address has asked for too many subscriptions; try again in ${Math.ceil(wait / 60)} minute(s).`]));
    }
    const result = await subscribe(services, page, body.email);
    if (result === 'unavailable') return send(ctx, 409, renderMessagePage('Subscriptions are not offered', [`${page.title} does not send email updates.`]));
    if (typeof result === 'object') return send(ctx, 400, renderMessagePage('Check the address', [`email ${result.message}.`]));
    send(ctx, 200, renderMessagePage('Check your inbox', [
      `If the address can receive mail, a message with a confirmation link is on its way. The link works for ${CONFIRM_HOURS} hours.`,
      `Nothing is sent about ${page.title} until you confirm.`,
    ]));
  });

  router.get('/status/:slug/confirm', async (ctx) => {
    const page = await pageOf(services, ctx);
    if (!page) return;
    send(ctx, 200, renderMessagePage(`Subscribe to ${page.title}`, ['Confirm that this address should receive updates by email.'],
      { action: 'confirm', button: 'Confirm the subscription', fields: { token: String(tokenOf(ctx) ?? '') } }));
  });
  router.post('/status/:slug/confirm', async (ctx) => {
    const page = await pageOf(services, ctx);
    if (!page) return;
    const body = await form(ctx);
    if (!body) return;
    if (await confirm(services, page, tokenOf(ctx, body))) return send(ctx, 200, renderMessagePage('You are subscribed', [`You will be told by email of incidents and maintenance on ${page.title}.`]));
    send(ctx, 400, renderMessagePage('This link does not work', ['It is not valid, was already used, or has expired. Subscribe again from the status page.']));
  });

  router.get('/status/:slug/unsubscribe', async (ctx) => {
    const page = await pageOf(services, ctx);
    if (!page) return;
    send(ctx, 200, renderMessagePage(`Unsubscribe from ${page.title}`, ['Stop the email updates to this address.'],
      { action: `unsubscribe?token=${encodeURIComponent(String(tokenOf(ctx) ?? ''))}`, button: 'Unsubscribe', fields: {} }));
  });
  router.post('/status/:slug/unsubscribe', async (ctx) => {
    const page = await pageOf(services, ctx);
    if (!page) return;
    const body = await form(ctx);
    if (!body) return;
    if (await unsubscribe(services, page, tokenOf(ctx, body))) return send(ctx, 200, renderMessagePage('You are unsubscribed', [`No more email about ${page.title} will be sent to this address.`]));
    send(ctx, 400, renderMessagePage('This link does not work', ['It is not a valid unsubscribe link.']));
  });
  return router;
}
