/**
 * A page's one-time links (domain/paging/page-links.ts), with no credential but the link and no script:
 * `GET /page/<token>` lists the message's alerts and shows one button; its `POST` acts as the paged person (a mail
 * scanner following the link acts on nothing) and says what happened. No CSRF token: the token in the URL is the
 * credential, and a form elsewhere cannot know it. A used, expired, tampered or unknown link gets one same answer.
 * Raw routes: the button posts a url-encoded form, read before the API's JSON-only check (its body is not needed).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../engine/services.ts';
import { actOnPage, pagedPerson, type PageActionResult, type PageChannel } from '../../domain/alerts/page-actions.ts';
import { openLink, useLink, type OpenLink } from '../../domain/paging/page-links.ts';
import { renderMessagePage, sendMessagePage as send } from '../status-page/html.ts';

const GONE = renderMessagePage('This link does not work', ['It is not a valid page link, was already used, or has expired. Open Vigil to see the alert.']);
const VERB = { acknowledge: { button: 'Acknowledge', done: 'acknowledged' }, resolve: { button: 'Resolve', done: 'resolved' } } as const;

const listed = (link: OpenLink) => link.alerts.map((a) => `[${a.severity}] ${a.title} (${a.status})`);

async function linkOf(services: Services, ctx: Context): Promise<OpenLink | null> {
  const link = await openLink(services, String(ctx.params.token ?? ''));
  if (!link) send(ctx, 404, GONE);
  return link;
}

type LinkOutcome = { kind: 'not_member' } | { kind: 'used' } | { kind: 'done'; result: PageActionResult };

/**
 * Follows an open link: the person (still a member, or `not_member`) acts on the message's alerts through the REST/MCP
 * operations, audited with credential kind `page` and the channel the link came in as transport. The bundle is
 * marked used first, in its own transaction, so two clicks at once act once (`used` for the second).
 */
async function followLink(services: Services, link: OpenLink): Promise<LinkOutcome> {
  const caller = await pagedPerson(services, link.organizationId, link.userId, link.channel as PageChannel, link.bundleId);
  if (!caller) return { kind: 'not_member' };
  if (!(await useLink(services, link))) return { kind: 'used' };
  return { kind: 'done', result: await actOnPage(services, caller, link.alerts.map((a) => a.id), link.action) };
}

export function pageLinkRoutes(services: Services): Router {
  const router = new Router();
  router.get('/page/:token', async (ctx) => {
    const link = await linkOf(services, ctx);
    if (!link) return;
    const verb = VERB[link.action];
    send(ctx, 200, renderMessagePage(`${verb.button} the page`, [`You were paged for ${link.alerts.length === 1 ? 'this alert' : `these ${link.alerts.length} alerts`}:`, ...listed(link)],
      { action: '', button: verb.button, fields: {} }));
  });
  router.post('/page/:token', async (ctx) => {
    const link = await linkOf(services, ctx);
    if (!link) return;
    const outcome = await followLink(services, link);
    if (outcome.kind === 'used') return send(ctx, 404, GONE);
    if (outcome.kind === 'not_member') return send(ctx, 403, renderMessagePage('Nothing was changed', ['You are no longer a member of the organization this page came from.']));
    const verb = VERB[link.action];
    const byId = new Map(link.alerts.map((a) => [a.id, a.title]));
    const lines = [
      ...outcome.result.done.map((id) => `${byId.get(id) ?? id}: ${verb.done}.`),
      ...outcome.result.refused.map((r) => `${byId.get(r.id) ?? r.id}: not ${verb.done}: ${r.reason}`),
    ];
    const title = outcome.result.refused.length === 0 ? `Page ${verb.done}` : outcome.result.done.length ? `Partly ${verb.done}` : `Nothing was ${verb.done}`;
    send(ctx, 200, renderMessagePage(title, lines));
  });
  return router;
}
