/**
 * `/board/<KEY>` (the URL every card answers with): the card — title, description, labels, service, assignee,
 * source, linked tracker item, fix request, comments and what happened to it — and, for a member or admin, forms to
 * move it, assign it and comment. The forms post to the same operations agents use (`update_card`,
 * `add_card_comment`), so a viewer's forged POST is refused by the operation itself (403), and another
 * organization's card is the operation's 404.
 */
import { randomUUID } from 'node:crypto';
import { roleAtLeast } from '../../engine/plans.ts';
import { ApiError } from '../../engine/errors.ts';
import { html, type Html } from '../../engine/html.ts';
import { BOARD_COLUMNS, labelList, statusLabel } from './board.ts';
import { personText } from './facts.ts';
import { seeOther } from './http.ts';
import { csrfField, layout } from './layout.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { addCardCommentOperation, getCardOperation, updateCardOperation } from '../../domain/board/tools.ts';
import { getFixRequestOperation } from '../../domain/fixes/tools.ts';
import { run, type Json } from './operations.ts';
import type { Screen, ScreenRequest } from './page.ts';
import { organizationTime, type TimeFormat } from './time.ts';

const SAVED: Record<string, string> = { moved: 'The card was moved.', assigned: 'The assignee was saved.', commented: 'Your comment was added.' };
const EFFECTS: Record<string, string> = {
  notification: 'Notification raised', chat_post: 'Posted to chat', assignment_skipped: 'Assignee not found among members', updated: 'Updated',
  tracker_linked: 'Linked to a tracker item', fix_requested: 'Fix requested', fix_skipped: 'Fix not requested',
};

const httpLink = (url: unknown, text: string): Html | string =>
  typeof url === 'string' && /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noopener noreferrer">${text}</a>` : text;

const latest = (effects: Json[], kinds: string[]) => [...effects].reverse().find((e) => kinds.includes(String(e.kind)));

/** The card's key in the path: what `get_card` takes (its own checks refuse anything else). */
const cardRef = (request: ScreenRequest) => String(request.ctx.params.key ?? '');

async function fixRequest(request: ScreenRequest, services: Parameters<Screen>[0], effect: Json | undefined): Promise<Html | string> {
  if (!effect) return 'None';
  const detail = (effect.detail ?? {}) as Json;
  if (effect.kind === 'fix_skipped') return `Not requested: ${String(detail.message ?? detail.reason ?? '')}`;
  if (typeof detail.id !== 'string') return 'Requested';
  try {
    const fix = (await run(services, request.session.caller, getFixRequestOperation, { id: detail.id })).data as Json;
    return html`${String(fix.status)}${fix.pr_url ? html` · ${httpLink(fix.pr_url, 'draft pull request')}` : ''}${fix.reason ? html` · ${String(fix.reason)}` : ''}`;
  } catch (error) {
    if (error instanceof ApiError) return 'Requested';
    throw error;
  }
}

function actions(card: Json, csrf: Html): Html {
  const options = [...BOARD_COLUMNS.map((c) => ({ value: c.status, label: c.label })), { value: "won't do", label: "Won't do (archive)" }];
  const current = String(card.status);
  return html`<section class="panel stack" aria-labelledby="act"><h2 id="act">Change</h2>
<form method="post" action="/board/${card.key}/move" class="inline">${csrf}<label for="status">Status</label><select id="status" name="status">${options.map(
    (o) => html`<option value="${o.value}"${o.value === current ? html` selected` : ''}>${o.label}</option>`,
  )}</select><button type="submit">Move</button></form>
<form method="post" action="/board/${card.key}/assign" class="inline">${csrf}<label for="assignee">Assignee email</label><input type="email" id="assignee" name="assignee_email" value="${card.assignee_email ?? ''}"><button type="submit">Assign</button></form>
<p class="muted">Leave the email empty to unassign; it must be a member of this organization.</p></section>`;
}

function commentForm(card: Json, csrf: Html): Html {
  // a fresh idempotency key per form: submitting it twice (a reload, a double click) adds one comment
  return html`<form method="post" action="/board/${card.key}/comment" class="stack" aria-labelledby="add-comment">${csrf}<input type="hidden" name="key" value="${randomUUID()}">
<h3 id="add-comment">Add a comment</h3><label for="comment-body" class="visually-hidden">Comment</label><textarea id="comment-body" name="body" required></textarea>
<button type="submit">Comment</button></form>`;
}

function facts(card: Json, time: TimeFormat, tracker: Json | undefined, fix: Html | string): Html {
  const detail = (tracker?.detail ?? {}) as Json;
  const trackerText = tracker ? httpLink(detail.url, `${String(detail.identifier ?? 'item')} (${String(detail.provider ?? 'tracker')})`) : 'None';
  const source = tracker ? `${String(detail.provider ?? 'tracker')} (kept in step)` : 'tickets webhook';
  return html`<dl class="facts">
<dt>Status</dt><dd>${statusLabel(String(card.status))}</dd>
<dt>Priority</dt><dd>${card.priority}</dd>
<dt>Service</dt><dd>${card.service ?? 'None'}</dd>
<dt>Assignee</dt><dd>${card.assignee_email ? named(card, card.assignee_email) : 'Unassigned'}</dd>
<dt>Labels</dt><dd>${labelList(card.labels) || 'None'}</dd>
<dt>Source</dt><dd>${source}</dd>
<dt>Tracker item</dt><dd>${trackerText}</dd>
<dt>Fix request</dt><dd>${fix}</dd>
<dt>Opened</dt><dd>${time(card.created_at)}</dd>
<dt>Updated</dt><dd>${time(card.updated_at)}</dd></dl>`;
}

/** A person the card names, by name and email when they are a member ("Dana Ortiz (dana@…)"), else as written. */
function named(card: Json, email: unknown): string {
  const people = (card.people ?? {}) as Record<string, string | null>;
  return typeof email === 'string' && Object.hasOwn(people, email) ? personText({ name: people[email], email }) : String(email);
}

export const cardScreen: Screen = async (services, request) => {
  const { session, ctx } = request;
  const card = (await run(services, session.caller, getCardOperation, { card: cardRef(request) })).data as Json;
  const time = await organizationTime(services, session.caller.organization.id);
  const effects = (card.effects ?? []) as Json[];
  const fix = await fixRequest(request, services, latest(effects, ['fix_requested', 'fix_skipped']));
  const canAct = roleAtLeast(session.caller.role, 'member');
  const saved = typeof ctx.query.saved === 'string' && Object.hasOwn(SAVED, ctx.query.saved) ? html`<div class="notice" role="status"><p>${SAVED[ctx.query.saved]}</p></div>` : '';
  const comments = (card.comments ?? []) as Json[];
  const body = html`<p><a href="/board">Board</a></p><h1><span class="key">${card.key}</span> ${card.title}</h1>${saved}
<div class="layout"><div class="stack">
<section class="panel" aria-labelledby="desc"><h2 id="desc">Description</h2>${card.description ? html`<p class="pre">${card.description}</p>` : html`<p class="muted">No description.</p>`}</section>
<section class="panel" aria-labelledby="comments"><h2 id="comments">Comments</h2>${comments.length
    ? html`<ol class="comments">${comments.map((c) => html`<li class="panel"><p class="muted">${c.author ? named(card, c.author) : 'Someone'} · ${time(c.created_at)}</p><p class="pre">${c.body}</p></li>`)}</ol>`
    : html`<p class="muted">No comments yet.</p>`}${canAct ? commentForm(card, csrfField(session)) : ''}</section>
<section class="panel" aria-labelledby="history"><h2 id="history">History</h2><ol>${effects.map((e) => html`<li>${time(e.at)} · ${EFFECTS[String(e.kind)] ?? String(e.kind)}</li>`)}</ol></section>
</div><div class="stack"><section class="panel" aria-labelledby="facts"><h2 id="facts">Facts</h2>${facts(card, time, latest(effects, ['tracker_linked']), fix)}</section>
${canAct ? actions(card, csrfField(session)) : ''}</div></div>`;
  return { page: layout(session, { title: `${card.key} ${card.title}`, section: '/board', body }) };
};

/** A form's POST: the operation runs as the signed-in person, then back to the card (303) with what was done. */
function cardAction(name: 'moved' | 'assigned' | 'commented', input: (request: ScreenRequest) => { op: DomainOperation; input: Json; key?: string }): Screen {
  return async (services, request) => {
    const call = input(request);
    const answer = (await run(services, request.session.caller, call.op, { card: cardRef(request), ...call.input }, call.key)).data as Json;
    // update_card answers the key; a comment's answer does not, so the path's reference is kept
    const key = typeof answer.key === 'string' ? answer.key : cardRef(request);
    seeOther(request.ctx, `/board/${encodeURIComponent(key)}?saved=${name}`);
  };
}

export const moveScreen = cardAction('moved', ({ form }) => ({ op: updateCardOperation, input: { status: form.status ?? '' } }));
export const assignScreen = cardAction('assigned', ({ form }) => ({ op: updateCardOperation, input: { assignee_email: form.assignee_email?.trim() ? form.assignee_email.trim() : null } }));
export const commentScreen = cardAction('commented', ({ form, session }) => ({
  op: addCardCommentOperation,
  input: { body: form.body ?? '', author: session.email },
  key: form.key || undefined,
}));
