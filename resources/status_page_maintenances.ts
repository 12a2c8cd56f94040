import Type from 'typebox';
import { defineFamily, featureFor, type Row } from '../engine/descriptor.ts';
import { afterInstant } from '../engine/rules.ts';

export const MAINTENANCE_STATES = ['scheduled', 'in_progress', 'completed'] as const;

const at = (value: unknown) => new Date(value as string).getTime();

/** A time as the instant it names (ISO, UTC); left as sent when it names none (validation refuses it). */
export function instant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? value : at.toISOString();
}

/** Where a window stands at `now`: ahead, running (start inclusive, end exclusive) or over. */
export function maintenanceState(row: Row, now: Date): (typeof MAINTENANCE_STATES)[number] {
  if (now.getTime() < at(row.starts_at)) return 'scheduled';
  return now.getTime() < at(row.ends_at) ? 'in_progress' : 'completed';
}

export default defineFamily({
  name: 'status_page_maintenances',
  description:
    'A scheduled maintenance window on the public status page: `title`, `message`, the affected status page components (`component_ids`, ' +
    'the full set; an id that is not an active component of this organization is not linked and is named in `notices`), `starts_at` and ' +
    '`ends_at` (ends_at after starts_at). The page lists it as scheduled before it starts, in progress while it runs (start inclusive, end ' +
    'exclusive) and among past notices after it ends, within the page\'s history. `state` answers which, from the time of the read. ' +
    'While a window runs with `mute_alerts` true (the default), alerts of the services its components stand for are recorded `muted` and page ' +
    'no one, their `muted` effect naming the window (`maintenance_id`, `maintenance`): a component stands for the services of the SLIs its ' +
    'linked SLOs measure (an alert\'s `service`, compared without regard to case); a component with no SLO mutes nothing. Alerts that already ' +
    'fired stay as they are. Lists answer the latest start first. Delete removes the window (ending its mute at once). Reading needs the ' +
    'viewer role; writing the member role; every operation needs the status page feature.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: featureFor('status_page'),
  requiredOnCreate: ['title', 'starts_at', 'ends_at'],
  references: { component_ids: { family: 'status_page_components', unknown: 'drop' } },
  order: [{ field: 'starts_at', direction: 'desc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    title: Type.String({ minLength: 1, maxLength: 200, description: 'the public headline' }),
    message: Type.String({ maxLength: 5000, default: '', description: 'what will be done and what users will notice' }),
    component_ids: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 50, description: 'the affected status page components; the full set' }),
    starts_at: Type.String({ format: 'date-time', description: 'when the window opens' }),
    ends_at: Type.String({ format: 'date-time', description: 'when it closes; after starts_at' }),
    mute_alerts: Type.Boolean({ default: true, description: 'while running, mute alerts of the components\' services' }),
    state: Type.Union(MAINTENANCE_STATES.map((s) => Type.Literal(s)), { readOnly: true, description: 'scheduled, in_progress or completed, at the time of the read' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: { state: (row, { now }) => maintenanceState(row, now) },
  rules: [afterInstant('ends_at', 'starts_at')],
  hooks: {
    // times stored as the instants they name (an equal time written another way is no change); component_ids is a set
    prepare: (row) => ({ ...row, starts_at: instant(row.starts_at), ends_at: instant(row.ends_at), component_ids: [...new Set(row.component_ids as string[])] }),
  },
  examples: {
    valid: [
      {
        title: 'Database upgrade', message: 'The API may answer slowly for a few minutes.', component_ids: ['$ref:status_page_components'],
        starts_at: '2030-01-10T02:00:00.000Z', ends_at: '2030-01-10T03:00:00.000Z',
      },
      { title: 'Network work', starts_at: '2030-02-01T00:00:00.000Z', ends_at: '2030-02-01T01:00:00.000Z', mute_alerts: false },
    ],
    invalid: [
      { body: { starts_at: '2030-01-10T02:00:00.000Z', ends_at: '2030-01-10T03:00:00.000Z' }, field: 'title' },
      { body: { title: 't', ends_at: '2030-01-10T03:00:00.000Z' }, field: 'starts_at' },
      { body: { title: 't', starts_at: '2030-01-10T02:00:00.000Z' }, field: 'ends_at' },
      { body: { title: 't', starts_at: '2030-01-10T03:00:00.000Z', ends_at: '2030-01-10T02:00:00.000Z' }, field: 'ends_at' },
      { body: { title: 't', starts_at: 'soon', ends_at: '2030-01-10T02:00:00.000Z' }, field: 'starts_at' },
      { body: { title: 'x'.repeat(201), starts_at: '2030-01-10T02:00:00.000Z', ends_at: '2030-01-10T03:00:00.000Z' }, field: 'title' },
      { body: { title: 't', message: 'm'.repeat(5001), starts_at: '2030-01-10T02:00:00.000Z', ends_at: '2030-01-10T03:00:00.000Z' }, field: 'message' },
    ],
    update: { message: 'Moved to the standby database first.', ends_at: '2030-01-10T04:00:00.000Z' },
  },
});
