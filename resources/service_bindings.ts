import Type from 'typebox';
import { defineFamily, type Row, nullable } from '../engine/descriptor.ts';
import { uniqueItems } from '../engine/rules.ts';


const NO_SLASH = 'a name without "/"';

const dimension = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255 }), value: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);

const metricSelector = Type.Object(
  {
    namespace: Type.String({ minLength: 1, maxLength: 255 }),
    metric_name: Type.String({ minLength: 1, maxLength: 255 }),
    dimensions: Type.Optional(Type.Array(dimension, { maxItems: 30, description: 'narrows the metric to these dimension values' })),
  },
  { additionalProperties: false },
);

const LIST_RULE = 'null (the default) leaves it unbound, so discovery or the convention decides; [] deliberately binds nothing; a sent list replaces the stored one';

export default defineFamily({
  name: 'service_bindings',
  description:
    'The organization\'s stored override for one service and environment in its telemetry backends: not the resolved view, which the ' +
    'agent-tool operation `resolve_service_bindings` gives with cloud discovery and the OpenTelemetry convention folded in. ' +
    'The path id is `<service>/<environment>`, or `<service>` alone when the environment is empty; service and environment come from ' +
    'the path only (naming them in a body is refused as read-only) and never contain "/". ' +
    'A binding is created by `PUT` of a pair that has none yet (200; the one exception to "an update of a missing row answers 404"); ' +
    'there is no `POST`. The list shows only stored overrides, ordered by service then environment, and reading a pair with no override answers 404. ' +
    'An omitted field keeps its stored value (on a fresh binding: unbound). `log_groups`, `trace_service_names` and `metric_selectors` ' +
    'are null (unbound) until sent; [] deliberately binds nothing, which differs from falling through to discovery; a sent list replaces the stored one. ' +
    'An empty `log_filter` is stored as null (unbound), so a filter cannot be bound empty on purpose. ' +
    'null for `account_id` or `region` clears the pin (search every account or region); traces always search every account. ' +
    'A binding\'s whole settable configuration set to null or [] is kept as a row until it is deleted. ' +
    'Caps chosen here: at most 100 log groups (names up to 512 characters), 100 trace service names (up to 255), 100 metric selectors, ' +
    '30 dimensions per selector; lists must not repeat an entry. ' +
    'Every write is audited and invalidates the organization\'s discovery cache, so the next `resolve_service_bindings` reflects it.',
  kind: 'collection',
  operations: ['list', 'read', 'update', 'delete'],
  id: { from: ['service', 'environment'], upsert: true },
  naturalKey: ['service', 'environment'],
  order: [{ field: 'service', direction: 'asc' }, { field: 'environment', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true, description: '`<service>/<environment>`, or `<service>` when the environment is empty' }),
    service: Type.String({ readOnly: true, minLength: 1, maxLength: 200, pattern: '^[^/]+$', 'x-format-description': `${NO_SLASH}, 1 to 200 characters`, description: 'from the path id' }),
    environment: Type.String({ readOnly: true, default: '', maxLength: 200, pattern: '^[^/]*$', 'x-format-description': `${NO_SLASH}, at most 200 characters`, description: 'from the path id; empty when the id names the service alone' }),
    account_id: nullable(Type.String({ pattern: '^[0-9]{12}$', 'x-format-description': 'a twelve-digit cloud account id' }), {
      default: null,
      description: 'logs and metrics search only this account; null searches every account; traces always search every account',
    }),
    region: nullable(Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$', 'x-format-description': 'a cloud region name such as us-east-1' }), {
      default: null,
      description: 'null searches every region',
    }),
    log_groups: nullable(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 100 }), { default: null, description: LIST_RULE }),
    log_filter: nullable(Type.String({ maxLength: 2000 }), { default: null, description: 'filter fragment added to log searches; an empty string clears it to unbound (null)' }),
    trace_service_names: nullable(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 }), { default: null, description: LIST_RULE }),
    metric_selectors: nullable(Type.Array(metricSelector, { maxItems: 100 }), {
      default: null,
      description: `each { namespace, metric_name, dimensions? } with dimensions as [{ name, value }]; ${LIST_RULE}`,
    }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [uniqueItems('log_groups'), uniqueItems('trace_service_names'), uniqueItems('metric_selectors')],
  hooks: {
    prepare: (row: Row) => (row.log_filter === '' ? { ...row, log_filter: null } : row),
  },
  examples: {
    valid: [
      { account_id: '123456789012', region: 'us-east-1', log_groups: ['/aws/lambda/checkout'], log_filter: 'level = "error"' },
      { trace_service_names: [], metric_selectors: [{ namespace: 'AWS/ApplicationELB', metric_name: 'TargetResponseTime', dimensions: [{ name: 'LoadBalancer', value: 'app/checkout' }] }] },
    ],
    invalid: [
      { body: { account_id: '12345678901' }, field: 'account_id' },
      { body: { region: 'Mars' }, field: 'region' },
      { body: { service: 'checkout' }, field: 'service' },
      { body: { environment: 'prod' }, field: 'environment' },
      { body: { log_groups: [''] }, field: 'log_groups[0]' },
      { body: { log_filter: 'x'.repeat(2001) }, field: 'log_filter' },
      { body: { metric_selectors: [{ namespace: 'AWS/EC2' }] }, field: 'metric_selectors[0].metric_name' },
      { body: { metric_selectors: [{ namespace: 'AWS/EC2', metric_name: 'CPUUtilization', unit: 'Percent' }] }, field: 'metric_selectors[0].unit' },
    ],
    update: { region: null, log_groups: [], log_filter: '' },
  },
});
