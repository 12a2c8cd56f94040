/**
 * `/paging` ("My paging"): the signed-in person's own contact methods (add, verify by code, delete) and notification
 * rules (add, delete). Every form runs the same operation as REST and the agent tools — the families' create and
 * delete through the engine, send_verification and verify_contact_method by their imported handles — with the person
 * as the caller on their own surface (`ownRowsOnly`: an org admin too sees and changes only their own here; everyone's
 * are under Configuration). A refusal redraws the page with what was typed and the field named. No script.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../../engine/auth/caller.ts';
import type { ConsoleSession } from '../../../engine/auth/sessions.ts';
import type { Row } from '../../../engine/descriptor.ts';
import { ApiError } from '../../../engine/errors.ts';
import { html, type Html } from '../../../engine/html.ts';
import { execute } from '../../../engine/operations/index.ts';
import { roleAtLeast } from '../../../engine/plans.ts';
import type { Services } from '../../../engine/services.ts';
import { sendVerificationOperation, verifyContactMethod } from '../../../domain/paging/contacts-verification.ts';
import contactMethods, { CONTACT_TYPES, VERIFIED_TYPES, type ContactType } from '../../../resources/contact_methods.ts';
import notificationRules, { URGENCIES } from '../../../resources/notification_rules.ts';
import { savedNotice } from '../facts.ts';
import { seeOther } from '../http.ts';
import { csrfField, layout } from '../layout.ts';
import { run } from '../operations.ts';
import type { Screen, ScreenRequest } from '../page.ts';

export const PAGING_SECTION = '/paging';
const SAVED: Record<string, string> = {
  method: 'The contact method was added.',
  sent: 'A code was sent. Enter it below within 10 minutes.',
  verified: 'The contact method is verified.',
  rule: 'The notification rule was added.',
  deleted: 'Deleted.',
};
const TYPE_LABELS: Record<ContactType, string> = {
  email: 'Email', chat: 'Chat direct message', sms: 'SMS', voice: 'Voice call', ntfy: 'ntfy push', pushover: 'Pushover', webhook: 'Webhook',
};

/** The person on their own surface: only their own rows, whatever their role. */
const own = (session: ConsoleSession): Caller => ({ ...session.caller, ownRowsOnly: true });
const canWrite = (session: ConsoleSession) => roleAtLeast(session.caller.role, 'member');

interface State {
  /** which form the refusal belongs to, and what was typed in it */
  form?: 'method' | 'rule' | 'verify';
  values?: Record<string, string>;
  message?: string;
  errors?: readonly { field: string; message: string }[];
}

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;

function refusal(state: State, form: State['form']): Html | string {
  if (state.form !== form || !state.message) return '';
  return html`<div class="notice error" role="alert"><p>Nothing was saved: ${state.message}</p><ul>${(state.errors ?? []).map((e) => html`<li><strong>${e.field}</strong>: ${e.message}</li>`)}</ul></div>`;
}

function methodRow(session: ConsoleSession, m: Row, write: boolean): Html {
  const id = String(m.id);
  const needs = VERIFIED_TYPES.includes(m.type as ContactType);
  const status = !needs ? html`<span class="muted">used as saved</span>` : m.verified ? 'Verified' : html`<strong>Not verified</strong>`;
  const verify = write && needs && !m.verified
    ? html`<form method="post" action="${PAGING_SECTION}/methods/${id}/send" class="inline">${csrfField(session)}<button type="submit" class="quiet">Send code</button></form>
<form method="post" action="${PAGING_SECTION}/methods/${id}/verify" class="inline">${csrfField(session)}<label for="code-${id}">Code for ${String(m.name)}</label> <input type="text" id="code-${id}" name="code" inputmode="numeric" autocomplete="one-time-code" size="8"> <button type="submit">Verify</button></form>`
    : '';
  const remove = write ? html`<form method="post" action="${PAGING_SECTION}/methods/${id}/delete" class="inline">${csrfField(session)}<button type="submit" class="quiet">Delete ${String(m.name)}</button></form>` : '';
  return html`<tr><th scope="row">${String(m.name)}</th><td>${TYPE_LABELS[m.type as ContactType] ?? String(m.type)}</td><td>${String(m.address)}</td><td>${status}</td><td>${verify} ${remove}</td></tr>`;
}

function methodForm(session: ConsoleSession, state: State): Html {
  const v = state.form === 'method' ? state.values ?? {} : {};
  const options = CONTACT_TYPES.map((t) => html`<option value="${t}"${v.type === t ? html` selected` : ''}>${TYPE_LABELS[t]}</option>`);
  return html`<form method="post" action="${PAGING_SECTION}/methods" class="stack" aria-labelledby="add-method">${csrfField(session)}${hidden('_key', randomUUID())}
<h2 id="add-method">Add a contact method</h2>${refusal(state, 'method')}
<p><label for="cm-type">Type</label> <select id="cm-type" name="type">${options}</select></p>
<p><label for="cm-name">Name</label> <input type="text" id="cm-name" name="name" value="${v.name ?? ''}" aria-describedby="cm-name-hint"> <span class="help" id="cm-name-hint">your label: "phone", "work mail"</span></p>
<p><label for="cm-address">Address</label> <input type="text" id="cm-address" name="address" value="${v.address ?? ''}" aria-describedby="cm-address-hint"> <span class="help" id="cm-address-hint">an email; a phone number with + and country code; ${'https://<ntfy server>/<topic>'}; a Pushover user key; your chat user id; an https webhook URL</span></p>
<p><button type="submit">Add contact method</button></p></form>`;
}

function ruleForm(session: ConsoleSession, methods: Row[], state: State): Html {
  const v = state.form === 'rule' ? state.values ?? {} : {};
  if (!methods.length) return html`<h2 id="add-rule">Add a notification rule</h2><p class="muted">Add a contact method first.</p>`;
  const options = methods.map((m) => html`<option value="${String(m.id)}"${v.contact_method_id === m.id ? html` selected` : ''}>${String(m.name)} (${TYPE_LABELS[m.type as ContactType] ?? String(m.type)})</option>`);
  const urgencies = URGENCIES.map((u) => html`<option value="${u}"${v.urgency === u ? html` selected` : ''}>${u}</option>`);
  return html`<form method="post" action="${PAGING_SECTION}/rules" class="stack" aria-labelledby="add-rule">${csrfField(session)}${hidden('_key', randomUUID())}
<h2 id="add-rule">Add a notification rule</h2>${refusal(state, 'rule')}
<p><label for="nr-method">Contact method</label> <select id="nr-method" name="contact_method_id">${options}</select></p>
<p><label for="nr-delay">Minutes after I am paged</label> <input type="number" id="nr-delay" name="delay_minutes" min="0" max="1440" value="${v.delay_minutes ?? '0'}"></p>
<p><label for="nr-urgency">Urgency</label> <select id="nr-urgency" name="urgency">${urgencies}</select></p>
<p><button type="submit">Add rule</button></p></form>`;
}

async function page(services: Services, request: ScreenRequest, state: State = {}, status = 200) {
  const { session, ctx } = request;
  const caller = own(session);
  const methods = ((await execute(services, caller, { family: contactMethods.name, op: 'list' })).list?.data ?? []) as Row[];
  const rules = ((await execute(services, caller, { family: notificationRules.name, op: 'list' })).list?.data ?? []) as Row[];
  const write = canWrite(session);
  const byId = new Map(methods.map((m) => [String(m.id), m]));
  const ruleRows = rules.map((r) => {
    const m = byId.get(String(r.contact_method_id));
    const label = m ? String(m.name) : String(r.contact_method_id);
    return html`<tr><td>${String(r.urgency)}</td><td>${String(r.delay_minutes)} min</td><th scope="row">${label}</th><td>${write ? html`<form method="post" action="${PAGING_SECTION}/rules/${String(r.id)}/delete" class="inline">${csrfField(session)}<button type="submit" class="quiet">Delete rule ${label} after ${String(r.delay_minutes)} min (${String(r.urgency)})</button></form>` : ''}</td></tr>`;
  });
  const body = html`<h1>My paging</h1>${savedNotice(ctx.query, SAVED)}
<p class="muted">How you are reached when you are paged (${session.email}). With no rule for a page's urgency you get an email at ${session.email} at once. SMS, voice and email methods are used only once verified with a code.</p>
<section class="panel" aria-labelledby="methods"><h2 id="methods">My contact methods</h2>${refusal(state, 'verify')}${methods.length
    ? html`<table><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Address</th><th scope="col">Verified</th><th scope="col">Act</th></tr></thead><tbody>${methods.map((m) => methodRow(session, m, write))}</tbody></table>`
    : html`<p>No contact methods yet.</p>`}</section>
${write ? html`<section class="panel">${methodForm(session, state)}</section>` : ''}
<section class="panel" aria-labelledby="rules"><h2 id="rules">My notification rules</h2>${ruleRows.length
    ? html`<table><thead><tr><th scope="col">Urgency</th><th scope="col">When</th><th scope="col">Contact method</th><th scope="col">Act</th></tr></thead><tbody>${ruleRows}</tbody></table>`
    : html`<p>No rules: you are emailed at once.</p>`}</section>
${write ? html`<section class="panel">${ruleForm(session, methods, state)}</section>` : ''}`;
  return { status, page: layout(session, { title: 'My paging', section: PAGING_SECTION, body }) };
}

export const myPagingScreen: Screen = (services, request) => page(services, request);

/** Runs `work`; a refusal a person can correct (not 404, not 5xx) redraws the page with it under `form`. */
async function orRedraw(services: Services, request: ScreenRequest, form: State['form'], values: Record<string, string>, work: () => Promise<string>) {
  let saved: string;
  try {
    saved = await work();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
    return page(services, request, { form, values, message: error.message, errors: error.errors }, error.status);
  }
  seeOther(request.ctx, `${PAGING_SECTION}?saved=${saved}`);
}

export const addMethodScreen: Screen = (services, request) => {
  const { form, session } = request;
  const values = { type: form.type ?? '', name: form.name ?? '', address: form.address ?? '' };
  return orRedraw(services, request, 'method', values, async () => {
    await execute(services, own(session), { family: contactMethods.name, op: 'create', body: { ...values, name: values.name.trim() }, idempotencyKey: form._key || undefined });
    return 'method';
  });
};

export const sendCodeScreen: Screen = (services, request) =>
  orRedraw(services, request, 'verify', {}, async () => {
    await run(services, own(request.session), sendVerificationOperation, { id: String(request.ctx.params.id ?? '') });
    return 'sent';
  });

export const verifyScreen: Screen = (services, request) =>
  orRedraw(services, request, 'verify', {}, async () => {
    await run(services, own(request.session), verifyContactMethod, { id: String(request.ctx.params.id ?? ''), code: (request.form.code ?? '').trim() });
    return 'verified';
  });

export const deleteMethodScreen: Screen = (services, request) =>
  orRedraw(services, request, 'verify', {}, async () => {
    await execute(services, own(request.session), { family: contactMethods.name, op: 'delete', id: String(request.ctx.params.id ?? '') });
    return 'deleted';
  });

export const addRuleScreen: Screen = (services, request) => {
  const { form, session } = request;
  const values = { contact_method_id: form.contact_method_id ?? '', delay_minutes: form.delay_minutes ?? '', urgency: form.urgency ?? '' };
  const delay = values.delay_minutes.trim();
  // a number typed is sent as one; anything else as typed, so the operation names delay_minutes
  const body = { ...values, delay_minutes: /^-?\d+$/.test(delay) ? Number(delay) : delay };
  return orRedraw(services, request, 'rule', values, async () => {
    await execute(services, own(session), { family: notificationRules.name, op: 'create', body, idempotencyKey: form._key || undefined });
    return 'rule';
  });
};

export const deleteRuleScreen: Screen = (services, request) =>
  orRedraw(services, request, 'rule', {}, async () => {
    await execute(services, own(request.session), { family: notificationRules.name, op: 'delete', id: String(request.ctx.params.id ?? '') });
    return 'deleted';
  });
