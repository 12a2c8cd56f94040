import Type from 'typebox';
import { defineFamily, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { AI_PURPOSES } from './ai_providers.ts';

type Purpose = (typeof AI_PURPOSES)[number];

/** What every purpose's prompt can be filled with. */
const SHARED_PLACEHOLDERS = ['organization', 'service', 'alert_title', 'alert_body', 'incident_summary', 'timeline'] as const;
/** Purposes that work on code also get the repository and the change under review. */
const CODE_PURPOSES: readonly Purpose[] = ['pr_review', 'remediation', 'self_healing'];
const CODE_PLACEHOLDERS = ['repository', 'diff'] as const;

/** The placeholders each purpose offers: one documented table. */
export const PLACEHOLDERS = Object.fromEntries(
  AI_PURPOSES.map((p): [Purpose, readonly string[]] => [p, CODE_PURPOSES.includes(p) ? [...SHARED_PLACEHOLDERS, ...CODE_PLACEHOLDERS] : SHARED_PLACEHOLDERS]),
) as Record<Purpose, readonly string[]>;

const TOKEN = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NAME = /^[a-z][a-z0-9_]{0,49}$/;

/** The `{{name}}` tokens of a template, each once, in order of first appearance. */
export function placeholdersOf(template: unknown): string[] {
  if (typeof template !== 'string') return [];
  return [...new Set([...template.matchAll(TOKEN)].map((m) => m[1]!))];
}

const knownPlaceholders: Rule = {
  description:
    `template must use only {{placeholders}} its purpose offers: every purpose ${SHARED_PLACEHOLDERS.join(', ')}; ` +
    `${CODE_PURPOSES.join(', ')} also ${CODE_PLACEHOLDERS.join(', ')}`,
  fields: ['template', 'purpose'],
  check: (row) => {
    const offered = PLACEHOLDERS[row.purpose as Purpose] ?? [];
    return placeholdersOf(row.template)
      .filter((name) => !offered.includes(name))
      .map((name): FieldError => ({
        field: 'template',
        message: NAME.test(name)
          ? `uses {{${name}}}, which ${String(row.purpose)} does not offer; it offers ${offered.join(', ')}`
          : `holds a {{…}} token that is not a placeholder name; ${String(row.purpose)} offers ${offered.join(', ')}`,
      }));
  },
};

export default defineFamily({
  name: 'prompt_templates',
  description:
    'The organization\'s own prompt for one AI purpose (the purposes of ai_providers.model_overrides), used instead of the built-in prompt while enabled. ' +
    'One template per purpose: the purpose is the natural key and the path id, set on create only. `template` (1..20000 characters) may use `{{name}}` ' +
    'placeholders, filled in when the prompt is sent: every purpose offers organization, service, alert_title, alert_body, incident_summary and timeline, and ' +
    'pr_review, remediation and self_healing also offer repository and diff (a value that does not apply is filled in empty). A placeholder the purpose does not ' +
    'offer is refused by name (field `template`). `placeholders` is read-only: the placeholders the template uses, in order of first use. With `enabled` false ' +
    'the built-in prompt is used and the template is kept. Create and update need the bring-your-own AI provider feature; delete does not, and restores the built-in prompt.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: { create: 'byo_ai_provider', update: 'byo_ai_provider' },
  id: { from: ['purpose'] },
  naturalKey: ['purpose'],
  requiredOnCreate: ['purpose', 'template'],
  createOnly: ['purpose'],
  order: [{ field: 'purpose', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true, description: 'the purpose' }),
    purpose: Type.Union(AI_PURPOSES.map((p) => Type.Literal(p)), { description: 'the AI purpose the prompt is for; one template each; set on create only' }),
    template: Type.String({ minLength: 1, maxLength: 20000, description: 'the prompt, with {{placeholder}} tokens the purpose offers' }),
    placeholders: Type.Array(Type.String(), { readOnly: true, description: 'the placeholders the template uses, in order of first use' }),
    enabled: Type.Boolean({ default: true, description: 'when false the built-in prompt is used and the template is kept' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: { placeholders: (row) => placeholdersOf(row.template) },
  rules: [knownPlaceholders],
  examples: {
    valid: [
      { purpose: 'investigation', template: 'You investigate alerts for {{organization}}. Alert: {{alert_title}} on {{service}}.\n{{alert_body}}' },
      { purpose: 'pr_review', template: 'Review this change to {{ repository }}:\n{{diff}}', enabled: false },
    ],
    invalid: [
      { body: { template: 'x' }, field: 'purpose' },
      { body: { purpose: 'investigation' }, field: 'template' },
      { body: { purpose: 'dreaming', template: 'x' }, field: 'purpose' },
      { body: { purpose: 'suggestion', template: '' }, field: 'template' },
      { body: { purpose: 'suggestion', template: 'x'.repeat(20001) }, field: 'template' },
      { body: { purpose: 'suggestion', template: 'Look at {{diff}}' }, field: 'template' },
      { body: { purpose: 'suggestion', template: 'Hello {{ who? }}' }, field: 'template' },
    ],
    update: { template: 'Investigate {{alert_title}} ({{service}}) for {{organization}}; timeline:\n{{timeline}}', enabled: false },
  },
});
