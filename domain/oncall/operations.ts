/**
 * The computed reads of on call, one operation each for REST and the agent tools: a schedule's final shifts over a
 * window, who is on call at an instant, and who is on call now across one schedule, one team's or all.
 */
import Type, { type TSchema } from 'typebox';
import { publicOrganization, type Caller } from '../../engine/auth/caller.ts';
import type { Row } from '../../engine/descriptor.ts';
import { validationFailed } from '../../engine/errors.ts';
import { execute } from '../../engine/operations/index.ts';
import { readStore } from '../../engine/operations/context.ts';
import { ORGANIZATION, orNull } from '../../engine/operations/tool-schemas.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import { loadCalendars } from './calendar.ts';
import { groupBySchedule, MAX_WINDOW, onCallAt, scheduleOf } from './on-call.ts';
import type { Shift } from './shifts.ts';
import { DAY } from './zone.ts';

const SOURCE = Type.Object(
  {
    type: Type.Union([Type.Literal('layer'), Type.Literal('override')]),
    layer: Type.Optional(Type.String({ description: 'the layer\'s name (type layer)' })),
    layer_index: Type.Optional(Type.Integer({ description: 'its place in layers, 0 the bottom (type layer)' })),
    override_id: Type.Optional(Type.String({ description: 'the schedule_overrides row (type override)' })),
  },
  { additionalProperties: false, description: 'where the shift came from' },
);
const SHIFT = Type.Object({ start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }), email: Type.String(), source: SOURCE }, { additionalProperties: false });

/** A shift as answered: instants in UTC and its source named. */
export function shiftJson(shift: Shift, schedule: Row) {
  const layers = (schedule.layers as { name: string }[]) ?? [];
  const source = 'layer' in shift.source
    ? { type: 'layer' as const, layer: layers[shift.source.layer]?.name ?? '', layer_index: shift.source.layer }
    : { type: 'override' as const, override_id: shift.source.override };
  return { start: new Date(shift.start).toISOString(), end: new Date(shift.end).toISOString(), email: shift.email, source };
}

/** An instant of the input, or the clock's now when it was not sent; a value that names no instant is refused by name. */
function instantOf(input: Row, field: string, fallback: number): number {
  if (input[field] === undefined) return fallback;
  const at = Date.parse(String(input[field]));
  if (Number.isNaN(at)) throw validationFailed([{ field, message: 'must be an instant such as 2030-01-08T09:00:00Z' }]);
  return at;
}

export async function overridesOf(services: Services, caller: Caller, scheduleId: string): Promise<Row[]> {
  return readStore(services).list(scheduleOverrides, caller.organization.id, { where: { schedule_id: scheduleId } });
}

/** Whether a layer of the schedule follows a calendar (whose stored intervals are then read). */
export const followsCalendar = (schedule: Row) => Array.isArray(schedule.layers) && (schedule.layers as Row[]).some((l) => l.ical_url);

/** The schedule as the caller may read it (404 when it is not theirs), and its overrides. */
async function load(services: Services, caller: Caller, id: string): Promise<{ schedule: Row; overrides: Row[] }> {
  const schedule = (await execute(services, caller, { family: schedules.name, op: 'read', id })).data as Row;
  if (followsCalendar(schedule)) await loadCalendars(services, caller.organization.id, [String(schedule.id)]);
  return { schedule, overrides: await overridesOf(services, caller, id) };
}

const instantField = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const answer = (data: TSchema) => ({ schema: Type.Object({ data, organization: ORGANIZATION }) });

export const scheduleShifts: DomainOperation = {
  name: 'get_schedule_shifts',
  description:
    'A schedule\'s final shifts from `from` (default now) to `to` (default seven days later; at most 366 days after from): each with `start`, `end`, ' +
    '`email` and its `source`, the layer or the override it came from. Adjacent time of one person from one source is one shift; time no one covers is left out.',
  input: Type.Object(
    { id: Type.String({ minLength: 1, description: 'the schedule' }), from: Type.Optional(instantField('an instant with an offset')), to: Type.Optional(instantField('an instant with an offset; after from')) },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: schedules.name, param: 'id', action: 'shifts' },
  answer: answer(Type.Object({ schedule_id: Type.String(), from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }), shifts: Type.Array(SHIFT) })),
  async run(services, caller, input) {
    const from = instantOf(input, 'from', services.clock.now().getTime());
    const to = instantOf(input, 'to', from + 7 * DAY);
    if (to <= from) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
    if (to - from > MAX_WINDOW) throw validationFailed([{ field: 'to', message: 'must be at most 366 days after from' }]);
    const { schedule, overrides } = await load(services, caller, String(input.id));
    const { shifts } = scheduleOf(schedule, overrides, from, to);
    return {
      json: {
        data: { schedule_id: schedule.id, from: new Date(from).toISOString(), to: new Date(to).toISOString(), shifts: shifts.map((s) => shiftJson(s, schedule)) },
        organization: publicOrganization(caller.organization),
      },
    };
  },
};

const ON_CALL = Type.Object(
  {
    schedule_id: Type.String(),
    schedule: Type.String({ description: 'the schedule\'s name' }),
    at: Type.String({ format: 'date-time' }),
    email: orNull(Type.String(), 'who is on call at the instant; null: no one'),
    until: orNull(Type.String({ format: 'date-time' }), 'when they stop being on call; null when no one is, or when it is more than a year away'),
    source: orNull(SOURCE, 'where the current shift came from'),
    next: orNull(SHIFT, 'the shift after the current one (within a year)'),
  },
  { additionalProperties: false },
);

/** One schedule's answer at an instant. */
export function onCallJson(schedule: Row, overrides: Row[], at: number) {
  const { current, next, until_known } = onCallAt(schedule, overrides, at);
  const shift = current ? shiftJson(current, schedule) : null;
  return {
    schedule_id: String(schedule.id), schedule: String(schedule.name), at: new Date(at).toISOString(),
    email: shift?.email ?? null, until: shift && until_known ? shift.end : null, source: shift?.source ?? null, next: next ? shiftJson(next, schedule) : null,
  };
}

export const scheduleOnCall: DomainOperation = {
  name: 'get_schedule_on_call',
  description: 'Who is on call on a schedule at `at` (default now), until when, where that came from, and the next shift.',
  input: Type.Object({ id: Type.String({ minLength: 1, description: 'the schedule' }), at: Type.Optional(instantField('an instant with an offset; default now')) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: schedules.name, param: 'id', action: 'on_call' },
  answer: answer(ON_CALL),
  async run(services, caller, input) {
    const at = instantOf(input, 'at', services.clock.now().getTime());
    const { schedule, overrides } = await load(services, caller, String(input.id));
    return { json: { data: onCallJson(schedule, overrides, at), organization: publicOrganization(caller.organization) } };
  },
};

/** Every schedule of the organization (or of one team) with who is on call at an instant. */
export async function whoIsOnCall(services: Services, caller: Caller, filter: { schedule_id?: string; team_id?: string }, at: number) {
  const where: Row = {};
  if (filter.schedule_id) where.id = filter.schedule_id;
  if (filter.team_id) where.team_id = filter.team_id;
  const rows = await readStore(services).list(schedules, caller.organization.id, { where, orderBy: { name: 'asc' } });
  // one read of the overrides for every schedule asked about, and only those still running on the day of `at`
  // (onCallAt looks from that UTC day on; an override that ended before it changes nothing)
  const live: Row = { end: { $gt: new Date(Math.floor(at / DAY) * DAY) } };
  if (filter.schedule_id || filter.team_id) live.schedule_id = { $in: rows.map((r) => r.id) };
  const overrides = rows.length ? await readStore(services).list(scheduleOverrides, caller.organization.id, { where: live }) : [];
  const bySchedule = groupBySchedule(overrides);
  const following = rows.filter(followsCalendar).map((r) => String(r.id));
  if (following.length) await loadCalendars(services, caller.organization.id, following);
  return rows.map((schedule) => onCallJson(schedule, bySchedule.get(String(schedule.id)) ?? [], at));
}

export const whoIsOnCallTool: DomainOperation = {
  name: 'who_is_on_call',
  description:
    'Who is on call now (or at `at`) and who is next: for one schedule (`schedule_id`), the schedules of one team (`team_id`), or every schedule of the ' +
    'organization when neither is given. Each answer names the schedule, the person (null: no one), until when, and the next shift.',
  input: Type.Object(
    {
      schedule_id: Type.Optional(Type.String({ minLength: 1, description: 'one schedule' })),
      team_id: Type.Optional(Type.String({ minLength: 1, description: 'the schedules whose team_id is this team' })),
      at: Type.Optional(instantField('an instant with an offset; default now')),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  answer: answer(Type.Array(ON_CALL)),
  async run(services, caller, input) {
    const at = instantOf(input, 'at', services.clock.now().getTime());
    const data = await whoIsOnCall(services, caller, { schedule_id: input.schedule_id as string | undefined, team_id: input.team_id as string | undefined }, at);
    return { json: { data, organization: publicOrganization(caller.organization) } };
  },
};

export const ONCALL_OPERATIONS = [scheduleShifts, scheduleOnCall, whoIsOnCallTool];
