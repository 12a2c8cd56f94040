/**
 * The page around every console screen: the service's name, the navigation, the organization switcher (when the
 * person belongs to several) and sign-out. Forms carry the session's CSRF token.
 */
import type { ConsoleSession } from '../../engine/auth/sessions.ts';
import { STYLESHEET_PATH } from '../assets/stylesheet.ts';
import { html, type Html } from '../../engine/html.ts';

/** The console's sections, in the navigation's order. */
export const SECTIONS = [
  { path: '/now', label: 'Now' },
  { path: '/board', label: 'Board' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/incidents', label: 'Incidents' },
  { path: '/oncall', label: 'On call' },
  { path: '/paging', label: 'My paging' },
  { path: '/insights', label: 'Insights' },
  { path: '/deployments', label: 'Deployments' },
  { path: '/deliveries', label: 'Deliveries' },
  { path: '/config', label: 'Configuration' },
] as const;

/** The hidden CSRF field every console form carries. */
export const csrfField = (session: ConsoleSession) => html`<input type="hidden" name="_csrf" value="${session.csrf}">`;

/** A bare document: the head every page shares; `refreshSeconds` makes it reload itself (no script). */
export function documentOf(title: string, body: Html, refreshSeconds?: number): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refreshSeconds ? html`<meta http-equiv="refresh" content="${String(refreshSeconds)}">` : ''}<title>${title} · Vigil</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><a class="skip" href="#main">Skip to the content</a>${body}</body></html>
`;
}

/** What needs someone now, counted for the navigation (screen() reads it once per page: get_attention). */
export interface NavCounts {
  incidents: number;
  alerts: number;
}
const navCounts = new WeakMap<ConsoleSession, NavCounts>();
export const setNavCounts = (session: ConsoleSession, counts: NavCounts) => navCounts.set(session, counts);

function navLabel(session: ConsoleSession, path: string, label: string): Html | string {
  const counts = navCounts.get(session);
  if (!counts) return label;
  const count = (n: number, what: string) => html`${label} <span class="count">${String(n)}<span class="visually-hidden"> ${what}</span></span>`;
  if (path === '/now') return count(counts.incidents + counts.alerts, 'waiting');
  if (path === '/alerts') return count(counts.alerts, 'unacknowledged');
  if (path === '/incidents') return count(counts.incidents, 'open');
  return label;
}

function switcher(session: ConsoleSession, back: string): Html {
  const current = session.caller.organization;
  if (session.memberships.length < 2) return html`<span>${current.name}</span>`;
  const options = session.memberships.map(
    (m) => html`<option value="${m.organization.id}"${m.organization.id === current.id ? html` selected` : ''}>${m.organization.name}</option>`,
  );
  return html`<form class="inline" method="post" action="/organization">${csrfField(session)}<input type="hidden" name="next" value="${back}">
<label for="org-switch">Organization</label><select id="org-switch" name="organization_id">${options}</select><button type="submit" class="quiet">Switch</button></form>`;
}

export interface PageOptions {
  title: string;
  /** the section's path, marked current in the navigation */
  section: string;
  /** where the switcher returns to (the section, so another organization's ids are not kept) */
  body: Html;
  /** reload the page every so many seconds (a page with no form being filled: the Now page) */
  refreshSeconds?: number;
}

export function layout(session: ConsoleSession, page: PageOptions): Html {
  const nav = SECTIONS.map((s) => html`<li><a href="${s.path}"${s.path === page.section ? html` aria-current="page"` : ''}>${navLabel(session, s.path, s.label)}</a></li>`);
  return documentOf(page.title, html`<header class="top"><div class="bar"><a class="brand" href="/now">Vigil</a>
<nav aria-label="Console"><ul>${nav}</ul></nav>
<div class="who">${switcher(session, page.section)}<a class="muted" href="/account"${page.section === '/account' ? html` aria-current="page"` : ''} title="Your account and personal access tokens">${session.email} (${session.caller.role})</a>
<form class="inline" method="post" action="/logout">${csrfField(session)}<button type="submit" class="quiet">Sign out</button></form></div></div></header>
<main id="main" tabindex="-1">${page.body}</main>`, page.refreshSeconds);
}
