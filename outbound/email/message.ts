/**
 * What an email says: for one event, a subject naming it (`[Vigil] critical: Disk full on db-1`) and its
 * details; for several (a digest, or notices held by quiet hours), a subject counting them by kind
 * (`[Vigil] 5 notifications (3 alert.fired, 2 card.created)`) and one line per event, oldest first. Each message
 * has a text part and a simple HTML part; every value in the HTML is escaped, and only http(s) addresses
 * become links.
 */
import { html, type Html } from '../../engine/html.ts';
import { headline } from '../render/headline.ts';

type Json = Record<string, any>;

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const SUBJECT_MAX = 200;
const VALUE_MAX = 500;

/** One line for a header: no control characters (no header folding tricks), bounded. */
const oneLine = (s: string, max: number) => {
  const line = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const isLink = (v: string) => /^https?:\/\/[^\s]+$/i.test(v);
const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** What the event is, in a few words: the subject of a one-event email. */
export function summary(envelope: Json): string {
  const d = envelope.data ?? {};
  const join = (...parts: unknown[]) => parts.map(str).filter(Boolean).join(' ');
  switch (envelope.type) {
    case 'alert.fired':
      return `${d.alert?.severity}: ${d.alert?.title}${d.storm ? ` (storm of ${d.storm.alerts} alerts)` : ''}`;
    case 'alert.acknowledged':
      return `acknowledged: ${d.alert?.title}`;
    case 'alert.resolved':
      return `resolved: ${d.alert?.title}`;
    case 'incident.opened':
      return `incident opened (${d.incident?.severity}): ${d.incident?.title}`;
    case 'incident.closed':
      return `incident closed: ${d.incident?.title}`;
    case 'card.created':
    case 'card.updated':
      return `card ${envelope.type === 'card.created' ? 'created' : 'updated'}: ${join(d.card?.key, d.card?.title)}`;
    case 'deployment.recorded':
      return `deployment: ${join(d.deployment?.service, d.deployment?.version, d.deployment?.environment, d.deployment?.status)}`;
    case 'fix_request.finished':
      return `fix request ${join(d.fix_request?.status)}: ${join(d.fix_request?.repo)}`;
    default:
      return headline(envelope);
  }
}

/** The event's facts worth reading, as label → value (values as sent, unescaped). */
function details(envelope: Json): [string, string][] {
  const d = envelope.data ?? {};
  const rows: [string, unknown][] = [];
  if (d.alert && !d.incident) {
    rows.push(['Alert', d.alert.title], ['Severity', d.alert.severity], ['Service', d.alert.service], ['Source', d.alert.source], ['Status', d.alert.status],
      ['Summary', d.alert.summary], ['Started', d.alert.started_at], ['Link', d.alert.url]);
    if (Array.isArray(d.teams) && d.teams.length) rows.push(['Teams paged', d.teams.map((t: Json) => t.name).join(', ')]);
  } else if (d.incident) {
    rows.push(['Incident', d.incident.title], ['Severity', d.incident.severity], ['Status', d.incident.status], ['Opened', d.incident.opened_at], ['Closed', d.incident.closed_at],
      ['Alert', d.alert?.title], ['Link', d.alert?.url]);
  } else if (d.card) {
    rows.push(['Card', d.card.key], ['Title', d.card.title], ['Status', d.card.status], ['Priority', d.card.priority], ['Service', d.card.service],
      ['Changed', Array.isArray(d.changed) ? d.changed.join(', ') : null], ['Link', d.card.url]);
  } else if (d.deployment) {
    rows.push(['Service', d.deployment.service], ['Version', d.deployment.version], ['Environment', d.deployment.environment], ['Status', d.deployment.status], ['Action', d.action]);
  } else if (d.fix_request) {
    rows.push(['Repository', d.fix_request.repo], ['Status', d.fix_request.status], ['Pull request', d.fix_request.pr_url], ['Reason', d.fix_request.reason]);
  }
  rows.push(['Event', envelope.type], ['Occurred', envelope.occurred_at]);
  return rows.map(([label, v]) => [label, str(v)] as const).filter((r): r is [string, string] => r[1] !== null).map(([l, v]) => [l, oneLine(v, VALUE_MAX)]);
}

const htmlValue = (v: string) => (isLink(v) ? html`<a href="${v}">${v}</a>` : v);

function page(title: string, body: Html, footer: string): string {
  return html`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body style="font-family: sans-serif; line-height: 1.4">${body}<p style="color: #666; font-size: 12px">${footer}</p></body></html>`.text;
}

/** The email of one event. */
function single(envelope: Json, footer: string): EmailContent {
  const subject = oneLine(`[Vigil] ${summary(envelope)}`, SUBJECT_MAX);
  const rows = details(envelope);
  const text = [summary(envelope), '', ...rows.map(([l, v]) => `${l}: ${v}`), '', '-- ', footer].join('\n');
  const table = rows.map(([l, v]) => html`<tr><th align="left" style="padding-right: 12px">${l}</th><td>${htmlValue(v)}</td></tr>`);
  return { subject, text, html: page(subject, html`<h2>${oneLine(summary(envelope), VALUE_MAX)}</h2><table>${table}</table>`, footer) };
}

/** The email of several events: counted by kind in the subject, one line each, oldest first. */
function digest(envelopes: Json[], footer: string): EmailContent {
  const counts = new Map<string, number>();
  for (const e of envelopes) counts.set(String(e.type), (counts.get(String(e.type)) ?? 0) + 1);
  const byKind = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([kind, n]) => `${n} ${kind}`).join(', ');
  const subject = oneLine(`[Vigil] ${envelopes.length} notifications (${byKind})`, SUBJECT_MAX);
  const lines = envelopes.map((e) => ({ at: String(e.occurred_at ?? ''), line: oneLine(headline(e), VALUE_MAX) }));
  const intro = `${envelopes.length} notifications (${byKind}):`;
  const text = [intro, '', ...lines.map((l) => `• ${l.at}  ${l.line}`), '', '-- ', footer].join('\n');
  const items = lines.map((l) => html`<li><code>${l.at}</code> ${l.line}</li>`);
  return { subject, text, html: page(subject, html`<p>${intro}</p><ul>${items}</ul>`, footer) };
}

/** The email of these events (their envelopes, oldest first). */
export function emailContent(envelopes: Json[], publicUrl: string): EmailContent {
  const footer = `Sent by Vigil (${publicUrl}) to the email recipients of your organization's notification_settings.`;
  return envelopes.length === 1 ? single(envelopes[0]!, footer) : digest(envelopes, footer);
}
