/**
 * What every console answer shares: the security headers, the cookies, the form bodies it reads, and where a
 * sign-in may send the browser next.
 */
import type { Context } from 'koa';
import type { Services } from '../../engine/services.ts';
import type { Html } from '../../engine/html.ts';

/**
 * No script at all, styles only from the stylesheet's path, forms only to this service, never framed. The console
 * works without JavaScript, so `script-src 'none'` costs nothing.
 */
export const CONSOLE_POLICY =
  "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

export const SESSION_COOKIE = 'vigil_session';
/** the sign-in form's CSRF token before there is a session: double-submitted as this cookie and a field */
export const FORM_COOKIE = 'vigil_form';
/** a console form body is small (a comment is the longest field) */
const FORM_LIMIT = 256 * 1024;

export function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_POLICY);
  // a sign-in link's token is in its path: no page tells any other its address
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  // pages hold an organization's data: never kept by a shared cache or the back button after sign-out
  ctx.set('Cache-Control', 'no-store');
}

export function sendPage(ctx: Context, status: number, page: Html): void {
  securityHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.text;
}

/** 303 See Other: where a form's POST or a signed-out GET goes next. */
export function seeOther(ctx: Context, location: string): void {
  securityHeaders(ctx);
  ctx.status = 303;
  ctx.redirect(location);
  ctx.status = 303;
}

export function readCookie(ctx: Context, name: string): string | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, path /, Secure when the service is reached over https (PUBLIC_URL). */
export function setCookie(ctx: Context, services: Services, name: string, value: string, maxAgeSeconds?: number): void {
  const secure = services.config.publicUrl.startsWith('https:');
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: Context, services: Services, name: string): void {
  setCookie(ctx, services, name, '', 0);
}

export class FormError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** An `application/x-www-form-urlencoded` body (what a form posts without JavaScript), bounded; each field once. */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new FormError(415, 'Send the form as application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new FormError(413, 'The form is too large.');
    chunks.push(chunk);
  }
  const form: Record<string, string> = Object.create(null);
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (!(key in form)) form[key] = value.replace(/\r\n/g, '\n');
  }
  return form;
}

/**
 * Where a sign-in sends the browser: a path on this service only. Refused (so `/` instead): anything not starting
 * with one `/`, backslashes, encoded slashes and backslashes (`%2F`, `%5C`, which a proxy may decode) and control
 * characters anywhere, and anything a URL parser would move off this origin. The check runs again on the normalised
 * path, because normalising can make a host out of a path: `/.//host` and `/board/../..//host` become `//host`.
 */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/';
  if (!onePath(value)) return '/';
  try {
    const base = 'http://vigil.invalid';
    const url = new URL(value, base);
    if (url.origin !== base) return '/';
    const normalised = `${url.pathname}${url.search}`;
    return onePath(normalised) && new URL(normalised, base).origin === base ? normalised : '/';
  } catch {
    return '/';
  }
}

/** A path a browser reads as this origin's: one leading `/`, no backslash, encoded separator or control character. */
function onePath(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !/[\\\u0000-\u001f\u007f]|%2f|%5c/i.test(value);
}
