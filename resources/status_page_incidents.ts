import Type from 'typebox';
import { defineFamily, featureFor, nullable, type Row, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';

export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export const IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
/** The most updates one incident holds (each up to 5000 characters). */
export const MAX_UPDATES = 200;

const statusSchema = Type.Union(INCIDENT_STATUSES.map((s) => Type.Literal(s)));
const updates = (row: Row | undefined) => (Array.isArray(row?.updates) ? (row.updates as Row[]) : []);

/**
 * Posts the sent message as an update; stamps started_at and resolved_at; component_ids is a set.
 * A repeat of the latest update (same message and status) posts nothing.
 */
function prepare(row: Row, input: Row, { op, existing, ctx }: WriteStage): Row {
  const now = ctx.now.toISOString();
  const next: Row = { ...row, updates: updates(existing), component_ids: [...new Set(row.component_ids as string[])] };
  if (op === 'create') next.started_at = ctx.now;
  if (typeof input.message === 'string') {
    const last = updates(existing).at(-1);
    if (!last || last.status !== row.status || last.message !== input.message) {
      next.updates = [...updates(existing), { at: now, status: row.status, message: input.message }];
    }
  }
  if (row.status !== 'resolved') next.resolved_at = null;
  else if (op === 'create' || existing?.status !== 'resolved') next.resolved_at = ctx.now;
  return next;
}

function validate(row: Row, { op, existing }: WriteStage): FieldError[] {
  if (updates(row).length > MAX_UPDATES) return [{ field: 'message', message: `cannot be posted: an incident holds at most ${MAX_UPDATES} updates; open a new incident` }];
  if (op === 'update' && row.status !== existing?.status && updates(row).length === updates(existing).length) {
    return [{ field: 'message', message: 'is required when status changes: the public page says what changed' }];
  }
  return [];
}

export default defineFamily({
  name: 'status_page_incidents',
  description:
    'An incident shown on the public status page, with its timeline of public updates. Create needs `title` and `message` (the first update). ' +
    '`message` is how an update is posted: every create or update that sends it appends one entry `{ at, status, message }` to the read-only ' +
    '`updates` list (oldest first; `at` is the time of the write, `status` the incident status after it). Updates are append-only: they can never ' +
    'be edited or removed (sending `updates` is refused as read-only), at most 200 per incident. A status change must come with a `message`, so ' +
    'the timeline says what changed; other fields (title, impact, components) change without one. Sending the latest update\'s message again with ' +
    'the same status posts nothing, so a retried call never posts twice. `message` itself answers the text of the latest update: it is stored as ' +
    'the last message sent, not as a separate setting. `started_at` is set on create. `resolved_at` is set when status becomes `resolved` and ' +
    'cleared to null when the incident is reopened (any other status); the earlier resolution stays in `updates`. ' +
    '`impact` (none, minor, major, critical) is how bad the incident is for users, default minor. `component_ids` is the full set of ' +
    'affected status page components ([] unlinks all, omitted leaves them, an id sent twice is linked once); an id that is not an active ' +
    'component of this organization (unknown, archived or another organization\'s) is not linked and is named in `notices`. A component ' +
    'archived after it was linked stays linked, but a sent set drops it. Lists answer the latest incident first. Delete removes the incident ' +
    'and its updates from the page. The HCL export carries an incident\'s settings and latest message, not its timeline. Reading needs the ' +
    'viewer role; creating, posting and deleting the member role; every operation needs the status page feature.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: featureFor('status_page'),
  requiredOnCreate: ['title', 'message'],
  references: { component_ids: { family: 'status_page_components', unknown: 'drop' } },
  order: [{ field: 'started_at', direction: 'desc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    title: Type.String({ minLength: 1, maxLength: 200, description: 'the public headline' }),
    status: Type.Union(INCIDENT_STATUSES.map((s) => Type.Literal(s)), { default: 'investigating', description: 'a change must come with a message' }),
    impact: Type.Union(IMPACTS.map((s) => Type.Literal(s)), { default: 'minor', description: 'how bad the incident is for users' }),
    component_ids: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 50, description: 'the affected status page components; the full set' }),
    message: Type.String({
      minLength: 1, maxLength: 5000,
      description: 'posts an update with this text (required on create and with a status change); answers the text of the latest update',
    }),
    updates: Type.Array(
      Type.Object({ at: Type.String({ format: 'date-time' }), status: statusSchema, message: Type.String() }, { additionalProperties: false }),
      { readOnly: true, default: [], description: 'the public timeline, oldest first; append-only, posted through message' },
    ),
    started_at: Type.String({ format: 'date-time', readOnly: true, description: 'when the incident was created' }),
    resolved_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when it was last resolved; null while open' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  hooks: { prepare, validate },
  examples: {
    valid: [
      { title: 'Checkout errors', message: 'We are investigating elevated error rates at checkout.', component_ids: ['$ref:status_page_components'] },
      { title: 'Database maintenance', status: 'resolved', impact: 'none', message: 'Maintenance finished without interruption.' },
    ],
    invalid: [
      { body: { message: 'm' }, field: 'title' },
      { body: { title: 't' }, field: 'message' },
      { body: { title: 'x'.repeat(201), message: 'm' }, field: 'title' },
      { body: { title: 't', message: 'm'.repeat(5001) }, field: 'message' },
      { body: { title: 't', message: 'm', status: 'fixed' }, field: 'status' },
      { body: { title: 't', message: 'm', impact: 'severe' }, field: 'impact' },
      { body: { title: 't', message: 'm', updates: [] }, field: 'updates' },
      { body: { title: 't', message: 'm', resolved_at: null }, field: 'resolved_at' },
    ],
    update: { status: 'identified', impact: 'major', message: 'A faulty deploy was identified and is being rolled back.' },
  },
});
