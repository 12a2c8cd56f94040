import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';
import { requiredWhen } from '../engine/rules.ts';

export default defineFamily({
  name: 'slis',
  description:
    'A service level indicator: what "good" means for one service. `availability` counts good events over all events; ' +
    '`latency` counts requests faster than `latency_threshold_ms` (required for latency, refused otherwise). ' +
    '`query` is the telemetry expression the indicator is computed from, as the organization\'s metrics backend spells it. ' +
    'Vigil itself evaluates synthetic checks: `synthetic:<check name>` reads the runs of that synthetic check, and a null query reads the runs of every ' +
    'synthetic check whose `service` is this SLI\'s (availability: the share of passing runs; latency: the share answered within the threshold, a run ' +
    'without an answer counting as slow). Any other query is left to the metrics backend, and its SLOs read no_data.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'service', 'indicator'],
  order: [{ field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    service: Type.String({ minLength: 1, maxLength: 200, description: 'the service as deploy events and alerts name it' }),
    indicator: Type.Union([Type.Literal('availability'), Type.Literal('latency')]),
    latency_threshold_ms: Type.Union([Type.Integer({ minimum: 1, maximum: 600000 }), Type.Null()], { default: null }),
    query: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()], { default: null }),
    description: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { default: null }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [requiredWhen('latency_threshold_ms', 'indicator', 'latency')],
  examples: {
    valid: [
      { name: 'checkout availability', service: 'checkout', indicator: 'availability' },
      { name: 'checkout latency', service: 'checkout', indicator: 'latency', latency_threshold_ms: 300 },
    ],
    invalid: [
      { body: { name: 'x', service: 's' }, field: 'indicator' },
      { body: { name: 'x', service: 's', indicator: 'latency' }, field: 'latency_threshold_ms' },
      { body: { name: 'x', service: 's', indicator: 'availability', latency_threshold_ms: 5 }, field: 'latency_threshold_ms' },
    ],
    update: { description: 'ratio of 2xx/3xx responses' },
  },
});
