/**
 * The one stylesheet of the pages for people (the console and the status page's not-found page), served from a path
 * so a Content-Security-Policy can forbid inline style; cached for a day and revalidated by its ETag.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';

export const STYLESHEET_PATH = '/assets/vigil.css';
// beside this file in a checkout, beside dist/vigil.js in the bundle (`npm run bundle` copies it there)
const CSS = readFileSync(new URL('./vigil.css', import.meta.url), 'utf8');
const ETAG = `"${createHash('sha256').update(CSS).digest('base64url').slice(0, 22)}"`;

export function stylesheetRoutes(): Router {
  const router = new Router();
  router.get(STYLESHEET_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('ETag', ETAG);
    ctx.type = 'text/css; charset=utf-8';
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = CSS;
  });
  return router;
}
