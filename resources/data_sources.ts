import Type from 'typebox';
import { defineFamily, nullable } from '../engine/descriptor.ts';
import { uniqueItems } from '../engine/rules.ts';

export default defineFamily({
  name: 'data_sources',
  description:
    'A cloud account Vigil reads logs, metrics and traces from, reached by assuming a role in that account. The role\'s trust policy must trust ' +
    'the platform principal and require the organization\'s external id, both answered by `cloud_external_id`; the external id is never ' +
    'stored or answered here, and no credentials are stored at all. One data source per account: `account_id` (twelve digits) is the natural ' +
    'key and is set on create only (another account is another data source; a second create for the same account answers 409 with the existing row). ' +
    '`role_name` is the role\'s name, not its full resource name; it is answered, as it is no secret. `regions` is the full list of regions ' +
    'searched (at least one, none repeated; a sent list replaces the stored one). The verification results `last_verified_at` (when the role ' +
    'was last assumed successfully) and `last_error` (why the last attempt failed, null when it succeeded) are read-only, written by the ' +
    'service, null until the first attempt, refused when sent, and never change the ETag. A disabled data source is kept and not used. ' +
    'Creating, changing and deleting need the org admin role, since a data source grants the service access to a cloud account; reading needs viewer.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['account_id'],
  requiredOnCreate: ['account_id', 'role_name', 'regions'],
  createOnly: ['account_id'],
  order: [{ field: 'account_id', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    account_id: Type.String({ pattern: '^[0-9]{12}$', 'x-format-description': 'a twelve-digit cloud account id', description: 'the cloud account; unique within the organization; set on create only' }),
    role_name: Type.String({
      minLength: 1, maxLength: 64, pattern: '^[\\w+=,.@-]+$', 'x-format-description': 'a role name of 1 to 64 letters, digits and + = , . @ _ -',
      description: 'the name of the role Vigil assumes in the account',
    }),
    regions: Type.Array(Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$', 'x-format-description': 'a cloud region name such as us-east-1' }), {
      minItems: 1, maxItems: 50, description: 'the regions searched; at least one, none repeated; the full list',
    }),
    enabled: Type.Boolean({ default: true, description: 'when false the data source is kept and not used' }),
    last_verified_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when the role was last assumed successfully; null until then' }),
    last_error: nullable(Type.String(), { readOnly: true, default: null, description: 'why the last attempt to assume the role failed; null when it succeeded or none was made' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [uniqueItems('regions')],
  examples: {
    valid: [
      { account_id: '123456789012', role_name: 'VigilReadOnly', regions: ['us-east-1', 'eu-west-1'] },
      { account_id: '210987654321', role_name: 'vigil+observer@ops', regions: ['ap-southeast-2'], enabled: false },
    ],
    invalid: [
      { body: { role_name: 'r', regions: ['us-east-1'] }, field: 'account_id' },
      { body: { account_id: '12345678901', role_name: 'r', regions: ['us-east-1'] }, field: 'account_id' },
      { body: { account_id: '1234567890123', role_name: 'r', regions: ['us-east-1'] }, field: 'account_id' },
      { body: { account_id: '12345678901a', role_name: 'r', regions: ['us-east-1'] }, field: 'account_id' },
      { body: { account_id: '123456789012', role_name: 'has space', regions: ['us-east-1'] }, field: 'role_name' },
      { body: { account_id: '123456789012', role_name: 'r'.repeat(65), regions: ['us-east-1'] }, field: 'role_name' },
      { body: { account_id: '123456789012', role_name: 'r' }, field: 'regions' },
      { body: { account_id: '123456789012', role_name: 'r', regions: [] }, field: 'regions' },
      { body: { account_id: '123456789012', role_name: 'r', regions: ['Mars'] }, field: 'regions[0]' },
      { body: { account_id: '123456789012', role_name: 'r', regions: ['us-east-1', 'us-east-1'] }, field: 'regions' },
    ],
    update: { role_name: 'VigilObserver', regions: ['us-east-1'] },
  },
});
