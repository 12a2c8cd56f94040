/**
 * `/oncall`: for each schedule who is on call now (until when) and next (`who_is_on_call`), and the signed-in
 * person's shifts over the next 14 days (`get_schedule_shifts` per schedule). `/oncall/schedules/<id>`: the next 14
 * days as a server-drawn SVG timeline (layers, overrides, final) with the final shifts as a table, the override form
 * ("cover for" someone, or "take this shift" from the table), which runs the schedule_overrides family's create
 * through the engine as REST does (a refusal is shown on the same page with what was typed), and the calendar
 * feeds' rotation, whose new secret address is shown once on the answer page (only its hash is kept).
 */
import { randomUUID } from 'node:crypto';
import type { ConsoleSession } from '../../../engine/auth/sessions.ts';
import type { Row } from '../../../engine/descriptor.ts';
import { ApiError } from '../../../engine/errors.ts';
import { execute } from '../../../engine/operations/index.ts';
import { roleAtLeast } from '../../../engine/plans.ts';
import type { Services } from '../../../engine/services.ts';
import { rotateCalendarFeed } from '../../../domain/oncall/feeds.ts';
import { scheduleOf } from '../../../domain/oncall/on-call.ts';
import { overridesOf, scheduleShifts, whoIsOnCallTool } from '../../../domain/oncall/operations.ts';
import scheduleOverrides from '../../../resources/schedule_overrides.ts';
import schedules from '../../../resources/schedules.ts';
import { html, type Html } from '../../../engine/html.ts';
import { savedNotice, sinceInput } from '../facts.ts';
import { seeOther } from '../http.ts';
import { csrfField, layout } from '../layout.ts';
import { run, type Json } from '../operations.ts';
import type { Screen, ScreenRequest } from '../page.ts';
import { organizationTime, type TimeFormat } from '../time.ts';
import { nameOf, timeline } from './timeline.ts';

const SECTION = '/oncall';
const DAY = 86_400_000;
const WINDOW = 14 * DAY;
const SAVED = { override: 'The override was added.' };

const person = (email: string | null | undefined) => (email ? html`${nameOf(email)} <span class="muted">${email}</span>` : html`<span class="muted">No one</span>`);
const schedulePath = (id: unknown) => `/oncall/schedules/${encodeURIComponent(String(id))}`;
const canWrite = (session: ConsoleSession) => roleAtLeast(session.caller.role, 'member');

function feedButton(session: ConsoleSession, label: string, scheduleId?: string): Html {
  return html`<form method="post" action="/oncall/feeds" class="inline">${csrfField(session)}${scheduleId ? html`<input type="hidden" name="schedule_id" value="${scheduleId}">` : ''}<button type="submit">${label}</button></form>`;
}

export const onCallScreen: Screen = async (services, { session }) => {
  const now = services.clock.now().getTime();
  const time = await organizationTime(services, session.caller.organization.id);
  const all = (await run(services, session.caller, whoIsOnCallTool, {})).data as Json[];
  const rows = all.map((s) => html`<tr><th scope="row"><a href="${schedulePath(s.schedule_id)}">${s.schedule}</a></th><td>${person(s.email)}</td>
<td>${s.email ? (s.until ? time(s.until) : 'more than a year') : ''}</td><td>${s.next ? html`${person(s.next.email)} from ${time(s.next.start)}` : html`<span class="muted">None within a year</span>`}</td></tr>`);
  const mine: Html[] = [];
  for (const s of all) {
    const answer = (await run(services, session.caller, scheduleShifts, { id: s.schedule_id, from: new Date(now).toISOString(), to: new Date(now + WINDOW).toISOString() })).data as Json;
    for (const shift of answer.shifts as Json[]) {
      if (shift.email === session.email) mine.push(html`<tr><td><a href="${schedulePath(s.schedule_id)}">${s.schedule}</a></td><td>${time(shift.start)}</td><td>${time(shift.end)}</td></tr>`);
    }
  }
  const body = html`<h1>On call</h1>
<section class="panel" aria-labelledby="now"><h2 id="now">Now and next</h2>${rows.length
    ? html`<table><thead><tr><th scope="col">Schedule</th><th scope="col">On call now</th><th scope="col">Until</th><th scope="col">Next</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">No schedules yet.</p>`}</section>
<section class="panel" aria-labelledby="mine"><h2 id="mine">My next shifts</h2><p class="muted">${session.email}, the next 14 days.</p>${mine.length
    ? html`<table><thead><tr><th scope="col">Schedule</th><th scope="col">From</th><th scope="col">To</th></tr></thead><tbody>${mine}</tbody></table>`
    : html`<p>No shifts in the next 14 days.</p>`}
${canWrite(session) ? html`<p>Your calendar feed holds all your shifts. ${feedButton(session, 'New address for my calendar feed')}</p>` : ''}</section>`;
  return { page: layout(session, { title: 'On call', section: SECTION, body }) };
};

interface OverrideState { values: Json; errors?: readonly { field: string; message: string }[]; message?: string }

function overrideForm(session: ConsoleSession, scheduleId: string, state: OverrideState): Html {
  const v = state.values;
  const errors = state.errors?.length || state.message
    ? html`<div class="notice error" role="alert"><p>Nothing was saved: ${state.message ?? ''}</p><ul>${(state.errors ?? []).map((e) => html`<li><strong>${e.field}</strong>: ${e.message}</li>`)}</ul></div>`
    : '';
  const field = (name: string, label: string, type: string, hint: string) =>
    html`<p><label for="ov-${name}">${label}</label> <input type="${type}" id="ov-${name}" name="${name}" value="${String(v[name] ?? '')}" aria-describedby="ov-${name}-hint"> <span class="help" id="ov-${name}-hint">${hint}</span></p>`;
  return html`<form method="post" action="${schedulePath(scheduleId)}/overrides" class="stack" aria-labelledby="add-override">${csrfField(session)}<input type="hidden" name="_key" value="${randomUUID()}">
<h2 id="add-override">Add an override</h2>${errors}
${field('email', 'Who is on call', 'email', 'you, unless you are an org admin')}
${field('replaces', 'Cover for', 'email', 'only this person\'s time is taken; blank: whoever is on call')}
${field('start', 'Start (UTC)', 'text', 'for example 2026-03-02 09:00, or an instant with an offset')}
${field('end', 'End (UTC)', 'text', 'after the start')}
<p><button type="submit">Add override</button></p></form>`;
}

function shiftTable(session: ConsoleSession, scheduleId: string, shifts: Json[], time: TimeFormat): Html {
  if (!shifts.length) return html`<p class="muted">No one is on call in the next 14 days.</p>`;
  const take = (s: Json) => html`<form method="post" action="${schedulePath(scheduleId)}/overrides" class="inline">${csrfField(session)}
<input type="hidden" name="email" value="${session.email}"><input type="hidden" name="replaces" value="${s.email}"><input type="hidden" name="start" value="${s.start}"><input type="hidden" name="end" value="${s.end}"><button type="submit" class="quiet">Take this shift</button></form>`;
  const mayTake = canWrite(session);
  return html`<table><caption>Final shifts, the next 14 days</caption><thead><tr><th scope="col">Who</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Source</th>${mayTake ? html`<th scope="col">Act</th>` : ''}</tr></thead><tbody>${shifts.map(
    (s) => html`<tr><td>${person(s.email)}</td><td>${time(s.start)}</td><td>${time(s.end)}</td><td>${s.source.type === 'layer' ? `layer ${s.source.layer}` : 'override'}</td>${mayTake ? html`<td>${s.email === session.email ? '' : take(s)}</td>` : ''}</tr>`,
  )}</tbody></table>`;
}

async function schedulePage(services: Services, request: ScreenRequest, state: OverrideState, status = 200) {
  const { session, ctx } = request;
  const id = String(ctx.params.id ?? '');
  const schedule = (await execute(services, session.caller, { family: schedules.name, op: 'read', id })).data as Row;
  const from = services.clock.now().getTime();
  const to = from + WINDOW;
  const final = (await run(services, session.caller, scheduleShifts, { id, from: new Date(from).toISOString(), to: new Date(to).toISOString() })).data as Json;
  const overrides = await overridesOf(services, session.caller, id);
  // the layers' own rows (before overrides): the same cached computation the operation ran
  const { layers } = scheduleOf(schedule, overrides, from, to);
  const names = ((schedule.layers as { name: string }[]) ?? []).map((l) => l.name);
  const ms = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(String(v)));
  const picture = timeline(`${String(schedule.name)}: who is on call over the next 14 days, by layer, overrides and final`, [
    ...layers.map((pieces, i) => ({ label: names[i] ?? `layer ${i}`, bars: pieces })),
    { label: 'Overrides', bars: overrides.map((o) => ({ start: ms(o.start), end: ms(o.end), email: String(o.email) })) },
    { label: 'Final', bars: (final.shifts as Json[]).map((s) => ({ start: Date.parse(s.start), end: Date.parse(s.end), email: String(s.email) })) },
  ], from, to);
  const time = await organizationTime(services, session.caller.organization.id);
  const write = canWrite(session);
  const body = html`<p><a href="${SECTION}">On call</a></p><h1>${String(schedule.name)}</h1>${savedNotice(ctx.query, SAVED)}
<p class="muted">Time zone ${String(schedule.time_zone)}. The picture is drawn in UTC days; the table below says the same in words.</p>
<figure class="panel">${picture}<figcaption>The next 14 days: each layer, the overrides, and the final row (who is paged).</figcaption></figure>
<section class="panel" aria-labelledby="final"><h2 id="final">Final shifts</h2>${shiftTable(session, id, final.shifts as Json[], time)}</section>
${write ? html`<section class="panel">${overrideForm(session, id, state)}</section>
<section class="panel" aria-labelledby="feed"><h2 id="feed">Calendar feed</h2><p>A secret address calendar apps subscribe to. A new one replaces the old, which stops working at once.</p>${feedButton(session, 'New address for this schedule\'s feed', id)}</section>` : ''}`;
  return { status, page: layout(session, { title: String(schedule.name), section: SECTION, body }) };
}

export const scheduleScreen: Screen = (services, request) => schedulePage(services, request, { values: { email: request.session.email } });

/** POST /oncall/schedules/<id>/overrides: the family's create as REST runs it; a refusal redraws the page with what was typed. */
export const overrideScreen: Screen = async (services, request) => {
  const { form, session, ctx } = request;
  const id = String(ctx.params.id ?? '');
  const typed = { email: form.email ?? '', replaces: form.replaces ?? '', start: form.start ?? '', end: form.end ?? '' };
  const body: Row = { schedule_id: id, email: typed.email.trim(), replaces: typed.replaces.trim() || null, start: sinceInput(typed.start.trim()) ?? '', end: sinceInput(typed.end.trim()) ?? '' };
  try {
    await execute(services, session.caller, { family: scheduleOverrides.name, op: 'create', body, idempotencyKey: form._key || undefined });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
    return schedulePage(services, request, { values: typed, errors: error.errors, message: error.message }, error.status);
  }
  seeOther(ctx, `${schedulePath(id)}?saved=override`);
};

/** POST /oncall/feeds: a new secret address, shown on this answer only (a page, not a redirect, so it is in no URL). */
export const rotateFeedScreen: Screen = async (services, { session, form }) => {
  const scheduleId = form.schedule_id || undefined;
  const answer = (await run(services, session.caller, rotateCalendarFeed, scheduleId ? { schedule_id: scheduleId } : {})).data as Json;
  const back = scheduleId ? schedulePath(scheduleId) : SECTION;
  const body = html`<p><a href="${back}">Back</a></p><h1>New calendar address</h1>
<div class="notice" role="status"><p>This address is shown once: copy it into your calendar app now. Vigil keeps only a hash of it; any address made before for the same ${scheduleId ? 'schedule' : 'person'} no longer works.</p></div>
<p><label for="feed-url">Calendar address</label> <input type="text" id="feed-url" readonly value="${answer.url}" size="80"></p>`;
  return { page: layout(session, { title: 'New calendar address', section: SECTION, body }) };
};
