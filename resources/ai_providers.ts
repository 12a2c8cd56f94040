import Type from 'typebox';
import { defineFamily, type Row, nullable } from '../engine/descriptor.ts';
import { notAUrl } from '../engine/rules.ts';
import { targetUrl } from '../engine/targets.ts';
import { credentialUrl } from '../engine/credential-url.ts';

export const PROVIDER_KINDS = ['vendor_a', 'vendor_b', 'aggregator', 'self_hosted', 'cloud_platform', 'vendor_c', 'gateway', 'framework'] as const;

/** The purposes an organization can pin a model for (spec "ai_providers"). */
export const AI_PURPOSES = [
  'investigation', 'suggestion', 'report_generation', 'alert_grouping', 'context_compaction', 'pr_review', 'remediation',
  'oversight', 'config_watch', 'finops', 'chat_assistant', 'board_assistant', 'runbook_suggestion', 'sli_suggestion',
  'capacity_planning', 'status_page_draft', 'ticket_synthesis', 'security_triage', 'self_healing',
] as const;


/** Pins merge per purpose; an empty string clears a pin. */
function mergeOverrides(stored: unknown, sent: unknown): Record<string, string> {
  const merged = { ...(stored as Record<string, string> | null), ...(sent as Record<string, string>) };
  return Object.fromEntries(Object.entries(merged).filter(([, model]) => model !== ''));
}

export default defineFamily({
  name: 'ai_providers',
  description:
    'An AI provider paid for with the organization\'s own key. The router tries enabled rows lowest priority first. ' +
    '`api_key` is write-only: it is answered as `api_key_set`, an omitted key keeps the stored one, and removing it means deleting the provider. ' +
    '`model_overrides` merges per purpose: a map naming one purpose leaves the other pins alone, "" clears a pin, and "auto" hands that purpose to the platform\'s own choice. ' +
    '`base_url` is judged when saved (422 naming `base_url`), since the key is sent to it: https without user:password@; plain http only to a loopback address the operator allows ' +
    '(VIGIL_OUTBOUND_ALLOW_LOOPBACK=on) or an allow-listed one (a model server on an internal network: the operator allow-lists its network and the row names its address); ' +
    'a literal address the outbound policy refuses (private unless allow-listed, link-local and the cloud metadata address always) is refused; host names are judged at every call. ' +
    'Deleting needs no plan feature, so a plan without bring-your-own providers cannot trap a key. `inherited_from` is null for the organization\'s own rows.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: { create: 'byo_ai_provider', update: 'byo_ai_provider' },
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'provider'],
  order: [{ field: 'priority', direction: 'asc' }, { field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization; a label only, never sent to the provider' }),
    provider: Type.Union(PROVIDER_KINDS.map((k) => Type.Literal(k))),
    api_key: Type.String({ minLength: 1, maxLength: 4096, writeOnly: true, format: 'password', description: 'write-only; never returned; an omitted key keeps the stored one' }),
    api_key_set: Type.Boolean({ readOnly: true, description: 'whether a key is stored' }),
    base_url: nullable(credentialUrl(targetUrl('outbound')), { default: null, description: 'endpoint for a gateway or self-hosted target; null uses the provider\'s own; an https URL (see the family description)' }),
    model: nullable(Type.String({ minLength: 1, maxLength: 200 }), { default: null, description: 'spelled as the provider spells it; null leaves the choice to the platform default' }),
    model_overrides: Type.Object(Object.fromEntries(AI_PURPOSES.map((p) => [p, Type.Optional(Type.String({ maxLength: 200 }))])), {
      additionalProperties: false,
      default: {},
      description: 'model per purpose, merged into the stored map; "" clears a pin; "auto" hands the purpose to the platform',
    }),
    auto_upgrade_model: Type.Boolean({ default: false, description: 'move `model` to a successor once the configured one leaves the provider\'s list' }),
    enabled: Type.Boolean({ default: true, description: 'when false the router skips the row, which keeps its key and pins' }),
    priority: Type.Integer({ minimum: 1, default: 1, description: 'the router tries lowest first' }),
    max_tokens: nullable(Type.Integer({ minimum: 1 }), { default: null, description: 'ceiling on one answer\'s length; null uses the platform\'s' }),
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 }), { default: null, description: 'null leaves the provider\'s default' }),
    timeout_ms: nullable(Type.Integer({ minimum: 1, maximum: 600000 }), { default: null, description: 'null uses the platform\'s' }),
    rate_limit_rpm: nullable(Type.Integer({ minimum: 1 }), { default: null, description: 'requests per minute; null means no limit' }),
    inherited_from: nullable(Type.String(), { readOnly: true, description: 'the organization a row is inherited from; null for the organization\'s own rows' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { api_key_set: 'api_key' },
  computed: { inherited_from: () => null },
  rules: [notAUrl('api_key', 'base_url')],
  hooks: {
    prepare: (row: Row, input: Row, stage) =>
      'model_overrides' in input ? { ...row, model_overrides: mergeOverrides(stage.existing?.model_overrides, input.model_overrides) } : row,
  },
  examples: {
    valid: [
      { name: 'primary', provider: 'vendor_a', api_key: 'sk-test-primary-0001', model: 'model-large', priority: 1 },
      { name: 'fallback', provider: 'gateway', base_url: 'https://gateway.example.com/v1', priority: 2 },
    ],
    invalid: [
      { body: { provider: 'vendor_a' }, field: 'name' },
      { body: { name: 'x', provider: 'nobody' }, field: 'provider' },
      { body: { name: 'x', provider: 'vendor_a', api_key: '' }, field: 'api_key' },
      { body: { name: 'x', provider: 'vendor_a', api_key: 'https://example.com/key' }, field: 'api_key' },
      { body: { name: 'x', provider: 'gateway', base_url: 'https://169.254.169.254/v1' }, field: 'base_url' },
      { body: { name: 'x', provider: 'gateway', base_url: 'http://gateway.example.com/v1' }, field: 'base_url' },
      { body: { name: 'x', provider: 'vendor_a', temperature: 2.5 }, field: 'temperature' },
      { body: { name: 'x', provider: 'vendor_a', timeout_ms: 600001 }, field: 'timeout_ms' },
      { body: { name: 'x', provider: 'vendor_a', priority: 0 }, field: 'priority' },
      { body: { name: 'x', provider: 'vendor_a', model_overrides: { dreaming: 'm' } }, field: 'model_overrides.dreaming' },
    ],
    update: { priority: 3, model_overrides: { investigation: 'model-small' } },
  },
});
