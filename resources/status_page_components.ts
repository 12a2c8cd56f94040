import Type from 'typebox';
import { defineFamily, nullable, type Row, type WriteStage } from '../engine/descriptor.ts';
import { featureFor } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { SLO_STATUSES } from './slos.ts';
import { instant } from './status_page_maintenances.ts';

/** What a person may set a component to by hand: the page's statuses (no_data is not a thing one declares) and maintenance. */
export const MANUAL_STATUSES = ['ok', 'at_risk', 'breaching', 'maintenance'] as const;
/** Every status the page can show for a component. */
export const COMPONENT_STATUSES = [...SLO_STATUSES, 'maintenance'] as const;

/** Worst first: the component shows the worst status among its SLOs. */
const SEVERITY = ['ok', 'no_data', 'at_risk', 'breaching'] as const;

/** The manual status while it holds: set, and its end (if any) not yet reached. */
export function manualStatusInForce(row: Row, now: Date): string | null {
  if (typeof row.manual_status !== 'string') return null;
  const until = row.manual_status_until;
  if (until === null || until === undefined) return row.manual_status;
  return new Date(until as string).getTime() > now.getTime() ? row.manual_status : null;
}

/**
 * Clearing the manual status clears its end and note. An override whose end has passed is over: the next write
 * that does not set a new one stores it cleared, so an old end never blocks an unrelated change.
 */
function prepare(row: Row, input: Row, { ctx }: WriteStage): Row {
  if (input.manual_status === null) return { ...row, manual_status_until: null, manual_status_note: null };
  if (!('manual_status' in input) && typeof row.manual_status === 'string' && manualStatusInForce(row, ctx.now) === null) {
    return { ...row, manual_status: null, manual_status_until: instant(input.manual_status_until ?? null), manual_status_note: input.manual_status_note ?? null };
  }
  return { ...row, manual_status_until: instant(row.manual_status_until) };
}

function validate(row: Row, { ctx }: WriteStage): FieldError[] {
  if (row.manual_status === null) {
    for (const field of ['manual_status_until', 'manual_status_note']) {
      if (row[field] !== null && row[field] !== undefined) return [{ field, message: 'needs manual_status: set one, or send manual_status null to clear all three' }];
    }
    return [];
  }
  const until = row.manual_status_until;
  if (until !== null && until !== undefined && new Date(until as string).getTime() <= ctx.now.getTime()) {
    return [{ field: 'manual_status_until', message: 'must be in the future: the override would already be over' }];
  }
  return [];
}

function worstStatus(slos: Row[]): string | null {
  if (slos.length === 0) return null;
  return slos.map((s) => String(s.status ?? 'no_data')).reduce((a, b) => (SEVERITY.indexOf(b as never) > SEVERITY.indexOf(a as never) ? b : a));
}

export default defineFamily({
  name: 'status_page_components',
  description:
    'A component of the public status page. New components are appended to the end of the public order; `move: up|down` on update shifts one place ' +
    '(at the top or bottom nothing moves: a call that asked for nothing else is refused, otherwise the answer says so in `notices`). ' +
    '`slo_ids` is the full set of linked SLOs ([] unlinks all, omitted leaves them); an id that is not an SLO of this organization is not linked and is named in `notices`. ' +
    'The public `status` is the worst status among the linked SLOs (breaching > at_risk > no_data > ok), and null when none is linked. ' +
    '`manual_status` (ok, at_risk, breaching, maintenance; null for none) overrides that computed status on the page and in `status` until it is ' +
    'cleared (sent as null, which also clears `manual_status_until` and `manual_status_note`) or until `manual_status_until` passes (optional; ' +
    'must be in the future when sent; after it the computed status shows again without any write). `manual_status_note` is a short public note ' +
    'shown beside the status. `computed_status` always answers the SLO-derived status. A change is an update like any other: audited with its actor. ' +
    'Delete archives: the row is kept and still reads, linked SLOs are untouched, updates are refused, nothing restores it, and lists leave it out unless `?include_archived=true`.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: featureFor('status_page'),
  requiredOnCreate: ['display_name'],
  positioned: { field: 'position' },
  archive: { field: 'archived_at' },
  references: { slo_ids: { family: 'slos', unknown: 'drop' } },
  fields: {
    id: Type.String({ readOnly: true }),
    display_name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { default: null, description: 'null clears' }),
    slo_ids: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 100, description: 'the SLOs the component publishes; the full set' }),
    position: Type.Integer({ readOnly: true, description: 'public order, 1 first' }),
    manual_status: nullable(Type.Union(MANUAL_STATUSES.map((s) => Type.Literal(s))), { default: null, description: 'overrides the computed status while set; null clears' }),
    manual_status_until: nullable(Type.String({ format: 'date-time' }), { default: null, description: 'when the override ends by itself; null: until cleared' }),
    manual_status_note: nullable(Type.String({ maxLength: 280 }), { default: null, description: 'a public note shown with the manual status' }),
    status: Type.Union([...COMPONENT_STATUSES.map((s) => Type.Literal(s)), Type.Null()], {
      readOnly: true, description: 'the manual status while in force, else the worst status among linked SLOs; null when neither',
    }),
    computed_status: Type.Union([...SLO_STATUSES.map((s) => Type.Literal(s)), Type.Null()], { readOnly: true, description: 'worst status among linked SLOs; null when none is linked' }),
    archived_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: {
    status: (row, ctx) => manualStatusInForce(row, ctx.now) ?? worstStatus(ctx.referenced('slo_ids')),
    computed_status: (_row, ctx) => worstStatus(ctx.referenced('slo_ids')),
  },
  hooks: { prepare, validate },
  examples: {
    valid: [{ display_name: 'API' }, { display_name: 'Dashboard', description: 'the web app', slo_ids: [] }],
    invalid: [
      { body: {}, field: 'display_name' },
      { body: { display_name: '' }, field: 'display_name' },
      { body: { display_name: 'x'.repeat(101) }, field: 'display_name' },
      { body: { display_name: 'ok', description: 'd'.repeat(256) }, field: 'description' },
      { body: { display_name: 'ok', manual_status: 'down' }, field: 'manual_status' },
      { body: { display_name: 'ok', manual_status: 'at_risk', manual_status_note: 'n'.repeat(281) }, field: 'manual_status_note' },
      { body: { display_name: 'ok', manual_status: 'at_risk', manual_status_until: '2000-01-01T00:00:00Z' }, field: 'manual_status_until' },
    ],
    update: { description: 'public API', slo_ids: [], manual_status: 'at_risk', manual_status_note: 'Slow responses in one region' },
  },
});
