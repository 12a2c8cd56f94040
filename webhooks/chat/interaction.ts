/**
 * What a chat request asks, read from its form body (`application/x-www-form-urlencoded`, as Slack sends both):
 *
 * - a button press: a `payload` field holding JSON of type `block_actions`, with `user.id`, `team.id`,
 *   `response_url` and `actions[0]` (`action_id`, `value`);
 * - a slash command: the fields `command`, `text`, `user_id`, `team_id`, `response_url`.
 *
 * The command grammar (`/vigil …`, whatever the command is named in the app), words separated by spaces:
 *
 *     ack <alert>                     acknowledge an alert (also: acknowledge)
 *     resolve <alert>                 resolve an alert
 *     incident <id> ack|resolve       acknowledge or resolve an incident (also: acknowledge)
 *     oncall [team or schedule]       who is on call now and next (all schedules, a team's, or one; by name)
 *     help                            the grammar
 *
 * `<alert>` is the alert's id or, when it is not a UUID, its fingerprint (the rest of the text, so a fingerprint
 * may hold spaces). Anything else is answered with the grammar.
 */
import { CHAT_BUTTONS, type ChatButton } from '../../resources/chat.ts';
import { isUuid } from '../../engine/validation.ts';

export type Target = { subject: 'alert'; by: { id: string } | { fingerprint: string } } | { subject: 'incident'; id: string };

export type Interaction =
  | { kind: 'act'; via: 'button' | 'command'; user: string; team: string | null; responseUrl: string | null; operation: string; verb: 'ack' | 'resolve'; target: Target }
  /** `oncall [name]`: who is on call now and next; `name` a team's or a schedule's, null for all */
  | { kind: 'oncall'; user: string; team: string | null; name: string | null }
  | { kind: 'help'; reason: string }
  /** an interaction this endpoint does not act on (another type of payload, a button it did not draw) */
  | { kind: 'ignored'; reason: string }
  | { kind: 'unreadable'; reason: string };

export const HELP = [
  'Usage:',
  '`/vigil ack <alert>`: acknowledge an alert (by its id or fingerprint)',
  '`/vigil resolve <alert>`: resolve an alert',
  '`/vigil incident <id> ack` or `/vigil incident <id> resolve`: acknowledge or resolve an incident',
  '`/vigil oncall [team or schedule]`: who is on call now and next',
].join('\n');

const text = (v: unknown, max = 2000) => (typeof v === 'string' && v.trim() !== '' && v.length <= max ? v.trim() : null);

function button(form: URLSearchParams): Interaction {
  let payload: any;
  try {
    payload = JSON.parse(form.get('payload')!);
  } catch {
    return { kind: 'unreadable', reason: 'the payload field is not JSON' };
  }
  if (!payload || typeof payload !== 'object') return { kind: 'unreadable', reason: 'the payload field is not a JSON object' };
  if (payload.type !== 'block_actions') return { kind: 'ignored', reason: `interactions of type ${text(payload.type, 64) ?? '(none)'} are not acted on` };
  const user = text(payload.user?.id, 64);
  if (!user) return { kind: 'unreadable', reason: 'the payload names no user.id' };
  const action = Array.isArray(payload.actions) ? payload.actions[0] : undefined;
  const actionId = text(action?.action_id, 255);
  const value = text(action?.value, 100);
  if (!actionId || !Object.hasOwn(CHAT_BUTTONS, actionId)) return { kind: 'ignored', reason: `the action ${actionId ?? '(none)'} is not one of Vigil's buttons` };
  const spec = CHAT_BUTTONS[actionId as ChatButton];
  if (!value) return { kind: 'unreadable', reason: `the ${actionId} button carries no id` };
  return {
    kind: 'act', via: 'button', user, team: text(payload.team?.id, 64), responseUrl: text(payload.response_url),
    operation: spec.operation, verb: spec.operation.startsWith('resolve') ? 'resolve' : 'ack',
    target: spec.subject === 'alert' ? { subject: 'alert', by: { id: value } } : { subject: 'incident', id: value },
  };
}

const VERBS: Record<string, 'ack' | 'resolve'> = { ack: 'ack', acknowledge: 'ack', resolve: 'resolve' };

function command(form: URLSearchParams): Interaction {
  const user = text(form.get('user_id'), 64);
  if (!user) return { kind: 'unreadable', reason: 'the command names no user_id' };
  const words = (form.get('text') ?? '').trim().split(/\s+/).filter(Boolean);
  const base = { kind: 'act' as const, via: 'command' as const, user, team: text(form.get('team_id'), 64), responseUrl: text(form.get('response_url')) };
  const [first, ...rest] = words;
  const verb = VERBS[(first ?? '').toLowerCase()];
  if (verb && rest.length > 0) {
    const alert = rest.join(' ');
    return { ...base, verb, operation: verb === 'ack' ? 'acknowledge_alert' : 'resolve_alert', target: { subject: 'alert', by: isUuid(alert) ? { id: alert } : { fingerprint: alert } } };
  }
  if ((first ?? '').toLowerCase() === 'oncall') return { kind: 'oncall', user, team: base.team, name: rest.length ? rest.join(' ').slice(0, 200) : null };
  const incidentVerb = VERBS[(rest[1] ?? '').toLowerCase()];
  if ((first ?? '').toLowerCase() === 'incident' && rest.length === 2 && incidentVerb) {
    return { ...base, verb: incidentVerb, operation: incidentVerb === 'ack' ? 'acknowledge_incident' : 'resolve_incident', target: { subject: 'incident', id: rest[0]! } };
  }
  return { kind: 'help', reason: words.length === 0 || first?.toLowerCase() === 'help' ? 'help asked' : 'the command was not understood' };
}

/** The interaction a form body holds. */
export function readInteraction(raw: Buffer): Interaction {
  const form = new URLSearchParams(raw.toString('utf8'));
  if (form.has('payload')) return button(form);
  if (form.has('command')) return command(form);
  return { kind: 'unreadable', reason: 'the body is neither an interaction (a payload field) nor a slash command (a command field)' };
}
