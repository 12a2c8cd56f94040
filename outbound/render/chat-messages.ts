/**
 * What a person reads in the channel: a message's `text` (the notification and fallback line) and its Block Kit
 * `blocks` — a section with the headline, a section of fields (severity, service, status, …), a link when
 * there is one, and on an alert thread's first post and an incident post the Acknowledge and Resolve buttons (an
 * `actions` block; a press comes back to `POST /webhooks/chat/<token>`, webhooks/chat/). Values are escaped as the
 * Web API asks (&, <, >), and every text is cut to what a block takes.
 */
import { headline } from './headline.ts';
import { mrkdwnText } from '../net/chat-api.ts';
import type { OutboundEvent } from '../events.ts';
import { CHAT_BUTTONS, type ChatButton } from '../../resources/chat.ts';

type Json = Record<string, any>;

/** What a message is built from: an event, or the envelope an outbound delivery stored. */
type EventLike = Pick<OutboundEvent, 'type' | 'data'>;

export interface ChatContent {
  text: string;
  blocks: Json[];
}

const SECTION_MAX = 3000;
const FIELD_MAX = 2000;
const TEXT_MAX = 4000;

/** mrkdwn text of any value (the Web API's own escaping, net/chat-api.ts) */
export const escape = (value: unknown) => mrkdwnText(String(value ?? ''));
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const STATUS_WORD: Record<string, string> = { firing: 'Firing', acknowledged: 'Acknowledged', resolved: 'Resolved', open: 'Open', closed: 'Closed' };
const word = (status: unknown) => STATUS_WORD[String(status)] ?? String(status ?? '');

/** A message of a headline, labelled fields (empty ones left out) and an optional link. */
export function content(title: string, fields: [string, unknown][], link: { url: string; label: string } | null = null, note: string | null = null): ChatContent {
  const shown = fields.filter(([, v]) => v !== null && v !== undefined && v !== '');
  const blocks: Json[] = [{ type: 'section', text: { type: 'mrkdwn', text: cut(`*${escape(title)}*${note ? `\n${escape(note)}` : ''}`, SECTION_MAX) } }];
  if (shown.length) blocks.push({ type: 'section', fields: shown.slice(0, 10).map(([label, v]) => ({ type: 'mrkdwn', text: cut(`*${label}*\n${escape(v)}`, FIELD_MAX) })) });
  if (link && /^https?:\/\//.test(link.url)) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(`<${link.url.replaceAll('|', '%7C').replaceAll('>', '%3E')}|${escape(link.label)}>`, SECTION_MAX) } });
  const line = [title, ...shown.map(([label, v]) => `${label}: ${v}`)].join(' · ');
  return { text: cut(line, TEXT_MAX), blocks };
}

/**
 * The buttons a post offers for its subject's state: Acknowledge while it fires (an alert firing, an incident not
 * yet acknowledged), Resolve until it is resolved (or closed); none after. Each names the subject's id as its value.
 */
export function actionButtons(subject: 'alert' | 'incident', id: string, state: { resolved: boolean; acknowledged: boolean }): Json[] {
  if (state.resolved || !id) return [];
  const wanted = (Object.keys(CHAT_BUTTONS) as ChatButton[])
    .filter((a) => CHAT_BUTTONS[a].subject === subject && (CHAT_BUTTONS[a].operation.startsWith('resolve') || !state.acknowledged));
  const elements = wanted.map((a) => ({
    type: 'button', action_id: a, value: id, text: { type: 'plain_text', text: CHAT_BUTTONS[a].label },
    ...(CHAT_BUTTONS[a].operation.startsWith('resolve') ? { style: 'primary' } : {}),
  }));
  return [{ type: 'actions', block_id: `vigil_${subject}_actions`, elements }];
}

/** A plain text post (change notifications) as one section. */
export function plain(text: string): ChatContent {
  return { text: cut(text, TEXT_MAX), blocks: [{ type: 'section', text: { type: 'mrkdwn', text: cut(escape(text), SECTION_MAX) } }] };
}

function alertFields(alert: Json, status: unknown): [string, unknown][] {
  return [['Severity', alert.severity], ['Service', alert.service], ['Status', word(status)], ['Source', alert.source]];
}

const alertLink = (alert: Json) => (typeof alert.url === 'string' ? { url: alert.url, label: 'Open the alert' } : null);

/** The first post of an alert's thread, showing `status` (what the thread's first post is updated to as the alert changes). */
export function alertOpening(event: EventLike, status: string): ChatContent {
  const { alert = {}, storm } = event.data as Json;
  const lead = status === 'resolved' ? 'Resolved' : status === 'acknowledged' ? 'Acknowledged' : 'Alert';
  const title = storm ? `${lead}: alert storm, ${storm.alerts} alerts — ${alert.title} and others` : `${lead}: ${alert.title}`;
  const opening = content(title, alertFields(alert, status), alertLink(alert), typeof alert.summary === 'string' ? alert.summary : null);
  // a storm's post stands for many alerts: its incident post carries the buttons that act on them all
  const buttons = storm ? [] : actionButtons('alert', typeof alert.id === 'string' ? alert.id : '', { resolved: status === 'resolved', acknowledged: status === 'acknowledged' });
  return { text: opening.text, blocks: [...opening.blocks, ...buttons] };
}

/** A later event of an alert (a reply in its thread, or a message of its own without threads). */
export function alertChange(kind: 'refired' | 'unacknowledged' | 'acknowledged' | 'resolved', event: EventLike): ChatContent {
  const { alert = {} } = event.data as Json;
  const title = kind === 'refired' ? `Fired again inside the re-fire cooldown (nobody paged): ${alert.title}`
    : kind === 'unacknowledged' ? `Unacknowledged, firing again: ${alert.title}`
      : kind === 'acknowledged' ? `Acknowledged: ${alert.title}` : `Resolved: ${alert.title}`;
  return content(title, alertFields(alert, kind === 'refired' || kind === 'unacknowledged' ? 'firing' : kind), alertLink(alert));
}

/** Any other event kind: an incident, a card, a deployment, a fix request. */
export function eventContent(event: EventLike): ChatContent {
  const d = event.data as Json;
  if (d.incident) {
    const i = d.incident;
    const post = content(`Incident ${i.status === 'closed' ? 'closed' : 'opened'}: ${i.title}`, [['Severity', i.severity], ['Status', word(i.status)], ['Service', d.alert?.service]], alertLink(d.alert ?? {}));
    const buttons = actionButtons('incident', typeof i.id === 'string' ? i.id : '', { resolved: i.status === 'closed', acknowledged: Boolean(i.acknowledged_at) });
    return { text: post.text, blocks: [...post.blocks, ...buttons] };
  }
  if (d.card) {
    const c = d.card;
    const title = event.type === 'card.created' ? `New card ${c.key ?? ''}: ${c.title ?? ''}` : `Card ${c.key ?? ''} updated: ${c.title ?? ''}`;
    const changed = Array.isArray(d.changed) && d.changed.length ? d.changed.join(', ') : null;
    return content(title, [['Priority', c.priority], ['Status', c.status], ['Service', c.service], ['Changed', changed]], typeof c.url === 'string' ? { url: c.url, label: 'Open the card' } : null);
  }
  if (d.fix_request) {
    const f = d.fix_request;
    return content(`Fix request finished: ${f.repo ?? f.service ?? f.id}`, [['Status', f.status], ['Service', f.service]], typeof f.pr_url === 'string' ? { url: f.pr_url, label: 'Open the pull request' } : null);
  }
  if (d.deployment) {
    const dep = d.deployment;
    return content(`Deployment ${d.action ?? 'recorded'}: ${dep.service ?? ''} ${dep.version ?? ''}`.trim(), [['Environment', dep.environment], ['Status', dep.status]]);
  }
  return content(headline({ type: event.type, data: d }), []);
}

/**
 * The message an outbound config of kind `chat` (an incoming webhook) receives for a stored envelope: the same
 * text and blocks chat delivery posts — an alert as its thread's first post would show it, or its later change —
 * without the buttons.
 */
export function envelopeContent(envelope: Json): ChatContent {
  const event: EventLike = { type: envelope.type, data: envelope.data ?? {} };
  const message = event.type === 'alert.fired' ? alertOpening(event, 'firing')
    : event.type === 'alert.acknowledged' ? alertChange('acknowledged', event)
      : event.type === 'alert.resolved' ? alertChange('resolved', event) : eventContent(event);
  // no buttons: an incoming webhook's app is not the connected one, whose request URL a press would need
  return { text: message.text, blocks: message.blocks.filter((b) => b.type !== 'actions') };
}
