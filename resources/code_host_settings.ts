import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';
import { uniqueItems } from '../engine/rules.ts';

/** A git ref name part: no whitespace, none of ~ ^ : ? * [ \ and no "..". */
const GIT_REF = '^(?!.*\\.\\.)[^\\s~^:?*\\[\\\\]+$';

export default defineFamily({
  name: 'code_host_settings',
  description:
    'How Vigil works with the organization\'s code host: the app installation it uses and how fix pull requests are opened. ' +
    'One row per organization, read and changed field by field; an omitted field keeps its value. Until the first change is saved a read ' +
    'answers the defaults with `updated_at` null, and a change that sets every field to what it already is writes nothing and is not audited. ' +
    '`installation_id` is the code-host app installation id and `account` the organization or user the app is installed on; both are null ' +
    'while no app is connected, and a `code_host` ticket import rule can only be saved once `installation_id` is set. ' +
    'Changing needs the org admin role. Choices where the spec is silent: `default_branch` and `branch_prefix` must be valid git ref text ' +
    '(no whitespace, "..", or any of ~ ^ : ? * [ \\); at most 20 labels of up to 50 characters and 20 reviewers of up to 100 characters ' +
    '(a user, or a team written org/team), none repeated; fix pull requests open as drafts unless `fix_pr_draft` is false.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    installation_id: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
      default: null,
      description: 'the code-host app installation id; null when no app is connected',
    }),
    account: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
      default: null,
      description: 'the organization or user the app is installed on; null when not connected',
    }),
    default_branch: Type.String({ minLength: 1, maxLength: 200, pattern: GIT_REF, 'x-format-description': 'a git branch name of 1 to 200 characters', default: 'main', description: 'the branch fix pull requests target' }),
    fix_pr_draft: Type.Boolean({ default: true, description: 'fix pull requests open as drafts' }),
    fix_pr_labels: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, default: ['vigil'], description: 'labels put on every fix pull request; the full list' }),
    fix_pr_reviewers: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, default: [], description: 'users or teams (org/team) asked to review fix pull requests; the full list' }),
    branch_prefix: Type.String({ minLength: 1, maxLength: 100, pattern: GIT_REF, 'x-format-description': 'a git branch name prefix of 1 to 100 characters', default: 'vigil/fix-', description: 'fix branches are named with this prefix' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true, description: 'null until the settings are first saved' }),
  },
  rules: [uniqueItems('fix_pr_labels'), uniqueItems('fix_pr_reviewers')],
  examples: {
    valid: [],
    invalid: [
      { body: { installation_id: '' }, field: 'installation_id' },
      { body: { default_branch: '' }, field: 'default_branch' },
      { body: { default_branch: 'my branch' }, field: 'default_branch' },
      { body: { branch_prefix: 'x'.repeat(101) }, field: 'branch_prefix' },
      { body: { fix_pr_labels: [''] }, field: 'fix_pr_labels[0]' },
      { body: { fix_pr_labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, field: 'fix_pr_labels' },
      { body: { fix_pr_reviewers: ['alice', 'alice'] }, field: 'fix_pr_reviewers' },
      { body: { updated_at: '2026-01-01T00:00:00Z' }, field: 'updated_at' },
    ],
    update: { installation_id: '4815162342', account: 'acme', fix_pr_labels: ['vigil', 'auto-fix'] },
  },
});
