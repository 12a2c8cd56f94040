import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';

/** Extra attempts one provider gets for a transient failure when the organization stores none. */
export const DEFAULT_RETRY_BUDGET = 2;

export default defineFamily({
  name: 'ai_settings',
  description:
    'How the organization\'s AI work runs: one row per organization, read by anyone and changed field by field by an org admin (PUT). ' +
    '`own_providers_only` on means AI work never falls back to the deployment\'s shared (platform) credentials: with no usable provider of its own, AI work fails. ' +
    `\`retry_budget\` (0..5) always answers the value in force: ${DEFAULT_RETRY_BUDGET} when none is stored; \`retry_budget_configured\` says whether it was stored; ` +
    'sending `retry_budget: null` removes the stored value and returns to the default. Every switch is off until turned on. ' +
    '`updated_at` is null until the first change is stored.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    own_providers_only: Type.Boolean({
      default: false,
      description: 'when true, AI work may not fall back to the deployment\'s shared credentials; with no usable provider of its own it fails',
    }),
    anonymization_enabled: Type.Boolean({ default: false, description: 'prompts are redacted before they reach a provider' }),
    retry_budget: Type.Union([Type.Integer({ minimum: 0, maximum: 5 }), Type.Null()], {
      default: null,
      description: `extra attempts one provider gets for a transient failure, 0..5; answers the value in force (${DEFAULT_RETRY_BUDGET} when none is stored); null returns to the default`,
    }),
    retry_budget_configured: Type.Boolean({ readOnly: true, description: 'true when retry_budget was stored rather than defaulted' }),
    multi_agent_investigation: Type.Boolean({ default: false, description: 'an investigation runs as several agents' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true, description: 'null until a change is stored' }),
  },
  presence: { retry_budget_configured: 'retry_budget' },
  fallbacks: { retry_budget: DEFAULT_RETRY_BUDGET },
  examples: {
    valid: [],
    invalid: [
      { body: { retry_budget: 6 }, field: 'retry_budget' },
      { body: { retry_budget: -1 }, field: 'retry_budget' },
      { body: { retry_budget: 1.5 }, field: 'retry_budget' },
      { body: { own_providers_only: 'yes' }, field: 'own_providers_only' },
      { body: { retry_budget_configured: true }, field: 'retry_budget_configured' },
    ],
    update: { retry_budget: 4, anonymization_enabled: true },
  },
});
