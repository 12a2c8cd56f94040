import Type from 'typebox';
import { defineFamily, type Row, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { uniqueItems } from '../engine/rules.ts';

/** The events Vigil publishes to outbound destinations (and notifies about), in the order users meet them. */
export const EVENT_KINDS = [
  'alert.fired', 'alert.resolved', 'alert.acknowledged', 'incident.opened', 'incident.closed',
  'card.created', 'card.updated', 'deployment.recorded', 'fix_request.finished',
] as const;

export const SEVERITIES = ['critical', 'high', 'warning', 'info'] as const;

const FILTER_KEYS = ['services', 'severities', 'sources'] as const;

const filterValues = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description }));

const uniqueFilters: Rule = {
  description: 'filters lists must not repeat a value',
  fields: ['filters'],
  check: (row) => {
    const filters = (row.filters ?? {}) as Row;
    const errors: FieldError[] = [];
    for (const key of FILTER_KEYS) {
      const values = filters[key];
      if (Array.isArray(values) && new Set(values).size !== values.length) errors.push({ field: `filters.${key}`, message: 'must not repeat a value' });
    }
    return errors;
  },
};

export default defineFamily({
  name: 'outbound_rules',
  description:
    'Which events go to which outbound config. A rule sends every event whose kind is in `events` to the config named by `outbound_config_id` (a row of outbound_configs ' +
    'of this organization; an unknown or another organization\'s id is refused by name), written the way that config\'s `kind` says. ' +
    `Event kinds: ${EVENT_KINDS.join(', ')}; an unknown one is refused as \`events[<index>]\`, and none may repeat. ` +
    '`filters` narrows the rule: `services` (service names as alerts and deployments carry them), `severities` (critical, high, warning, info) and `sources` ' +
    '(the webhook source segment an event came in through, such as monitoring-a or deployments). A list that is omitted or empty does not filter; an event must match every ' +
    'list that is given (any value within a list), and an event that does not carry a filtered attribute (a deployment has no severity) does not match that filter. ' +
    'Several rules may send the same event to the same config; it is delivered once per config. A muted alert, an alert re-fire inside the re-fire cooldown and an alert that joins ' +
    'a storm reach no rule (a storm sends one alert.fired, with `data.storm`); an alert\'s acknowledge and resolve go out only for an alert that fired loudly; and an event kind ' +
    'whose notification_settings channels leave out `outbound` reaches none either. A disabled rule, or a rule whose config is disabled, sends nothing. ' +
    'Choices where the spec is silent: `name` is unique within the organization; `events` and `filters` are replaced whole when sent (`filters: {}` removes every filter); ' +
    'creating, changing and deleting rules needs the member role (the destinations themselves are the org admin\'s to set up).',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'events', 'outbound_config_id'],
  order: [{ field: 'name', direction: 'asc' }],
  references: { outbound_config_id: { family: 'outbound_configs', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    events: Type.Array(Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))), {
      minItems: 1,
      maxItems: EVENT_KINDS.length,
      description: 'the event kinds the rule sends, at least one, none repeated; replaced whole when sent',
    }),
    outbound_config_id: Type.String({ minLength: 1, description: 'the id of the outbound_configs row the events go to' }),
    filters: Type.Object(
      {
        services: filterValues('only events of these services'),
        severities: Type.Optional(Type.Array(Type.Union(SEVERITIES.map((s) => Type.Literal(s))), { maxItems: SEVERITIES.length, description: 'only events of these severities' })),
        sources: filterValues('only events that came in through these webhook sources'),
      },
      { additionalProperties: false, default: {}, description: 'narrows the rule; every given list must match; omitted or [] lists do not filter; replaced whole when sent' },
    ),
    enabled: Type.Boolean({ default: true, description: 'when false the rule is kept and sends nothing' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [uniqueItems('events'), uniqueFilters],
  examples: {
    valid: [
      { name: 'critical alerts to pager', events: ['alert.fired', 'alert.acknowledged', 'alert.resolved'], outbound_config_id: '$ref:outbound_configs', filters: { severities: ['critical'] } },
      { name: 'deploys to webhook', events: ['deployment.recorded'], outbound_config_id: '$ref:outbound_configs', filters: { services: ['checkout-api'], sources: ['deployments'] }, enabled: false },
    ],
    invalid: [
      { body: { events: ['alert.fired'], outbound_config_id: '$ref:outbound_configs' }, field: 'name' },
      { body: { name: 'x', events: ['alert.fired', 'alert.exploded'], outbound_config_id: '$ref:outbound_configs' }, field: 'events[1]' },
      { body: { name: 'x', events: [], outbound_config_id: '$ref:outbound_configs' }, field: 'events' },
      { body: { name: 'x', events: ['alert.fired', 'alert.fired'], outbound_config_id: '$ref:outbound_configs' }, field: 'events' },
      { body: { name: 'x', events: ['alert.fired'], outbound_config_id: 'no-such-config' }, field: 'outbound_config_id' },
      { body: { name: 'x', events: ['alert.fired'], outbound_config_id: '$ref:outbound_configs', filters: { teams: ['a'] } }, field: 'filters.teams' },
      { body: { name: 'x', events: ['alert.fired'], outbound_config_id: '$ref:outbound_configs', filters: { severities: ['urgent'] } }, field: 'filters.severities[0]' },
      { body: { name: 'x', events: ['alert.fired'], outbound_config_id: '$ref:outbound_configs', filters: { services: ['a', 'a'] } }, field: 'filters.services' },
    ],
    update: { events: ['alert.fired', 'incident.opened'], filters: {} },
  },
});
