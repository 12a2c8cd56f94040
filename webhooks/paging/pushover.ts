/**
 * `POST /paging/pushover/<token>`: Pushover's callback once the person acknowledged an emergency page in the app
 * (form fields `receipt`, `acknowledged`, `acknowledged_at`, `acknowledged_by`; Pushover signs nothing). Here, beside
 * the other inbound webhooks (it is one, if not under /webhooks/: its token is the page's, not the organization's),
 * since it acts through domain/alerts and reads domain/paging, which do not import each other that way. Steps:
 *
 * 1. the token names a page (domain/paging/pushover-receipts.ts), else 404; the form's `receipt` must be that page's, else 404;
 * 2. a page already acted on answers 200 and does nothing again;
 * 3. Pushover's receipts API (`GET /1/receipts/<receipt>.json?token=<app token>`, through the guarded client) must
 *    say it was acknowledged, else 403 and nothing changes; unreachable → 503, so Pushover may call again;
 * 4. the paged person acknowledges the page's alerts (actOnPage: the REST/MCP operations, credential kind `page`,
 *    transport `pushover`).
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../engine/services.ts';
import { actOnPage, pagedPerson } from '../../domain/alerts/page-actions.ts';
import { pushoverApi, pushoverAppToken } from '../../domain/paging/channels/pushover.ts';
import { jsonOf, providerCall } from '../../domain/paging/channels/provider-call.ts';
import { CALLBACK_PATH, claimReceipt, receiptByToken } from '../../domain/paging/pushover-receipts.ts';

const answer = (ctx: Context, status: number, error: string, message: string) => {
  ctx.status = status;
  ctx.body = status < 300 ? { status: error, message } : { error, message };
};

/** Whether Pushover's receipts API says the receipt was acknowledged (null: it could not be asked). */
async function confirmed(services: Services, organizationId: string, receipt: string): Promise<boolean | null> {
  const token = await pushoverAppToken(services, organizationId);
  if (!token) return false;
  const called = await providerCall(services, 'Pushover', {
    url: pushoverApi(services, `/1/receipts/${encodeURIComponent(receipt)}.json?token=${encodeURIComponent(token)}`),
    method: 'GET',
    headers: { 'user-agent': 'Vigil-Paging/1' },
    purpose: 'pushover receipt',
  });
  if ('failed' in called) return null;
  if (called.response.status >= 500) return null;
  const body = jsonOf(called.response);
  return called.response.status === 200 && body?.status === 1 && Number(body.acknowledged) === 1;
}

export function pushoverCallbackRoutes(services: Services): Router {
  const router = new Router();
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });
  router.post(`${CALLBACK_PATH}/:token`, form, async (ctx) => {
    const token = String(ctx.params.token ?? '');
    const page = token.length <= 100 ? await receiptByToken(services, token) : null;
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    const receipt = typeof body.receipt === 'string' ? body.receipt : '';
    if (!page || !page.receipt || receipt !== page.receipt) return answer(ctx, 404, 'not_found', 'No Pushover page has this callback address and receipt.');
    if (page.acted) return answer(ctx, 200, 'ok', 'This page was acted on already.');
    const ok = await confirmed(services, page.organizationId, page.receipt);
    if (ok === null) {
      ctx.set('Retry-After', '30');
      return answer(ctx, 503, 'unavailable', 'Pushover\'s receipts API could not be asked whether the page was acknowledged; try again later.');
    }
    if (!ok) return answer(ctx, 403, 'forbidden', 'Pushover does not say this receipt was acknowledged; nothing was changed.');
    if (!(await claimReceipt(services, token, services.clock.now()))) return answer(ctx, 200, 'ok', 'This page was acted on already.');
    const caller = await pagedPerson(services, page.organizationId, page.userId, 'pushover', page.receipt);
    if (!caller) return answer(ctx, 200, 'ok', 'The paged person is no longer a member; nothing was changed.');
    const result = await actOnPage(services, caller, page.alertIds, 'acknowledge');
    return answer(ctx, 200, 'ok', `Acknowledged ${result.done.length} alert(s)${result.refused.length ? `; ${result.refused.length} refused` : ''}.`);
  });
  return router;
}
