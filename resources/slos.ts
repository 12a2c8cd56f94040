import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';

export const SLO_STATUSES = ['ok', 'at_risk', 'breaching', 'no_data'] as const;

export default defineFamily({
  name: 'slos',
  description:
    'A service level objective: a target percent of good events for one SLI over a rolling window of days. ' +
    'The read-only `status` (ok, at_risk, breaching, no_data), `error_budget_remaining_percent` and `burn_rate` are results of evaluation: ' +
    'they never change the ETag, and they read no_data / null until the SLO has been evaluated (see slis for which runs feed an SLI). ' +
    '`error_budget_remaining_percent`: the share of the window\'s error budget (100 − target) not yet spent, negative once overspent. ' +
    '`burn_rate`: the error rate of the last hour as a multiple of the allowed one (1 spends the budget exactly over the window). ' +
    '`status`: no_data without runs in the window; breaching once the budget is spent; at_risk while a multi-window burn alert fires ' +
    '(14.4× over both 1 h and 5 min, or 6× over both 6 h and 30 min, the SRE workbook\'s pairs) or less than 25 % of the budget is left; ok otherwise.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'sli_id', 'target_percent'],
  order: [{ field: 'name', direction: 'asc' }],
  references: { sli_id: { family: 'slis', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    sli_id: Type.String({ minLength: 1, description: 'the SLI of this organization the objective is measured on' }),
    target_percent: Type.Number({ minimum: 50, maximum: 99.999, description: 'percent of good events, e.g. 99.9' }),
    window_days: Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'rolling window' }),
    description: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { default: null }),
    status: Type.Union(SLO_STATUSES.map((s) => Type.Literal(s)), { readOnly: true, default: 'no_data' }),
    error_budget_remaining_percent: Type.Union([Type.Number(), Type.Null()], { readOnly: true, default: null }),
    burn_rate: Type.Union([Type.Number(), Type.Null()], { readOnly: true, default: null }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  examples: {
    valid: [{ name: 'checkout 99.9', sli_id: '$ref:slis', target_percent: 99.9 }],
    invalid: [
      { body: { name: 'x', sli_id: 'no-such-sli', target_percent: 99 }, field: 'sli_id' },
      { body: { name: 'x', sli_id: 'a', target_percent: 100 }, field: 'target_percent' },
      { body: { name: 'x', sli_id: 'a', target_percent: 99, window_days: 91 }, field: 'window_days' },
    ],
    update: { target_percent: 99.5 },
  },
});
