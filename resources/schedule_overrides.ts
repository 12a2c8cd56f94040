import Type from 'typebox';
import { defineFamily, nullable, type Row, type WriteStage } from '../engine/descriptor.ts';
import { afterInstant } from '../engine/rules.ts';
import type { FieldError } from '../engine/errors.ts';
import { instant } from './status_page_maintenances.ts';
import { emailSchema, normalEmail } from './team_members.ts';

/** The person on call instead must be a member of the organization. */
async function coverIsMember(row: Row, stage: WriteStage): Promise<FieldError[]> {
  if (stage.op === 'update' && row.email === stage.existing?.email) return [];
  const [member] = await stage.ctx.lookup.rows('team_members', { email: row.email });
  return member ? [] : [{ field: 'email', message: 'is not a member of this organization' }];
}

export default defineFamily({
  name: 'schedule_overrides',
  description:
    'An override of a schedule: from `start` to `end` (instants with offsets, stored in UTC; end after start) `email` is on call instead. With ' +
    '`replaces`, only the time the layers give that person is taken; without it, whoever the layers give (or no one) is replaced. Overlapping ' +
    'overrides are allowed: at any instant the newest that applies wins. `email` must be a member of the organization. A member creates, changes ' +
    'and deletes overrides for themselves only (`email` their own: take a shift, cover for someone); an org admin for anyone. `schedule_id` must ' +
    'be a schedule of this organization. Lists answer the earliest start first. On every plan.',
  kind: 'collection',
  singular: 'schedule_override',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  // email first: an exported override is labelled by who covers (the schedule's id changes when apply recreates it)
  requiredOnCreate: ['email', 'start', 'end', 'schedule_id'],
  createOnly: ['schedule_id'],
  references: { schedule_id: { family: 'schedules', unknown: 'refuse' } },
  ownRows: { field: 'email', role: 'org_admin' },
  order: [{ field: 'start', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    schedule_id: Type.String({ minLength: 1, description: 'the schedule overridden (a schedules id of this organization); set on create only' }),
    start: Type.String({ format: 'date-time', description: 'when the override begins (inclusive)' }),
    end: Type.String({ format: 'date-time', description: 'when it ends (exclusive); after start' }),
    email: emailSchema('who is on call instead: a member of the organization; a member may only name themselves'),
    replaces: nullable(emailSchema(), { default: null, description: 'only this person\'s time is taken; null: whoever the layers give' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [afterInstant('end', 'start')],
  hooks: {
    prepare: (row: Row) => ({
      ...row, start: instant(row.start), end: instant(row.end), email: normalEmail(row.email), replaces: row.replaces == null ? null : normalEmail(row.replaces),
    }),
    validate: coverIsMember,
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      { schedule_id: '$ref:schedules', start: '2030-01-08T09:00:00+01:00', end: '2030-01-08T17:00:00+01:00', email: 'conformance-admin@example.com' },
      { schedule_id: '$ref:schedules', start: '2030-01-09T00:00:00Z', end: '2030-01-10T00:00:00Z', email: 'conformance-member@example.com', replaces: 'conformance-admin@example.com' },
    ],
    invalid: [
      { body: { start: '2030-01-08T09:00:00Z', end: '2030-01-08T17:00:00Z', email: 'conformance-admin@example.com' }, field: 'schedule_id' },
      { body: { schedule_id: 'no-such-schedule', start: '2030-01-08T09:00:00Z', end: '2030-01-08T17:00:00Z', email: 'conformance-admin@example.com' }, field: 'schedule_id' },
      { body: { schedule_id: '$ref:schedules', start: '2030-01-08T17:00:00Z', end: '2030-01-08T09:00:00Z', email: 'conformance-admin@example.com' }, field: 'end' },
      { body: { schedule_id: '$ref:schedules', start: '2030-01-08T09:00:00Z', end: '2030-01-08T17:00:00Z', email: 'stranger@example.com' }, field: 'email' },
      { body: { schedule_id: '$ref:schedules', start: 'tomorrow', end: '2030-01-08T17:00:00Z', email: 'conformance-admin@example.com' }, field: 'start' },
    ],
    update: { end: '2030-01-08T18:00:00.000Z' },
  },
});
