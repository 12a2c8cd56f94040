/**
 * The status page as feeds: Atom 1.0 (RFC 4287) at `/status/<slug>/feed.atom` and RSS 2.0 at `/feed.rss`. One entry
 * per incident (its updates, newest first, as the content) and per maintenance window, of what the page shows. Every
 * text is escaped for XML and stripped of the characters XML 1.0 cannot carry; links are absolute, under the
 * service's public URL. An RSS item's description is HTML by the readers' convention, so it is written as HTML (each
 * paragraph escaped for HTML) inside CDATA: escaped once for XML, a reader would render `<img onerror…>` as markup. Entry ids are the notices' opaque keys (query.ts): stable across edits, and no row id leaks.
 */
import { htmlText } from '../../engine/html.ts';
import { INCIDENT_STATUS, MAINTENANCE_STATE } from './html.ts';
import type { PublicIncident, PublicMaintenance, PublicPage } from './query.ts';

/** XML text: escaped, without the control characters XML 1.0 forbids (even as references). */
export function xmlText(value: string): string {
  return xmlChars(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Without the control characters XML 1.0 forbids (even as references). */
const xmlChars = (value: string) => value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');

/**
 * An RSS description: the text's paragraphs as HTML, escaped for HTML, in a CDATA section. Escaped, the text holds no
 * `>`, so no `]]>` can end the section early.
 */
function rssDescription(text: string): string {
  const paragraphs = xmlChars(text).split(/\n{2,}/).filter(Boolean);
  const html = paragraphs.map((p) => `<p>${htmlText(p).replace(/\n/g, '<br>')}</p>`).join('');
  return `<![CDATA[${html}]]>`;
}

interface Entry {
  key: string;
  title: string;
  updated: string;
  published: string;
  text: string;
}

function incidentEntry(i: PublicIncident): Entry {
  const updates = [...i.updates].reverse().map((u) => `${u.at} ${INCIDENT_STATUS[u.status] ?? u.status}: ${u.message}`);
  const affects = i.components.length ? `Affects ${i.components.join(', ')}.` : '';
  return {
    key: `incident-${i.key}`,
    title: `${i.resolved_at ? 'Resolved' : INCIDENT_STATUS[i.status] ?? i.status}: ${i.title}`,
    published: i.started_at,
    updated: i.updates.at(-1)?.at ?? i.started_at,
    text: [affects, ...updates].filter(Boolean).join('\n\n'),
  };
}

function maintenanceEntry(m: PublicMaintenance): Entry {
  const affects = m.components.length ? `Affects ${m.components.join(', ')}.` : '';
  return {
    key: `maintenance-${m.key}`,
    title: `Maintenance (${(MAINTENANCE_STATE[m.state] ?? m.state).toLowerCase()}): ${m.title}`,
    published: m.posted_at,
    updated: m.updated_at,
    text: [`From ${m.starts_at} to ${m.ends_at} (UTC).`, affects, m.message].filter(Boolean).join('\n\n'),
  };
}

function entries(page: PublicPage): Entry[] {
  const all = [...page.open_incidents, ...page.resolved_incidents].map(incidentEntry).concat(page.maintenances.map(maintenanceEntry));
  return all.sort((a, b) => b.updated.localeCompare(a.updated) || a.key.localeCompare(b.key));
}

const pageUrl = (publicUrl: string, slug: string) => `${publicUrl.replace(/\/+$/, '')}/status/${slug}`;

export function renderAtom(page: PublicPage, publicUrl: string, now: Date): string {
  const url = pageUrl(publicUrl, page.slug);
  const list = entries(page);
  const updated = list[0]?.updated ?? now.toISOString();
  const items = list.map((e) => `<entry>
<id>${xmlText(`${url}#${e.key}`)}</id>
<title type="text">${xmlText(e.title)}</title>
<link rel="alternate" type="text/html" href="${xmlText(`${url}#${e.key}`)}"/>
<published>${xmlText(e.published)}</published>
<updated>${xmlText(e.updated)}</updated>
<content type="text">${xmlText(e.text)}</content>
</entry>`);
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${xmlText(url)}</id>
<title type="text">${xmlText(page.title)}</title>
<updated>${xmlText(updated)}</updated>
<author><name>${xmlText(page.title)}</name></author>
<link rel="self" type="application/atom+xml" href="${xmlText(`${url}/feed.atom`)}"/>
<link rel="alternate" type="text/html" href="${xmlText(url)}"/>
${items.join('\n')}
</feed>
`;
}

/** RFC 822 dates, as RSS 2.0 wants them. */
const rfc822 = (iso: string) => new Date(iso).toUTCString().replace('GMT', '+0000');

export function renderRss(page: PublicPage, publicUrl: string, now: Date): string {
  const url = pageUrl(publicUrl, page.slug);
  const list = entries(page);
  const items = list.map((e) => `<item>
<title>${xmlText(e.title)}</title>
<link>${xmlText(`${url}#${e.key}`)}</link>
<guid isPermaLink="false">${xmlText(`${url}#${e.key}`)}</guid>
<pubDate>${rfc822(e.updated)}</pubDate>
<description>${rssDescription(e.text)}</description>
</item>`);
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${xmlText(page.title)}</title>
<link>${xmlText(url)}</link>
<description>${xmlText(`Incidents and maintenance of ${page.title}`)}</description>
<lastBuildDate>${rfc822(list[0]?.updated ?? now.toISOString())}</lastBuildDate>
<atom:link href="${xmlText(`${url}/feed.rss`)}" rel="self" type="application/rss+xml"/>
${items.join('\n')}
</channel>
</rss>
`;
}
