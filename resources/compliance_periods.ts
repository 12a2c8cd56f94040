import Type from 'typebox';
import { defineFamily, featureFor, type Row } from '../engine/descriptor.ts';
import { after, calendarDate } from '../engine/rules.ts';

export const FRAMEWORKS = ['iso27001_2022', 'soc2', 'cis_cloud', 'nist_csf_2'] as const;
export const PERIOD_STATUSES = ['upcoming', 'active', 'ended', 'exported'] as const;

/** The period's status on the UTC day of `now`; dates are YYYY-MM-DD, so they compare as text. */
export function periodStatus(row: Row, now: Date): (typeof PERIOD_STATUSES)[number] {
  if (row.export_top_hash !== null && row.export_top_hash !== undefined) return 'exported';
  const today = now.toISOString().slice(0, 10);
  if (today < String(row.starts_on)) return 'upcoming';
  if (today <= String(row.ends_on)) return 'active';
  return 'ended';
}

const isoTime = (value: unknown) => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : new Date(String(value)).toISOString());

export default defineFamily({
  name: 'compliance_periods',
  description:
    'An audit window of one compliance framework: the days from `starts_on` through `ends_on` (both inclusive, UTC days) whose evidence is later exported as one bundle. ' +
    'Creating a period writes no evidence and freezes nothing. Every operation needs the compliance feature (enterprise plan). ' +
    'Periods have no update (PUT answers 405): delete one and create another. `name` is unique within the organization. ' +
    '`status` is computed from the clock: `upcoming` before starts_on, `active` from starts_on through ends_on, `ended` after ends_on, ' +
    'and `exported` once an export has stamped `export_top_hash`. The evidence export is outside this service\'s scope, so here `export_top_hash` stays null ' +
    'and a period never reads `exported`. Lists answer the latest window first (ends_on, then starts_on, descending). `inserted_at` is when the period was created.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'delete'],
  features: featureFor('compliance'),
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'framework', 'starts_on', 'ends_on'],
  order: [{ field: 'ends_on', direction: 'desc' }, { field: 'starts_on', direction: 'desc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 120, description: 'unique within the organization' }),
    framework: Type.Union(FRAMEWORKS.map((f) => Type.Literal(f)), { description: 'the framework the evidence is collected for' }),
    starts_on: Type.String({ format: 'date', description: 'first day covered (UTC), YYYY-MM-DD' }),
    ends_on: Type.String({ format: 'date', description: 'last day covered (UTC), YYYY-MM-DD; must be after starts_on' }),
    status: Type.Union(PERIOD_STATUSES.map((s) => Type.Literal(s)), {
      readOnly: true,
      description: 'computed from the clock: upcoming before starts_on; active from starts_on through ends_on (inclusive, UTC days); ended after ends_on; exported once export_top_hash is set',
    }),
    export_top_hash: Type.Union([Type.String(), Type.Null()], {
      readOnly: true,
      default: null,
      description: 'the manifest hash stamped by an evidence export; the export is outside this service\'s scope, so it is always null here',
    }),
    inserted_at: Type.String({ format: 'date-time', readOnly: true, description: 'when the period was created' }),
  },
  computed: {
    status: (row, { now }) => periodStatus(row, now),
    inserted_at: (row) => isoTime(row.created_at),
  },
  rules: [calendarDate('starts_on'), calendarDate('ends_on'), after('ends_on', 'starts_on')],
  examples: {
    valid: [
      { name: 'SOC 2 type II 2026', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' },
      { name: 'ISO 27001 surveillance', framework: 'iso27001_2022', starts_on: '2025-07-01', ends_on: '2026-06-30' },
    ],
    invalid: [
      { body: { framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' }, field: 'name' },
      { body: { name: 'n'.repeat(121), framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31' }, field: 'name' },
      { body: { name: 'x', framework: 'pci', starts_on: '2026-01-01', ends_on: '2026-12-31' }, field: 'framework' },
      { body: { name: 'x', framework: 'soc2', starts_on: '2026-02-30', ends_on: '2026-12-31' }, field: 'starts_on' },
      { body: { name: 'x', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-01-01' }, field: 'ends_on' },
      { body: { name: 'x', framework: 'soc2', starts_on: '2026-06-01', ends_on: '2026-05-31' }, field: 'ends_on' },
      { body: { name: 'x', framework: 'soc2', starts_on: '2026-01-01' }, field: 'ends_on' },
      { body: { name: 'x', framework: 'soc2', starts_on: '2026-01-01', ends_on: '2026-12-31', status: 'active' }, field: 'status' },
    ],
  },
});
