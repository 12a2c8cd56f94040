import Type from 'typebox';
import { defineFamily, type Row } from '../engine/descriptor.ts';
import { featureFor } from '../engine/descriptor.ts';
import { SLO_STATUSES } from './slos.ts';

/** Worst first: the component shows the worst status among its SLOs. */
const SEVERITY = ['ok', 'no_data', 'at_risk', 'breaching'] as const;

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
    status: Type.Union([...SLO_STATUSES.map((s) => Type.Literal(s)), Type.Null()], { readOnly: true, description: 'worst status among linked SLOs; null when none is linked' }),
    archived_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: { status: (_row, ctx) => worstStatus(ctx.referenced('slo_ids')) },
  examples: {
    valid: [{ display_name: 'API' }, { display_name: 'Dashboard', description: 'the web app', slo_ids: [] }],
    invalid: [
      { body: {}, field: 'display_name' },
      { body: { display_name: '' }, field: 'display_name' },
      { body: { display_name: 'x'.repeat(101) }, field: 'display_name' },
      { body: { display_name: 'ok', description: 'd'.repeat(256) }, field: 'description' },
    ],
    update: { description: 'public API', slo_ids: [] },
  },
});
