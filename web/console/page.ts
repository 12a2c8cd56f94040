/**
 * How a console screen is served: the session is resolved from its cookie (signed out: 303 to /login?next=…), a
 * POST's form is read and its CSRF token checked (a forged one: 403) before anything runs, and a refusal from an
 * operation (ApiError: 403 for a viewer's write, 404 for another organization's card, 422 naming the field) becomes
 * an HTML page with the same status. A screen answers a page, or redirects itself (a form's 303).
 */
import type { Context } from 'koa';
import { csrfMatches, resolveSession, type ConsoleSession } from '../../engine/auth/sessions.ts';
import { ApiError } from '../../engine/errors.ts';
import type { Services } from '../../engine/services.ts';
import { html, type Html } from '../../engine/html.ts';
import { FormError, readCookie, readForm, seeOther, sendPage, SESSION_COOKIE } from './http.ts';
import { documentOf, layout, setNavCounts, type NavCounts } from './layout.ts';
import { run as runOperation } from './operations.ts';
import { listAttention } from '../../domain/alerts/attention.ts';

export interface ScreenRequest {
  ctx: Context;
  session: ConsoleSession;
  /** a POST's fields (empty for a GET) */
  form: Record<string, string>;
}

/** A page (status 200 unless given), or nothing when the screen answered itself. */
export type Screen = (services: Services, request: ScreenRequest) => Promise<{ status?: number; page: Html } | void>;

/** The page of a refusal, inside the layout when someone is signed in. */
export function refusalPage(session: ConsoleSession | null, section: string, status: number, message: string, fields: { field: string; message: string }[] = []): Html {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 429 ? 'Too many attempts' : 'Not done';
  const list = fields.length ? html`<ul>${fields.map((f) => html`<li><strong>${f.field}</strong>: ${f.message}</li>`)}</ul>` : '';
  const body = html`<h1>${title}</h1><div class="notice error" role="alert"><p>${message}</p>${list}</div><p><a href="${section}">Back</a></p>`;
  return session ? layout(session, { title, section, body }) : documentOf(title, html`<main id="main" class="centered">${body}</main>`);
}

export function screen(services: Services, section: string, run: Screen) {
  return async (ctx: Context): Promise<void> => {
    const token = readCookie(ctx, SESSION_COOKIE);
    const session = await resolveSession(services, token);
    if (!session) {
      const back = ctx.method === 'GET' ? ctx.url : section;
      return seeOther(ctx, `/login?next=${encodeURIComponent(back)}`);
    }
    try {
      let form: Record<string, string> = {};
      if (ctx.method === 'POST') {
        form = await readForm(ctx);
        if (!csrfMatches(token!, form._csrf)) {
          return sendPage(ctx, 403, refusalPage(session, section, 403, 'This form is out of date or did not come from this console. Reload the page and try again.'));
        }
      }
      const counts = await runOperation(services, session.caller, listAttention, { limit: 0 });
      setNavCounts(session, counts.counts as NavCounts);
      const answer = await run(services, { ctx, session, form });
      if (answer) sendPage(ctx, answer.status ?? 200, answer.page);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        return sendPage(ctx, error.status, refusalPage(session, section, error.status, error.message, error.errors));
      }
      if (error instanceof FormError) return sendPage(ctx, error.status, refusalPage(session, section, error.status, error.message));
      throw error;
    }
  };
}
