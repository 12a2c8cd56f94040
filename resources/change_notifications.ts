import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import { requiredWhen, uniqueItems } from '../engine/rules.ts';

export const CHANGE_ACTIONS = ['create', 'update', 'delete', 'archive', 'action'] as const;

/** A chat channel name: `#`, then lowercase letters, digits, `-` and `_`, at most 80 characters in all. */
export const CHANNEL = Type.String({
  pattern: '^#[a-z0-9][a-z0-9_-]{0,78}$',
  'x-format-description': 'a chat channel name such as #ops-changes: # then up to 79 lowercase letters, digits, - or _',
});

const starAlone: Rule = {
  description: 'families must be ["*"] alone or a list of family names, never both',
  fields: ['families'],
  check: (row) => (Array.isArray(row.families) && row.families.includes('*') && row.families.some((f) => f !== '*') ? [{ field: 'families', message: 'must hold "*" alone, or family names without "*"' }] : []),
};

export default defineFamily({
  name: 'change_notifications',
  description:
    'Announces configuration changes (the audit log as it happens) to a chat channel or an outbound config. A change is announced when its family is in `families` ' +
    '(`["*"]` means every family, this one included) and its action is in `actions` (create, update, delete, archive, or action for named actions such as set_deploy_freeze). ' +
    'The message names the family, the row, the action, who made it and through which transport (rest or mcp), and the changed fields with their old and new values; ' +
    'secrets appear only as (set), (changed) or (cleared), exactly as in the audit log. ' +
    '`destination_kind` chooses where: `chat` posts to `chat_channel` through the organization\'s chat connection (nothing is posted while chat.workspace_id is null), ' +
    '`outbound` sends a `config.changed` event to the outbound config `outbound_config_id` (a row of outbound_configs of this organization; unknown or foreign ids are refused). ' +
    '`chat_channel` is required when destination_kind is chat and refused otherwise, and `outbound_config_id` likewise for outbound: switching destination_kind ' +
    'means sending the new target and null for the old one in the same update. Family names are checked for their form only (lowercase snake_case); ' +
    'a name that is no family matches nothing. Only configuration families (those under /api/v1/config) are announced; webhook-made rows such as cards are not configuration. ' +
    'An announcement is queued in the change\'s own transaction, so it goes out exactly when the change commits and never for a refused write; the outbound event is ' +
    '`{ type: "config.changed", data: { change: { family, row_id, row_name, action, actor: { kind, id }, transport, at, changes } } }` in the outbound envelope, ' +
    'sent and retried like every delivery; a `pager` config takes only alert and incident events, so it is sent no config.changed. ' +
    'Choices where the spec is silent: `name` is unique within the organization; `families` and `actions` are replaced whole ' +
    'when sent, none repeated; `actions` defaults to all five; every write needs the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  // every audited change asks whether one of these announces it
  cachedRows: true,
  requiredOnCreate: ['name', 'destination_kind'],
  order: [{ field: 'name', direction: 'asc' }],
  references: { outbound_config_id: { family: 'outbound_configs', unknown: 'refuse' } },
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    families: Type.Array(
      Type.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_]*$|^\\*$', 'x-format-description': 'a family name such as deploy_policies, or * for every family' }),
      { minItems: 1, maxItems: 50, default: ['*'], description: 'the families whose changes are announced, or ["*"] (the default) for all; replaced whole when sent' },
    ),
    actions: Type.Array(Type.Union(CHANGE_ACTIONS.map((a) => Type.Literal(a))), {
      minItems: 1,
      maxItems: CHANGE_ACTIONS.length,
      default: [...CHANGE_ACTIONS],
      description: 'the actions announced (create, update, delete, archive, action); all five by default; replaced whole when sent',
    }),
    destination_kind: Type.Union([Type.Literal('chat'), Type.Literal('outbound')], { description: 'where announcements go: a chat channel or an outbound config' }),
    chat_channel: nullable(CHANNEL, { default: null, description: 'the channel announcements are posted to; required when destination_kind is chat, and only then' }),
    outbound_config_id: nullable(Type.String({ minLength: 1 }), {
      default: null,
      description: 'the outbound_configs row announcements go to; required when destination_kind is outbound, and only then',
    }),
    enabled: Type.Boolean({ default: true, description: 'when false nothing is announced; the row is kept' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [
    uniqueItems('families'),
    starAlone,
    uniqueItems('actions'),
    requiredWhen('chat_channel', 'destination_kind', 'chat'),
    requiredWhen('outbound_config_id', 'destination_kind', 'outbound'),
  ],
  examples: {
    valid: [
      { name: 'all changes to chat', destination_kind: 'chat', chat_channel: '#ops-changes' },
      { name: 'deploy gates outbound', families: ['deploy_policies', 'alert_mutes'], actions: ['create', 'delete', 'action'], destination_kind: 'outbound', outbound_config_id: '$ref:outbound_configs' },
    ],
    invalid: [
      { body: { destination_kind: 'chat', chat_channel: '#x' }, field: 'name' },
      { body: { name: 'x', destination_kind: 'email' }, field: 'destination_kind' },
      { body: { name: 'x', destination_kind: 'chat' }, field: 'chat_channel' },
      { body: { name: 'x', destination_kind: 'chat', chat_channel: 'ops changes' }, field: 'chat_channel' },
      { body: { name: 'x', destination_kind: 'chat', chat_channel: '#x', outbound_config_id: '$ref:outbound_configs' }, field: 'outbound_config_id' },
      { body: { name: 'x', destination_kind: 'outbound' }, field: 'outbound_config_id' },
      { body: { name: 'x', destination_kind: 'outbound', outbound_config_id: 'no-such-config' }, field: 'outbound_config_id' },
      { body: { name: 'x', destination_kind: 'chat', chat_channel: '#x', families: ['*', 'slos'] }, field: 'families' },
      { body: { name: 'x', destination_kind: 'chat', chat_channel: '#x', families: ['Deploy-Policies'] }, field: 'families[0]' },
      { body: { name: 'x', destination_kind: 'chat', chat_channel: '#x', actions: ['rename'] }, field: 'actions[0]' },
    ],
    update: { families: ['slos'], actions: ['update'], chat_channel: '#slo-changes' },
  },
});
