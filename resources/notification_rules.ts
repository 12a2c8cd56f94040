import Type from 'typebox';
import { defineFamily, type Row, type WriteStage } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { emailSchema, normalEmail } from './team_members.ts';
import { ownerIsMember } from './contact_methods.ts';

export const URGENCIES = ['high', 'low'] as const;
export type Urgency = (typeof URGENCIES)[number];

/**
 * The method must be one of the owner's: another person's and an unknown id get the same answer, so a person learns
 * nothing of methods that are not theirs.
 */
async function validate(row: Row, stage: WriteStage): Promise<FieldError[]> {
  const errors = await ownerIsMember(row, stage);
  if (row.contact_method_id == null) return [...errors, { field: 'contact_method_id', message: 'is required: the owner\'s contact method to notify' }];
  const [method] = await stage.ctx.lookup.rows('contact_methods', { id: row.contact_method_id });
  if (!method || method.email !== row.email) errors.push({ field: 'contact_method_id', message: 'is not one of the owner\'s contact methods' });
  return errors;
}

export default defineFamily({
  name: 'notification_rules',
  description:
    'When a paged person is notified on one of their contact methods: `delay_minutes` after they are paged (0: at once), for pages of one `urgency` (high or ' +
    'low). `contact_method_id` must be one of the owner\'s contact methods (another person\'s is refused like an unknown id). `email` names the owner, a member; ' +
    'a person\'s credential may leave it out (their own). A member with no rule for an urgency is notified by email at their account address, at once. ' +
    'Private, like contact_methods: a person sees and writes only their own (at /api/v1/me/notification_rules and on the agent-tool endpoint with a personal ' +
    'token); an org admin everyone\'s. Lists answer by owner, urgency, then delay. On every plan.',
  kind: 'collection',
  singular: 'notification_rule',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  // contact_method_id is required, but checked by the validate hook: with no required field the export labels a rule
  // by its owner's email (a required id would make the label a uuid that changes when apply recreates the row)
  createOnly: ['email'],
  references: { contact_method_id: { family: 'contact_methods', unknown: 'refuse' } },
  ownRows: { field: 'email', role: 'org_admin', private: true },
  order: [{ field: 'email', direction: 'asc' }, { field: 'urgency', direction: 'asc' }, { field: 'delay_minutes', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    email: emailSchema('the owner: a member of the organization; a person\'s credential may leave it out (their own); set on create only'),
    contact_method_id: Type.String({ minLength: 1, description: 'required: the owner\'s contact method to notify (a contact_methods id)' }),
    delay_minutes: Type.Integer({ minimum: 0, maximum: 1440, default: 0, description: 'minutes after the person is paged (0: at once; at most a day)' }),
    urgency: Type.Union(URGENCIES.map((u) => Type.Literal(u)), { default: 'high', description: 'the pages it applies to' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  hooks: {
    prepare: async (row: Row, _input: Row, stage: WriteStage) => ({ ...row, email: row.email != null ? normalEmail(row.email) : await stage.ctx.lookup.callerEmail() }),
    validate,
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      { email: 'conformance-admin@example.com', contact_method_id: '$ref:contact_methods', delay_minutes: 0, urgency: 'high' },
      { email: 'conformance-admin@example.com', contact_method_id: '$ref:contact_methods', delay_minutes: 5, urgency: 'low' },
    ],
    invalid: [
      { body: { email: 'conformance-admin@example.com', contact_method_id: 'no-such-method', delay_minutes: 0 }, field: 'contact_method_id' },
      { body: { email: 'conformance-admin@example.com', contact_method_id: '$ref:contact_methods', delay_minutes: -1 }, field: 'delay_minutes' },
      { body: { email: 'conformance-admin@example.com', contact_method_id: '$ref:contact_methods', urgency: 'urgent' }, field: 'urgency' },
    ],
    update: { delay_minutes: 10 },
  },
});
