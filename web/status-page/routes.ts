/**
 * The public status page, with no credential: `GET /status/<slug>` (HTML), `GET /status/<slug>.json`, and its feeds
 * `GET /status/<slug>/feed.atom` and `/feed.rss` (feed.ts).
 * A route of the status-page module (module.ts). Unknown, private, disabled and unlicensed pages answer the same 404.
 */
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../engine/services.ts';
import { renderAtom, renderRss } from './feed.ts';
import { NOT_FOUND_HTML, renderStatusPage } from './html.ts';
import { loadStatusPage } from './query.ts';
import { subscriptionsOffered } from '../../domain/status-page/subscribers.ts';

/** Short: a page in an outage is read by many, and a status is stale soon. */
export const CACHE_SECONDS = 30;
/** `?refresh=<seconds>` adds a `<meta http-equiv="refresh">`, within these bounds (none by default: WCAG 2.2.1). */
export const REFRESH_BOUNDS = { min: 30, max: 3600 } as const;

/** The page loads no script, font or image: only its own inline styles (the not-found page too); its one form posts here. */
const PAGE_POLICY = "default-src 'none'; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const NOT_FOUND_JSON = { error: 'not_found', message: 'No public status page is published at this address.' };

function refreshOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,5}$/.test(value)) return undefined;
  return Math.min(REFRESH_BOUNDS.max, Math.max(REFRESH_BOUNDS.min, Number(value)));
}

/** Same headers for every answer; the body's hash is the ETag, so a reload of an unchanged page costs a 304. */
function answer(ctx: Context, status: number, type: string, body: string): void {
  ctx.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (type.startsWith('text/html')) ctx.set('Content-Security-Policy', PAGE_POLICY);
  ctx.type = type;
  ctx.status = status;
  if (status === 200) {
    ctx.set('ETag', `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`);
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
  }
  ctx.body = body;
}

export function statusPageRoutes(services: Services): Router {
  const router = new Router();
  router.get('/status/:page', async (ctx) => {
    // `/status/<slug>/` would read the page's relative links (`<slug>/feed.rss`) one level too deep: one address only
    if (ctx.path.endsWith('/')) {
      ctx.status = 301;
      ctx.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
      return ctx.redirect(`/status/${encodeURIComponent(ctx.params.page!)}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    }
    const asJson = ctx.params.page!.endsWith('.json');
    const slug = asJson ? ctx.params.page!.slice(0, -'.json'.length) : ctx.params.page!;
    const page = await loadStatusPage(services, slug);
    if (asJson) {
      answer(ctx, page ? 200 : 404, 'application/json; charset=utf-8', JSON.stringify(page ?? NOT_FOUND_JSON));
    } else {
      const html = page ? renderStatusPage(page, { refreshSeconds: refreshOf(ctx.query.refresh), subscribe: subscriptionsOffered(services) }) : NOT_FOUND_HTML;
      answer(ctx, page ? 200 : 404, 'text/html; charset=utf-8', html);
    }
  });
  // the feeds; an unknown page answers the same 404 page as the HTML
  for (const [suffix, type, render] of [
    ['atom', 'application/atom+xml; charset=utf-8', renderAtom],
    ['rss', 'application/rss+xml; charset=utf-8', renderRss],
  ] as const) {
    router.get(`/status/:slug/feed.${suffix}`, async (ctx) => {
      const page = await loadStatusPage(services, ctx.params.slug!);
      if (!page) return answer(ctx, 404, 'text/html; charset=utf-8', NOT_FOUND_HTML);
      answer(ctx, 200, type, render(page, services.config.publicUrl, services.clock.now()));
    });
  }
  return router;
}
