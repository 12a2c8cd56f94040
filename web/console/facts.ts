/**
 * Pieces the alert and incident screens share: who took an action (`by: { kind, id }`, as the audit log names actors),
 * what an alert effect means in a sentence, the state-changing buttons (each its own small POST form with the CSRF
 * token), the `since` filter as people type it, and the "saved" notice after a form's 303.
 */
import type { ConsoleSession } from '../../engine/auth/sessions.ts';
import { html, type Html } from '../../engine/html.ts';
import { csrfField } from './layout.ts';
import type { Json } from './operations.ts';

const ACTOR_KINDS: Record<string, string> = {
  session: 'a person in the console', personal_token: 'a person (personal token)', chat_user: 'a person in chat', api_key: 'an API key', operator: 'the operator', system: 'Vigil',
};

/** Who took an action: "you" for the signed-in person, else the kind of credential and its id. */
export function actorText(session: ConsoleSession, by: unknown): string {
  if (!by || typeof by !== 'object') return '';
  const { kind, id } = by as { kind?: unknown; id?: unknown };
  const isPerson = kind === 'session' || kind === 'personal_token' || kind === 'chat_user';
  if (isPerson && id === session.userId) return 'you';
  return `${ACTOR_KINDS[String(kind)] ?? String(kind)}${id ? ` (${String(id)})` : ''}`;
}

const REASONS: Record<string, string> = {
  muted: 'a mute matched', refire_cooldown: 'it fired again inside the re-fire cooldown', storm: 'it joined a storm', paused: 'investigations are paused',
  cooldown: 'an investigation ran recently', budget: 'the AI budget is spent', acknowledged: 'acknowledged', unacknowledged: 'acknowledgement taken back',
  resolved: 'resolved', no_route: 'no alert route matched', route_does_not_page: 'its route does not page',
};
const reason = (detail: Json) => (typeof detail.reason === 'string' ? REASONS[detail.reason] ?? detail.reason.replaceAll('_', ' ') : '');

/** One alert effect in a sentence (the pipeline's record of why it did or did not page). */
export function effectText(kind: string, detail: Json): string {
  const why = reason(detail);
  switch (kind) {
    case 'routed': return detail.route ? `Routed by ${String(detail.route)}${detail.team ? ` to ${String(detail.team)}` : ''}` : 'No alert route matched';
    case 'page': return `Paged${Array.isArray(detail.team_ids) && detail.team_ids.length ? ` ${detail.team_ids.length} team(s)` : ''}`;
    case 'page_skipped': return `Not paged${why ? `: ${why}` : ''}`;
    case 'chat_post': return 'Posted to chat';
    case 'chat_thread_update': return `Chat thread updated${why ? `: ${why}` : ''}`;
    case 'muted': return `Muted${detail.mute_id ? ` by mute ${String(detail.mute_id)}` : ''}`;
    case 'storm_grouped': return 'Grouped into a storm';
    case 'investigation_requested': return 'AI investigation requested';
    case 'investigation_skipped': return `No AI investigation${why ? `: ${why}` : ''}`;
    case 'incident_opened': return 'Opened an incident';
    case 'incident_joined': return 'Joined an incident';
    case 'incident_closed': return 'Its incident closed';
    case 'incident_reopened': return 'Its incident reopened';
    default: return kind.replaceAll('_', ' ');
  }
}

/** A button that posts one action (no field but the CSRF token). */
export const actionButton = (session: ConsoleSession, action: string, label: string) =>
  html`<form method="post" action="${action}" class="inline">${csrfField(session)}<button type="submit">${label}</button></form>`;

/**
 * `since` as a person types it into the filter: the API's ISO 8601 date-time, or a date (`2026-03-01`) or a
 * date and time without a zone (`2026-03-01T12:00`), both read as UTC. Anything else goes to the operation as typed,
 * which refuses it naming `since`.
 */
export function sinceInput(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}$/.test(value)) return `${value.replace(' ', 'T')}:00Z`;
  return value;
}

/** The notice a form's 303 asks for (`?saved=<what>`), when the screen knows that word. */
export function savedNotice(query: Record<string, unknown>, known: Record<string, string>): Html | string {
  const saved = query.saved;
  return typeof saved === 'string' && Object.hasOwn(known, saved) ? html`<div class="notice" role="status"><p>${known[saved]}</p></div>` : '';
}

/** The text of a user-entered assignee: an email or user id, or null (empty) to unassign. */
export const assigneeInput = (value: string | undefined) => (value?.trim() ? value.trim() : null);
