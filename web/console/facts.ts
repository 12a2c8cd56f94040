/**
 * Pieces the alert and incident screens share: who took an action (`by: { kind, id }`, as the audit log names actors),
 * what an alert effect means in a sentence, the state-changing buttons (each its own small POST form with the CSRF
 * token), the `since` filter as people type it, and the "saved" notice after a form's 303.
 */
import type { ConsoleSession } from '../../engine/auth/sessions.ts';
import { ApiError } from '../../engine/errors.ts';
import { html, type Html } from '../../engine/html.ts';
import { csrfField } from './layout.ts';
import type { Json } from './operations.ts';
import { PERSON_KINDS } from '../../domain/alerts/people.ts';

const ACTOR_KINDS: Record<string, string> = {
  session: 'a person in the console', personal_token: 'a person (personal token)', chat_user: 'a person in chat', page: 'a person answering a page', api_key: 'an API key', operator: 'the operator', system: 'Vigil',
};

/** A person by name and email ("Dana Ortiz <dana@example.com>"), as the operations answer members and actors. */
export function personText(person: unknown): string {
  if (!person || typeof person !== 'object') return '';
  const { name, email } = person as { name?: unknown; email?: unknown };
  const n = typeof name === 'string' && name.trim() ? name.trim() : '';
  const e = typeof email === 'string' ? email : '';
  return n && e ? `${n} (${e})` : n || e || 'a former member';
}

/**
 * Who took an action, by name and email (the operations name the people among actors); "you" is added for the
 * signed-in person. Keys and the operator by kind: they have no name, and their ids are not people's.
 */
export function actorText(session: ConsoleSession, by: unknown): string {
  if (!by || typeof by !== 'object') return '';
  const { kind, id } = by as { kind?: unknown; id?: unknown };
  if (PERSON_KINDS.has(String(kind))) return `${personText(by)}${id === session.userId ? ' (you)' : ''}`;
  return ACTOR_KINDS[String(kind)] ?? String(kind);
}

const REASONS: Record<string, string> = {
  muted: 'a mute matched', refire_cooldown: 'it fired again inside the re-fire cooldown', storm: 'it joined a storm', paused: 'investigations are paused',
  cooldown: 'an investigation ran recently', budget: 'the AI budget is spent', acknowledged: 'acknowledged', unacknowledged: 'acknowledgement taken back',
  resolved: 'resolved', no_route: 'no alert route matched', route_does_not_page: 'its route does not page',
};
const reason = (detail: Json) => (typeof detail.reason === 'string' ? REASONS[detail.reason] ?? detail.reason.replaceAll('_', ' ') : '');

const NOT_NOTIFIED: Record<string, string> = {
  no_route: 'No one to page: no route matched',
  no_channel: 'No one to page: no outbound rule or email takes alert.fired',
};
const NOT_POSTED: Record<string, string> = {
  chat_not_configured: 'chat not configured',
  chat_off_for_alerts: 'notification settings keep this event out of chat',
};

/** Each delivery an effect's event made (get_alert adds them): where to, and delivered or why not. */
function deliveryText(deliveries: unknown): string {
  if (!Array.isArray(deliveries) || deliveries.length === 0) return '';
  return deliveries.map((d: Json) => `${d.channel === 'outbound' ? String(d.to ?? d.config_id ?? 'outbound config') : `chat${d.to ? ` ${String(d.to)}` : ''}`}: ${String(d.status)}${d.error ? ` (${String(d.error)})` : ''}`).join('; ');
}

/** Who a page reached and by which channel (the teams, the outbound configs, email), or why no one. */
function pageText(detail: Json): string {
  const teams = Array.isArray(detail.teams) ? detail.teams.map((t: Json) => String(t.name || t.id)) : [];
  if (detail.notified === false) {
    const why = NOT_NOTIFIED[String(detail.not_notified)] ?? 'No one to page';
    return teams.length ? `${why} (team ${teams.join(', ')})` : why;
  }
  const channels = [...(Array.isArray(detail.outbound) && detail.outbound.length ? [`${detail.outbound.length} outbound config(s)`] : []), ...(detail.email ? ['email'] : [])];
  const whom = teams.length ? `team ${teams.join(', ')}` : Array.isArray(detail.team_ids) && detail.team_ids.length ? `${detail.team_ids.length} team(s)` : '';
  return `Paged${whom ? ` ${whom}` : ''}${channels.length ? ` by ${channels.join(' and ')}` : ''}`;
}

function chatText(what: string, detail: Json): string {
  if (detail.queued === false) return `${what === 'post' ? 'Not posted to chat' : 'Chat thread not updated'}: ${NOT_POSTED[String(detail.not_posted)] ?? 'chat not configured'}`;
  return what === 'post' ? 'Posted to chat' : 'Chat thread updated';
}

/** One alert effect in a sentence (the pipeline's record of what happened: who was reached by which channel, or why not). */
export function effectText(kind: string, detail: Json, deliveries?: unknown): string {
  const why = reason(detail);
  const sent = deliveryText(deliveries);
  const withSent = (text: string) => (sent ? `${text} — ${sent}` : text);
  switch (kind) {
    case 'routed': return detail.route ? `Routed by ${String(detail.route)}${detail.team ? ` to ${String(detail.team)}` : ''}` : 'No alert route matched';
    case 'page': return withSent(pageText(detail));
    case 'page_skipped': return `Not paged${why ? `: ${why}` : ''}`;
    case 'chat_post': return withSent(chatText('post', detail));
    case 'chat_thread_update': return `${chatText('update', detail)}${detail.queued !== false && why ? `: ${why}` : ''}`;
    case 'muted': return `Muted${detail.mute_id ? ` by mute ${String(detail.mute_id)}` : ''}`;
    case 'storm_grouped': return 'Grouped into a storm';
    case 'investigation_requested': return 'AI investigation requested';
    case 'investigation_skipped': return `No AI investigation${why ? `: ${why}` : ''}`;
    case 'incident_opened': return 'Opened an incident';
    case 'incident_joined': return 'Joined an incident';
    case 'incident_closed': return 'Its incident closed';
    case 'incident_reopened': return 'Its incident reopened';
    case 'cycle_ended': return `A cycle ended (raised ${String(detail.raised_at ?? '')}${detail.acknowledged_at ? `, acknowledged ${String(detail.acknowledged_at)}` : ''}${detail.resolved_at ? `, resolved ${String(detail.resolved_at)}` : ''}); raised again`;
    case 'escalation_started': return detail.joined
      ? `Joined the running escalation of ${String(detail.team ?? 'the team')}`
      : `Escalation started for ${String(detail.team ?? 'the team')}${detail.policy ? ` through ${String(detail.policy)}` : ' through its escalation list'}${detail.subject === 'incident' ? ' (for its incident)' : ''}`;
    case 'escalation_step': {
      const where = `Step ${Number(detail.step) + 1}${Number(detail.loop) ? ` (repeat ${Number(detail.loop)})` : ''}`;
      const people = Array.isArray(detail.people) ? detail.people.map(String) : [];
      return people.length ? `${where}: paged ${people.join(', ')}` : `${where}: nobody to page, the next step starts at once`;
    }
    case 'notified': return notifiedText(detail);
    case 'escalation_stopped': return detail.reason === 'exhausted' ? 'Escalation ended: every step and repeat ran' : `Escalation stopped: ${String(detail.reason ?? '')}`;
    default: return kind.replaceAll('_', ' ');
  }
}

/** A notification attempt (domain/paging/dispatch.ts): the person, the method, what became of it; older effects had no status. */
function notifiedText(detail: Record<string, unknown>): string {
  const bundled = Number(detail.bundled) > 1 ? ` (one message for ${Number(detail.bundled)} alerts)` : '';
  const why = detail.reason ? `: ${String(detail.reason).replaceAll('_', ' ')}` : '';
  if (!detail.status) return `${String(detail.email)} ${detail.queued === false ? `not notified: ${String(detail.not_notified ?? 'not sent').replaceAll('_', ' ')}` : `notified by ${String(detail.channel ?? 'email')}`}${bundled}`;
  const by = `by ${String(detail.channel)} (${String(detail.method ?? 'account email')})`;
  const what: Record<string, string> = {
    queued: `notified ${by}`, sent: `notified ${by}`, sending: `being notified ${by}`, failed: `not notified ${by}${why}`,
    unknown: `perhaps notified ${by}: the provider call was cut short`, cancelled: `not notified ${by}: the escalation stopped${why}`,
    limited: `held ${by}: the method's limit; a summary follows`, delivery: `${by}: the provider reports ${String(detail.delivery ?? '')}${why}`,
  };
  return `${String(detail.email)} ${what[String(detail.status)] ?? `${String(detail.status)} ${by}`}${detail.summary ? ' (a summary)' : ''}${bundled}`;
}

/** Access keys of the actions people take most at 3 a.m. (Alt+A / Alt+R in most browsers), the same on alerts and incidents. */
const ACCESS_KEYS: Record<string, string> = { Acknowledge: 'a', Resolve: 'r' };

/** A button that posts one action (no field but the CSRF token); acknowledge and resolve carry an access key. */
export const actionButton = (session: ConsoleSession, action: string, label: string) =>
  html`<form method="post" action="${action}" class="inline">${csrfField(session)}<button type="submit"${ACCESS_KEYS[label] ? html` accesskey="${ACCESS_KEYS[label]}" aria-keyshortcuts="Alt+${ACCESS_KEYS[label].toUpperCase()}"` : ''}>${label}</button></form>`;

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

/** A refused form, drawn again on its own page: what was typed, and the operation's message for each field. */
export interface Refused {
  /** the form's action segment (assign, severity, note) */
  action: string;
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** A refusal of a form a page draws again (422 naming fields), or null for one it cannot (the refusal page then). */
export function refusedForm(error: unknown, action: string, form: Record<string, string>, fields: Record<string, string>): Refused | null {
  if (!(error instanceof ApiError) || error.status !== 422 || !error.errors?.length) return null;
  const errors: Record<string, string> = {};
  for (const e of error.errors) {
    const input = Object.entries(fields).find(([, field]) => field === e.field)?.[0];
    if (!input) return null;
    errors[input] = e.message;
  }
  return { action, values: form, errors };
}

/** An input's value and error for a form that may have been refused: the typed value, `aria-invalid`, the message beside it. */
export function fieldState(refused: Refused | undefined, action: string, input: string, stored: string): { value: string; invalid: Html | string; message: Html | string } {
  const mine = refused?.action === action ? refused : undefined;
  const error = mine?.errors[input];
  return {
    value: mine ? mine.values[input] ?? '' : stored,
    invalid: error ? html` aria-invalid="true" aria-describedby="${input}-error"` : '',
    message: error ? html`<p class="field-error" id="${input}-error">${error}</p>` : '',
  };
}

/** The line above a page whose form was refused, linking to the field. */
export const refusedNotice = (refused: Refused | undefined): Html | string =>
  refused ? html`<div class="notice error" role="alert"><p>Not saved: ${Object.keys(refused.errors).map((input) => html`<a href="#${input}">${refused.errors[input]}</a>`)}</p></div>` : '';
