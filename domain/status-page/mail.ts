/**
 * What a subscriber receives: the confirmation request, and a notice of an incident (created, updated, resolved) or a
 * maintenance window (scheduled, changed, removed). Text and a simple HTML part, every value escaped; every notice
 * carries its one-click unsubscribe link in the body and in `List-Unsubscribe` / `List-Unsubscribe-Post` (RFC 8058).
 */
import { html } from '../../engine/html.ts';
import type { DirectMail } from '../../outbound/mail.ts';

const oneLine = (s: string, max = 200) => {
  const line = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function body(title: string, paragraphs: string[], link: { href: string; label: string }, footer: string): string {
  const text = paragraphs.map((p) => html`<p style="white-space: pre-line">${p}</p>`);
  return html`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family: sans-serif; line-height: 1.4">
<h2>${title}</h2>${text}<p><a href="${link.href}">${link.label}</a></p><p style="color: #666; font-size: 12px">${footer}</p></body></html>`.text;
}

export function confirmationMail(to: string, pageTitle: string, confirmUrl: string, hours: number): DirectMail {
  const subject = oneLine(`Confirm your subscription to ${pageTitle}`);
  const lines = [
    `Someone (we hope you) asked to be told by email of incidents and maintenance on ${pageTitle}.`,
    `To confirm, open this link within ${hours} hours: ${confirmUrl}`,
    'If it was not you, ignore this message: nothing more will be sent.',
  ];
  return {
    to, subject, text: lines.join('\n\n'),
    html: body(subject, [lines[0]!, `The link works for ${hours} hours.`, lines[2]!], { href: confirmUrl, label: 'Confirm the subscription' }, pageTitle),
  };
}

export interface Notice {
  /** e.g. "Incident resolved" */
  what: string;
  title: string;
  lines: string[];
}

export function noticeMail(to: string, pageTitle: string, pageUrl: string, unsubscribeUrl: string, notice: Notice): DirectMail {
  const subject = oneLine(`[${pageTitle}] ${notice.what}: ${notice.title}`);
  const footer = `You receive this because you subscribed to ${pageTitle}. Unsubscribe: ${unsubscribeUrl}`;
  return {
    to, subject,
    text: [`${notice.what}: ${notice.title}`, ...notice.lines, `Status page: ${pageUrl}`, '-- ', footer].join('\n\n'),
    html: body(`${notice.what}: ${notice.title}`, [...notice.lines, `Status page: ${pageUrl}`], { href: unsubscribeUrl, label: 'Unsubscribe' }, footer),
    headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
