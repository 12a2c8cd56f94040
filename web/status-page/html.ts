/**
 * The status page as one small HTML document: no script, no external resource, status said in words (a
 * symbol and colour only repeat it), every stored text escaped.
 */
import type { Context } from 'koa';
import { html, raw, safeUrl, type Html } from '../../engine/html.ts';
import type { PublicComponent, PublicIncident, PublicMaintenance, PublicPage } from './query.ts';

const COMPONENT_STATUS: Record<string, { label: string; mark: string }> = {
  ok: { label: 'Operational', mark: '✓' },
  at_risk: { label: 'At risk', mark: '!' },
  breaching: { label: 'Disrupted', mark: '✕' },
  no_data: { label: 'No data', mark: '?' },
  maintenance: { label: 'Under maintenance', mark: '⚙' },
};
export const MAINTENANCE_STATE: Record<string, string> = { scheduled: 'Scheduled', in_progress: 'In progress', completed: 'Completed' };
export const INCIDENT_STATUS: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };
const IMPACT: Record<string, string> = { none: 'No impact', minor: 'Minor impact', major: 'Major impact', critical: 'Critical impact' };
const SEVERITY = ['ok', 'no_data', 'maintenance', 'at_risk', 'breaching'];

/** Dates as readable UTC text inside `<time>` (the page knows no visitor time zone without a script). */
function time(at: string | null): Html | string {
  if (!at) return '';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function summary(page: PublicPage): string {
  const open = page.open_incidents.length;
  if (open > 0) return open === 1 ? 'There is 1 open incident.' : `There are ${open} open incidents.`;
  const statuses = page.components.map((c) => c.status).filter((s): s is string => s !== null);
  const worst = statuses.reduce<string | null>((a, b) => (a === null || SEVERITY.indexOf(b) > SEVERITY.indexOf(a) ? b : a), null);
  if (worst === null) return 'No open incidents.';
  if (worst === 'ok') return 'All systems operational.';
  if (worst === 'no_data') return 'Some components have no recent data.';
  if (worst === 'maintenance') return 'Some components are under maintenance.';
  return 'Some components are degraded.';
}

/** Facts joined by a middle dot, the empty ones left out. */
const facts = (parts: (Html | string)[]) => parts.filter((p) => String(p) !== '').flatMap((p, i) => (i ? [' · ', p] : [p]));

function component(c: PublicComponent): Html {
  const status = c.status === null ? null : (COMPONENT_STATUS[c.status] ?? { label: c.status, mark: '' });
  const badge = status && html`<span class="status s-${c.status}"><span aria-hidden="true">${status.mark}</span> ${status.label}</span>`;
  const description = c.description && html`<p class="desc">${c.description}</p>`;
  const note = c.note && html`<p class="note">${c.note}</p>`;
  return html`<li><div class="row"><span class="name">${c.name}</span>${badge}</div>${description}${note}</li>`;
}

function maintenance(m: PublicMaintenance): Html {
  const line = facts([
    html`<span class="istatus">${MAINTENANCE_STATE[m.state] ?? m.state}</span>`,
    html`${time(m.starts_at)} to ${time(m.ends_at)}`,
    m.components.length ? `Affects ${m.components.join(', ')}` : '',
  ]);
  const message = m.message && html`<p class="msg">${m.message}</p>`;
  return html`<article class="incident maintenance" id="maintenance-${m.key}"><h3>${m.title}</h3><p class="facts">${line}</p>${message}</article>`;
}

function incident(i: PublicIncident): Html {
  const line = facts([
    html`<span class="istatus">${INCIDENT_STATUS[i.status] ?? i.status}</span>`,
    IMPACT[i.impact] ?? i.impact,
    i.components.length ? `Affects ${i.components.join(', ')}` : '',
    html`Started ${time(i.started_at)}`,
    i.resolved_at ? html`Resolved ${time(i.resolved_at)}` : '',
  ]);
  // newest update first, as status pages read
  const updates = [...i.updates]
    .reverse()
    .map((u) => html`<li><p class="when">${time(u.at)} · <strong>${INCIDENT_STATUS[u.status] ?? u.status}</strong></p><p class="msg">${u.message}</p></li>`);
  return html`<article class="incident" id="incident-${i.key}"><h3>${i.title}</h3><p class="facts">${line}</p>${updates.length ? html`<ol class="updates" aria-label="Updates, newest first">${updates}</ol>` : ''}</article>`;
}

const STYLE = raw(`
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header,main,footer{max-width:46rem;margin:0 auto;padding:0 1rem}
h1{margin:1.5rem 0 .25rem}h2{margin-top:2rem;font-size:1.25rem}h3{margin:0 0 .25rem;font-size:1.1rem}
.summary{font-size:1.1rem;font-weight:600}
ul.components{list-style:none;padding:0;margin:0;border:1px solid #ccc;border-radius:6px;background:#fff}
ul.components li{padding:.6rem .9rem;border-top:1px solid #ddd}ul.components li:first-child{border-top:0}
.row{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}.name{font-weight:600}
.desc{margin:.1rem 0 0;color:#444;font-size:.95rem}
.status{font-weight:600}.s-ok{color:#1a6b2f}.s-at_risk{color:#8a5a00}.s-breaching{color:#b00020}.s-no_data{color:#555}.s-maintenance{color:#0b57d0}
.note{margin:.1rem 0 0;font-size:.95rem;overflow-wrap:anywhere}.maintenance{border-left:4px solid #0b57d0}
.incident{background:#fff;border:1px solid #ccc;border-radius:6px;padding:.75rem .9rem;margin:.75rem 0}
.facts{margin:0;color:#333;font-size:.95rem}.istatus{font-weight:600}
.updates{list-style:none;padding:0;margin:.5rem 0 0}.updates li{border-top:1px solid #eee;padding:.4rem 0}
.when{margin:0;font-size:.9rem;color:#444}.msg{margin:.1rem 0 0;white-space:pre-line;overflow-wrap:anywhere}
footer{margin:2rem auto;color:#444;font-size:.9rem}a{color:#0b57d0}
input,button{font:inherit;padding:.3rem .5rem}button{cursor:pointer}
`);

export interface RenderOptions {
  /** seconds between automatic reloads (a `<meta http-equiv="refresh">`); none when absent */
  refreshSeconds?: number;
  /** show the subscribe form (the deployment sends mail) */
  subscribe?: boolean;
}

export function renderStatusPage(page: PublicPage, options: RenderOptions = {}): string {
  const open = page.open_incidents.length ? page.open_incidents.map(incident) : html`<p>No open incidents.</p>`;
  const past = page.resolved_incidents.length ? page.resolved_incidents.map(incident) : html`<p>No incidents resolved in the last ${page.history_days} days.</p>`;
  const components = page.components.length ? html`<ul class="components">${page.components.map(component)}</ul>` : html`<p>No components are listed.</p>`;
  const upcoming = page.maintenances.filter((m) => m.state !== 'completed');
  const done = page.maintenances.filter((m) => m.state === 'completed');
  const windows = upcoming.length ? upcoming.map(maintenance) : html`<p>No maintenance is scheduled.</p>`;
  const pastWindows = done.length > 0 && html`<section aria-labelledby="past-maintenance"><h2 id="past-maintenance">Past maintenance</h2>${done.map(maintenance)}</section>`;
  const refresh = options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">` : null;
  const support = page.support_url && safeUrl(page.support_url) && html` <a href="${page.support_url}" rel="noopener noreferrer">Contact support</a>.`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${page.title}</title>
<link rel="alternate" type="application/atom+xml" title="${page.title} (Atom)" href="${page.slug}/feed.atom">
<link rel="alternate" type="application/rss+xml" title="${page.title} (RSS)" href="${page.slug}/feed.rss"><style>${STYLE}</style></head>
<body><header><h1>${page.title}</h1><p class="summary">${summary(page)}</p></header>
<main>
<section aria-labelledby="components"><h2 id="components">Components</h2>${components}</section>
<section aria-labelledby="open"><h2 id="open">Current incidents</h2>${open}</section>
<section aria-labelledby="maintenance"><h2 id="maintenance">Scheduled maintenance</h2>${windows}</section>
<section aria-labelledby="past"><h2 id="past">Past incidents</h2>${past}</section>
${pastWindows}
${options.subscribe && html`<section aria-labelledby="subscribe"><h2 id="subscribe">Get updates by email</h2><form method="post" action="${page.slug}/subscribe" class="subscribe"><label for="email">Email address</label> <input id="email" type="email" name="email" required maxlength="254" autocomplete="email"> <button type="submit">Subscribe</button></form><p class="desc">We send one message to confirm; nothing else until you do. Every message has a link to unsubscribe.</p></section>`}
</main>
<footer><p>Times are in UTC.${support} <a href="${page.slug}.json">This page as JSON</a>. Follow it: <a href="${page.slug}/feed.atom">Atom</a>, <a href="${page.slug}/feed.rss">RSS</a>.</p></footer>
</body></html>
`.text;
}

/** A short page in the status page's look: the subscription steps' answers and the not-found page. */
export function renderMessagePage(title: string, paragraphs: string[], form?: { action: string; button: string; fields: Record<string, string> }): string {
  const hidden = form && Object.entries(form.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const button = form && html`<form method="post" action="${form.action}">${hidden}<button type="submit">${form.button}</button></form>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title>
<style>${STYLE}</style></head>
<body><header><h1>${title}</h1></header>
<main>${paragraphs.map((p, i) => html`<p${i === 0 ? raw(' class="summary"') : ''}>${p}</p>`)}${button}</main></body></html>
`.text;
}
/**
 * The one answer for an unknown, private or unavailable page: it tells nothing about which. It wears the status
 * page's own look (the same inline styles and layout), not the console's, since a visitor of a page meets it.
 */
const MESSAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Answers a message page (renderMessagePage): never cached, not sniffed, no referrer, no script, not framed. */
export function sendMessagePage(ctx: Context, status: number, body: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', MESSAGE_POLICY);
  ctx.type = 'text/html; charset=utf-8';
  ctx.status = status;
  ctx.body = body;
}

export const NOT_FOUND_HTML = renderMessagePage('Status page not found', ['No public status page is published at this address.']);
