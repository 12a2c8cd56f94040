import Type from 'typebox';
import { Temporal } from 'temporal-polyfill';
import { defineFamily, nullable, type Row, type Rule, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { ianaTimezone } from '../engine/rules.ts';
import { targetUrl } from '../engine/targets.ts';
import { emailSchema, normalEmail } from './team_members.ts';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const ROTATION_UNITS = ['hourly', 'daily', 'weekly'] as const;

const LOCAL_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?$';
const CLOCK_TIME = '^([01]\\d|2[0-3]):[0-5]\\d$';
const localDateTime = (description: string) =>
  Type.String({ pattern: LOCAL_DATE_TIME, 'x-format-description': 'a local date-time YYYY-MM-DDTHH:MM[:SS], no offset', description });

const restriction = Type.Object(
  {
    days: Type.Array(Type.Union(WEEKDAYS.map((d) => Type.Literal(d))), { minItems: 1, maxItems: 7, description: 'the days a window starts on' }),
    from: Type.String({ pattern: CLOCK_TIME, 'x-format-description': 'HH:MM', description: 'local time the window opens' }),
    to: Type.String({ pattern: CLOCK_TIME, 'x-format-description': 'HH:MM', description: 'local time it closes; before from: the next day; never equal to from' }),
  },
  { additionalProperties: false },
);

export const layerSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    participants: Type.Optional(Type.Array(emailSchema(), { minItems: 1, maxItems: 100, description: 'members of the organization, in rotation order (required unless ical_url is set)' })),
    ical_url: Type.Optional(nullable(targetUrl('outbound', {
      description: 'an iCalendar (.ics) URL the layer follows instead of a rotation: each event names the member on call (SUMMARY holding their email, else an ATTENDEE or ORGANIZER mailto); fetched through the guarded client when saved and every VIGIL_CALENDAR_REFRESH_SECONDS',
    }))),
    rotation: Type.Optional(Type.Object(
      {
        unit: Type.Union(ROTATION_UNITS.map((u) => Type.Literal(u)), { description: 'hourly counts wall-clock hours in the schedule\'s zone' }),
        length: Type.Integer({ minimum: 1, maximum: 1000, description: 'units per shift' }),
      },
      { additionalProperties: false, description: 'required unless ical_url is set' },
    )),
    handoff: Type.Optional(localDateTime('when the first participant\'s first shift starts, in the schedule\'s zone; the layer has no one before it (required unless ical_url is set; with it, the calendar applies from handoff when given)')),
    ends: Type.Optional(nullable(localDateTime('when the layer stops applying, in the schedule\'s zone; null: never'))),
    restrictions: Type.Optional(Type.Array(restriction, { maxItems: 20, description: 'windows in which the layer applies; none: always' })),
  },
  { additionalProperties: false },
);

const isLocal = (value: unknown) => {
  try {
    Temporal.PlainDateTime.from(String(value), { overflow: 'reject' });
    return true;
  } catch {
    return false;
  }
};
const layersOf = (row: Row) => (Array.isArray(row.layers) ? (row.layers as Row[]) : []);

/** Local date-times that are real, an end after its handoff, windows that are not empty, participants listed once. */
const layerRules: Rule = {
  description: 'each layer\'s handoff and ends must be real local date-times, ends after handoff; a restriction\'s to must differ from its from; a layer lists a participant once',
  fields: ['layers'],
  check: (row) =>
    layersOf(row).flatMap((layer, i): FieldError[] => {
      const at = `layers[${i}]`;
      const errors: FieldError[] = [];
      if (layer.ical_url == null) {
        for (const field of ['participants', 'rotation', 'handoff']) if (layer[field] === undefined) errors.push({ field: `${at}.${field}`, message: 'is required for a layer without ical_url' });
      } else if (layer.participants !== undefined || layer.rotation !== undefined) {
        errors.push({ field: `${at}.ical_url`, message: 'a layer follows either a calendar (ical_url) or a rotation (participants, rotation), not both' });
      }
      if (layer.handoff !== undefined && !isLocal(layer.handoff)) errors.push({ field: `${at}.handoff`, message: 'must be a real local date-time' });
      if (layer.ends != null && !isLocal(layer.ends)) errors.push({ field: `${at}.ends`, message: 'must be a real local date-time' });
      else if (layer.ends != null && layer.handoff !== undefined && isLocal(layer.handoff) && Temporal.PlainDateTime.compare(String(layer.ends), String(layer.handoff)) <= 0) {
        errors.push({ field: `${at}.ends`, message: 'must be after handoff' });
      }
      ((layer.restrictions as Row[] | undefined) ?? []).forEach((r, k) => {
        if (r.from === r.to) errors.push({ field: `${at}.restrictions[${k}].to`, message: 'must differ from from (a whole day is a window from 00:00 to 23:59 and one from 23:59 to 00:00, or no restriction)' });
      });
      const seen = new Set<string>();
      ((layer.participants as unknown[]) ?? []).forEach((p, j) => {
        const email = normalEmail(p);
        if (seen.has(email)) errors.push({ field: `${at}.participants[${j}]`, message: 'is already in this layer' });
        seen.add(email);
      });
      return errors;
    }),
};

/** Every participant of a changed layer list must be a member of the organization. */
async function participantsAreMembers(row: Row, stage: WriteStage): Promise<FieldError[]> {
  if (stage.op === 'update' && JSON.stringify(row.layers) === JSON.stringify(stage.existing?.layers)) return [];
  const sent = [...new Set(layersOf(row).flatMap((l) => (l.participants as string[]) ?? []))];
  if (!sent.length) return [];
  const known = new Set((await stage.ctx.lookup.rows('team_members', { email: { $in: sent } })).map((m) => m.email));
  return layersOf(row).flatMap((layer, i) =>
    ((layer.participants as string[]) ?? []).flatMap((email, j) => (known.has(email) ? [] : [{ field: `layers[${i}].participants[${j}]`, message: 'is not a member of this organization' }])),
  );
}

export default defineFamily({
  name: 'schedules',
  description:
    'An on-call schedule: who is on call when. `time_zone` (IANA) is the zone every local time of it is read in; `layers` is an ordered list, a later ' +
    'layer above an earlier one where both have someone. A layer rotates its `participants` (members of the organization, named ' +
    '`layers[i].participants[j]` when not) in order, each for `rotation.length` units (hourly counts wall-clock hours), starting with the first at ' +
    '`handoff` (a local date-time; the layer has no one before it) until `ends` if set; `restrictions` limit it to windows (`days` it starts on, ' +
    '`from`–`to` local times; `to` before `from` spans midnight and belongs to the day it starts on; `from` equal to `to` is refused). A local time in a ' +
    'skipped hour is the first instant after the gap; one in a repeated hour its first occurrence. A layer with `ical_url` follows an iCalendar ' +
    'instead of rotating: each event names a member (its SUMMARY an email, else an ATTENDEE or ORGANIZER mailto), recurring events expanded; ' +
    '`GET /schedules/{id}/calendars` shows each calendar\'s last fetch, error and the event names that matched no member. One person is on call per schedule at a time: the ' +
    'topmost layer that has someone, unless an override (schedule_overrides) says otherwise. `GET /schedules/{id}/shifts` answers the final shifts and ' +
    '`GET /schedules/{id}/on_call` who is on call at an instant. The name is the natural key; `team_id` optionally names the owning team. On every plan; writes need the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'time_zone'],
  order: [{ field: 'name', direction: 'asc' }],
  references: { team_id: { family: 'teams', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    description: nullable(Type.String({ maxLength: 1000 }), { default: null }),
    time_zone: Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone name, e.g. Europe/Berlin' }),
    team_id: nullable(Type.String({ minLength: 1 }), { default: null, description: 'the owning team (a teams id of this organization)' }),
    layers: Type.Array(layerSchema, { default: [], maxItems: 10, description: 'bottom first; a later layer is above an earlier one; replaced whole when sent' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [ianaTimezone('time_zone'), layerRules],
  hooks: {
    prepare: (row: Row) => ({ ...row, layers: layersOf(row).map((l) => (Array.isArray(l.participants) ? { ...l, participants: l.participants.map(normalEmail) } : l)) }),
    validate: participantsAreMembers,
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      {
        name: 'Payments primary', time_zone: 'Europe/Berlin', description: 'weekly, office hours on top',
        layers: [
          { name: 'Weekly', participants: ['conformance-member@example.com', 'conformance-admin@example.com'], rotation: { unit: 'weekly', length: 1 }, handoff: '2030-01-07T09:00' },
          {
            name: 'Office hours', participants: ['conformance-admin@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-07T09:00',
            restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }],
          },
        ],
      },
      { name: 'Nights', time_zone: 'America/New_York', layers: [{ name: 'Nightly', participants: ['conformance-member@example.com'], rotation: { unit: 'hourly', length: 12 }, handoff: '2030-01-01T20:00', ends: '2031-01-01T08:00' }] },
    ],
    invalid: [
      { body: { time_zone: 'UTC' }, field: 'name' },
      { body: { name: 'x' }, field: 'time_zone' },
      { body: { name: 'x', time_zone: 'Mars/Olympus' }, field: 'time_zone' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'l', participants: ['stranger@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T09:00' }] }, field: 'layers[0].participants[0]' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'l', participants: ['conformance-member@example.com'], rotation: { unit: 'daily', length: 0 }, handoff: '2030-01-01T09:00' }] }, field: 'layers[0].rotation.length' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'l', participants: ['conformance-member@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-02-30T09:00' }] }, field: 'layers[0].handoff' },
      {
        body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'l', participants: ['conformance-member@example.com'], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T09:00', restrictions: [{ days: ['mon'], from: '09:00', to: '09:00' }] }] },
        field: 'layers[0].restrictions[0].to',
      },
      { body: { name: 'x', time_zone: 'UTC', team_id: 'no-such-team' }, field: 'team_id' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'c', ical_url: 'https://169.254.169.254/team.ics' }] }, field: 'layers[0].ical_url' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'c', ical_url: 'https://calendar.example.com/team.ics', participants: ['conformance-member@example.com'] }] }, field: 'layers[0].ical_url' },
      { body: { name: 'x', time_zone: 'UTC', layers: [{ name: 'r', rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T09:00' }] }, field: 'layers[0].participants' },
    ],
    update: { description: 'weekly rotation with office hours', time_zone: 'Europe/Paris' },
  },
});
