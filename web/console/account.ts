/**
 * `/account`: the signed-in person's account — their organizations and roles, and their personal access tokens
 * (the spec's "Account page"): the list (organizations, ceiling, made, last used) with a Revoke button each, and the
 * form that makes one. The operations are domain/account/tokens.ts, run by imported handle; a refusal (a ceiling above
 * the person's role, an organization they are not in) redraws the form with what was chosen and the field named.
 * A new token is shown on the create's answer page only — a page, not a redirect, so it is in no URL, and never
 * again: the list and every later page hold its name and id only.
 */
import type { ConsoleSession } from '../../engine/auth/sessions.ts';
import { ApiError } from '../../engine/errors.ts';
import { html, type Html } from '../../engine/html.ts';
import type { Services } from '../../engine/services.ts';
import { createPersonalToken, listPersonalTokens, revokePersonalToken } from '../../domain/account/tokens.ts';
import { savedNotice } from './facts.ts';
import { seeOther } from './http.ts';
import { csrfField, layout } from './layout.ts';
import { run, type Json } from './operations.ts';
import type { Screen } from './page.ts';
import { timeFormat } from './time.ts';

export const ACCOUNT_SECTION = '/account';
const SAVED = { revoked: 'The token was revoked; it no longer works.' };
/** The ceilings, in the order the form offers them, as the spec names them. */
const CEILINGS: readonly [string, string][] = [
  ['viewer', 'Viewer (read only)'],
  ['member', 'Member (can operate)'],
  ['org_admin', 'Org admin'],
  ['unlimited', 'No limit (your role in each organization)'],
];
const ceilingLabel = (value: unknown) => CEILINGS.find(([v]) => v === value)?.[1] ?? String(value);
/** one checkbox per organization, named per organization (a form field is read once by name) */
const ORG_FIELD = 'organization:';
const utc = timeFormat('UTC');

interface FormState {
  name: string;
  organizations: string[];
  maxRole: string;
  errors: { field: string; message: string }[];
}

function fieldError(state: FormState, field: string): { attrs: Html | string; message: Html | string } {
  const error = state.errors.find((e) => e.field === field);
  return error
    ? { attrs: html` aria-invalid="true" aria-describedby="${field}-error"`, message: html`<p class="field-error" id="${field}-error">${error.message}</p>` }
    : { attrs: '', message: '' };
}

function createForm(session: ConsoleSession, state: FormState): Html {
  const name = fieldError(state, 'name');
  const orgs = fieldError(state, 'organizations');
  const ceiling = fieldError(state, 'max_role');
  const notice = state.errors.length
    ? html`<div class="notice error" role="alert"><p>No token was made: ${state.errors.map((e) => html`<a href="#${e.field === 'organizations' ? 'token-orgs' : `token-${e.field}`}">${e.message}</a> `)}</p></div>`
    : '';
  const boxes = session.memberships.map((m) => {
    const id = `token-org-${m.organization.id}`;
    const checked = state.organizations.includes(m.organization.id) ? html` checked` : '';
    return html`<li><input type="checkbox" id="${id}" name="${ORG_FIELD}${m.organization.id}" value="1"${checked}> <label for="${id}">${m.organization.name} <span class="muted">(your role: ${m.role})</span></label></li>`;
  });
  const options = CEILINGS.map(([value, label]) => html`<option value="${value}"${value === state.maxRole ? html` selected` : ''}>${label}</option>`);
  return html`<form method="post" action="${ACCOUNT_SECTION}/tokens" class="stack" aria-labelledby="new-token">${csrfField(session)}
<h3 id="new-token">Make a token</h3>${notice}
<p><label for="token-name">Name</label> <input type="text" id="token-name" name="name" maxlength="200" required value="${state.name}" aria-describedby="token-name-hint"${name.attrs}> <span class="help" id="token-name-hint">what it is for: a laptop, a pipeline, an agent</span></p>${name.message}
<fieldset id="token-orgs"${orgs.message ? html` aria-describedby="organizations-error"` : ''}><legend>Organizations it may act in</legend><ul class="choices">${boxes}</ul></fieldset>${orgs.message}
<p><label for="token-max_role">Most it may do</label> <select id="token-max_role" name="max_role" aria-describedby="token-max_role-hint"${ceiling.attrs}>${options}</select> <span class="help" id="token-max_role-hint">at most your role in each organization chosen; it never does more than your role allows at the time</span></p>${ceiling.message}
<p><button type="submit">Make token</button></p></form>`;
}

function tokenTable(session: ConsoleSession, tokens: Json[]): Html {
  if (!tokens.length) return html`<p class="muted">You have no personal access tokens.</p>`;
  const rows = tokens.map((t) => html`<tr><th scope="row">${t.name}</th>
<td>${(t.organizations as Json[]).map((o, i) => html`${i ? ', ' : ''}${o.name ?? html`<span class="muted">an organization you are no longer in</span>`}`)}</td>
<td>${ceilingLabel(t.max_role)}</td><td>${utc(t.created_at)}</td><td>${t.last_used_at ? utc(t.last_used_at) : html`<span class="muted">never</span>`}</td>
<td><form method="post" action="${ACCOUNT_SECTION}/tokens/${encodeURIComponent(String(t.id))}/revoke" class="inline">${csrfField(session)}<button type="submit" class="quiet" aria-label="Revoke ${t.name}">Revoke</button></form></td></tr>`);
  return html`<table><caption>Your tokens, newest first (last use to the minute, UTC)</caption><thead><tr><th scope="col">Name</th><th scope="col">Organizations</th><th scope="col">Most it may do</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Act</th></tr></thead><tbody>${rows}</tbody></table>`;
}

async function accountPage(services: Services, session: ConsoleSession, query: Record<string, unknown>, state: FormState, status = 200) {
  const tokens = (await run(services, session.caller, listPersonalTokens, {})).data as Json[];
  const roles = session.memberships.map((m) => html`<tr><th scope="row">${m.organization.name}</th><td>${m.role}</td></tr>`);
  const body = html`<h1>Account</h1>${savedNotice(query, SAVED)}
<section class="panel" aria-labelledby="you"><h2 id="you">You</h2><p>Signed in as ${session.email}.</p>
<table><caption>Your organizations</caption><thead><tr><th scope="col">Organization</th><th scope="col">Your role</th></tr></thead><tbody>${roles}</tbody></table></section>
<section class="panel" aria-labelledby="tokens"><h2 id="tokens">Personal access tokens</h2>
<p>A token acts as you at the agent-tool endpoint (<code>/api/mcp</code>): for the command line (<code>vigil tools</code>) and for agents. The configuration API does not accept it; it takes organization API keys. Revoking a token stops it at once.</p>
${tokenTable(session, tokens)}
${createForm(session, state)}</section>`;
  return { status, page: layout(session, { title: 'Account', section: ACCOUNT_SECTION, body }) };
}

export const accountScreen: Screen = (services, { session, ctx }) => {
  const only = session.memberships.length === 1 ? [session.memberships[0]!.organization.id] : [];
  return accountPage(services, session, ctx.query, { name: '', organizations: only, maxRole: 'viewer', errors: [] });
};

/** POST /account/tokens: the token on this answer page, once; a refusal redraws the form with the fields named. */
export const createTokenScreen: Screen = async (services, { session, form, ctx }) => {
  const organizations = Object.keys(form).filter((k) => k.startsWith(ORG_FIELD)).map((k) => k.slice(ORG_FIELD.length));
  const typed = { name: form.name ?? '', organizations, maxRole: form.max_role ?? '' };
  let answer: Json;
  try {
    answer = (await run(services, session.caller, createPersonalToken, { name: typed.name, organizations, max_role: typed.maxRole })).data as Json;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422 || !error.errors?.length) throw error;
    return accountPage(services, session, ctx.query, { ...typed, errors: [...error.errors] }, 422);
  }
  const body = html`<p><a href="${ACCOUNT_SECTION}">Account</a></p><h1>New personal access token</h1>
<div class="notice" role="status"><p>This token is shown once: copy it now. Vigil keeps only a hash of it and cannot show it again; if you lose it, revoke it and make another.</p></div>
<p><label for="new-token-value">Token “${answer.name}” (${ceilingLabel(answer.max_role)})</label> <input type="text" id="new-token-value" readonly value="${answer.token}" class="secret" autocomplete="off" spellcheck="false"></p>
<p>Send it as <code>${'Authorization: Bearer <token>'}</code> to <code>${services.config.publicUrl}/api/mcp</code>, or give it to <code>vigil tools</code> as <code>--personal-token</code> (or <code>VIGIL_PERSONAL_TOKEN</code>).</p>
<p><a href="${ACCOUNT_SECTION}">Back to your tokens</a></p>`;
  return { page: layout(session, { title: 'New personal access token', section: ACCOUNT_SECTION, body }) };
};

/** POST /account/tokens/<id>/revoke: another person's token, or an unknown one, is the 404 page. */
export const revokeTokenScreen: Screen = async (services, { session, ctx }) => {
  await run(services, session.caller, revokePersonalToken, { id: String(ctx.params.id ?? '') });
  seeOther(ctx, `${ACCOUNT_SECTION}?saved=revoked`);
};
