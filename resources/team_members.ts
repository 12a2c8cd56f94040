import Type from 'typebox';
import { defineFamily, type HookContext, type Row, type WriteStage } from '../engine/descriptor.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../engine/email.ts';
import type { FieldError } from '../engine/errors.ts';

export const MEMBER_ROLES = ['viewer', 'member', 'org_admin'] as const;

/** The shape every email is accepted in (engine/email.ts), the operator API's users included. */
export const emailSchema = (description?: string) =>
  Type.String({ minLength: 3, maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN, 'x-format-description': 'an email address of at most 254 characters', ...(description ? { description } : {}) });

export const normalEmail = (value: unknown) => String(value).trim().toLowerCase();

/** Whether `row` is the organization's only org admin (inside the transaction). */
async function lastAdmin(row: Row, ctx: HookContext): Promise<boolean> {
  const admins = await ctx.lookup.rows('team_members', { role: 'org_admin' });
  return admins.length <= 1 && admins.every((a) => a.id === row.id);
}

const LAST_ADMIN = 'cannot leave the organization without an org admin: make another member org_admin first';

export default defineFamily({
  name: 'team_members',
  description:
    'A member of the organization: a user of the deployment and the role they act with (viewer reads; member operates and writes; org_admin also ' +
    'manages members, teams and the organization\'s settings). Rows live in the same store as the operator API\'s ' +
    '`PUT /organizations/{id}/members/{user}`, so a member added either way shows in both, and the role is the one personal access tokens are capped by. ' +
    'Vigil never sends invitations: users are created by the operator, and adding an email that matches no user of the deployment is refused (422, `email`). ' +
    'The email is the natural key, set on create only and stored lowercased; `user_id` is looked up from it. An update changes `role` only. ' +
    'Delete removes the membership (the user\'s personal tokens stop working in this organization; the user and their other memberships stay). ' +
    'Removing or demoting the last org admin is refused (422, `role`). Every write needs the org admin role.',
  kind: 'collection',
  table: 'memberships',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['email'],
  requiredOnCreate: ['email'],
  createOnly: ['email'],
  order: [{ field: 'email', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true, description: 'the membership id' }),
    email: emailSchema('the user\'s email; must belong to an existing user of the deployment; set on create only; stored lowercased'),
    user_id: Type.String({ readOnly: true, description: 'the user the email belongs to' }),
    role: Type.Union(MEMBER_ROLES.map((r) => Type.Literal(r)), { default: 'member', description: 'viewer reads; member operates; org_admin also administers; default member' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  hooks: {
    prepare: async (row: Row, _input: Row, stage: WriteStage) => {
      if (stage.op !== 'create') return row;
      const email = normalEmail(row.email);
      const user = await stage.ctx.lookup.userByEmail(email);
      return { ...row, email, user_id: user?.id ?? null };
    },
    validate: async (row: Row, stage: WriteStage): Promise<FieldError[]> => {
      if (stage.op === 'create' && !row.user_id) {
        return [{ field: 'email', message: 'matches no user of this deployment; the operator creates users (Vigil sends no invitations)' }];
      }
      if (stage.op === 'update' && stage.existing?.role === 'org_admin' && row.role !== 'org_admin' && (await lastAdmin(row, stage.ctx))) {
        return [{ field: 'role', message: LAST_ADMIN }];
      }
      return [];
    },
    validateDelete: async (row: Row, ctx: HookContext): Promise<FieldError[]> =>
      row.role === 'org_admin' && (await lastAdmin(row, ctx)) ? [{ field: 'role', message: LAST_ADMIN }] : [],
  },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    valid: [{ email: 'conformance-member@example.com' }, { email: 'Conformance-Admin@example.com', role: 'org_admin' }],
    invalid: [
      { body: {}, field: 'email' },
      { body: { email: 'not-an-email' }, field: 'email' },
      { body: { email: 'nobody-here@example.com' }, field: 'email' },
      { body: { email: 'conformance-member@example.com', role: 'owner' }, field: 'role' },
    ],
    update: { role: 'viewer' },
  },
});
