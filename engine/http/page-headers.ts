/**
 * The headers every HTML page the engine serves carries (the API reference page, the not-found page), as the
 * console's do: its own Content-Security-Policy (frame-ancestors 'none'), no MIME sniffing, no referrer, never framed.
 */
import type { Context } from 'koa';

export function pageHeaders(ctx: Context, policy: string): void {
  ctx.set('Content-Security-Policy', policy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
}

/** Nothing to load: no script, no style sheet, no image; only inline styles. */
export const STATIC_PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found · Vigil</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}a{color:#0b57d0}</style></head>
<body><main><h1>Nothing here</h1><p>No page is served at this address. Check it, or go to the <a href="/">console</a>.</p></main></body></html>
`;

/** A 404 for a path nothing serves: an HTML page to a browser (it asks for text/html first), JSON to anyone else. */
export function notFoundPage(ctx: Context): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  if (ctx.accepts('json', 'html') !== 'html') return false;
  pageHeaders(ctx, STATIC_PAGE_POLICY);
  ctx.status = 404;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = NOT_FOUND_PAGE;
  return true;
}
