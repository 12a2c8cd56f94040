import Type from 'typebox';
import { defineFamily, type Row } from '../engine/descriptor.ts';
import { uniqueItems } from '../engine/rules.ts';

/** owner/name as code hosts spell a repository. */
const REPO = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9_.-]{1,100}$';
/** A git ref name: no whitespace, none of ~ ^ : ? * [ \ and no "..". */
const GIT_REF = '^(?!.*\\.\\.)[^\\s~^:?*\\[\\\\]+$';
/** A user, or a team written org/team. */
const REVIEWER = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]{1,100})?$';

export default defineFamily({
  name: 'repo_settings',
  description:
    'How Vigil treats one repository of the code-host app installation (code_host_settings): which services live in it, and how fix pull requests ' +
    'for those services are opened there. `repo` is written owner/name, is the natural key, is set on create only, and is stored lowercased because ' +
    'code hosts compare names without regard to case; the row id is a uuid. `services` (at most 50, each 1..200 characters, none repeated) are the ' +
    'service names, as alerts and deploy events spell them, whose fixes and code context come from this repository; a service may be named by several ' +
    'repositories. Fix pull requests target `default_branch` (git ref text, default main) and are opened only while `fix_pull_requests_enabled` ' +
    'is true (the default) and the plan includes fix pull requests; they ask `reviewers` (at most 20, a user or a team written org/team) and carry ' +
    '`labels` (at most 20, each 1..50 characters), both added to code_host_settings\' own. Every list is replaced whole when sent, kept when omitted, ' +
    'and may not repeat a value. A repository without a row uses code_host_settings alone.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['repo'],
  requiredOnCreate: ['repo'],
  createOnly: ['repo'],
  order: [{ field: 'repo', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    repo: Type.String({ maxLength: 140, pattern: REPO, 'x-format-description': 'a repository written owner/name', description: 'owner/name; set on create only; stored lowercased' }),
    services: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, default: [], description: 'services whose code lives here; replaced whole when sent' }),
    default_branch: Type.String({ minLength: 1, maxLength: 200, pattern: GIT_REF, 'x-format-description': 'a git branch name of 1 to 200 characters', default: 'main', description: 'the branch fix pull requests target' }),
    fix_pull_requests_enabled: Type.Boolean({ default: true, description: 'whether fix pull requests are opened in this repository' }),
    reviewers: Type.Array(Type.String({ maxLength: 140, pattern: REVIEWER, 'x-format-description': 'a user name, or a team written org/team' }), { maxItems: 20, default: [], description: 'asked to review fix pull requests; replaced whole when sent' }),
    labels: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, default: [], description: 'put on fix pull requests; replaced whole when sent' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [uniqueItems('services'), uniqueItems('reviewers'), uniqueItems('labels')],
  hooks: {
    prepare: (row: Row) => ({ ...row, repo: String(row.repo).toLowerCase() }),
  },
  examples: {
    valid: [
      { repo: 'acme/checkout', services: ['checkout-api', 'checkout-worker'] },
      { repo: 'Acme/Infra', default_branch: 'trunk', fix_pull_requests_enabled: false, reviewers: ['alice', 'acme/sre'], labels: ['vigil'] },
    ],
    invalid: [
      { body: {}, field: 'repo' },
      { body: { repo: 'checkout' }, field: 'repo' },
      { body: { repo: 'acme/checkout/web' }, field: 'repo' },
      { body: { repo: 'acme/x', services: ['api', 'api'] }, field: 'services' },
      { body: { repo: 'acme/x', services: [''] }, field: 'services[0]' },
      { body: { repo: 'acme/x', default_branch: 'my branch' }, field: 'default_branch' },
      { body: { repo: 'acme/x', reviewers: ['not a user'] }, field: 'reviewers[0]' },
      { body: { repo: 'acme/x', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, field: 'labels' },
    ],
    update: { services: ['checkout-api'], default_branch: 'develop', labels: ['vigil', 'auto-fix'] },
  },
});
