import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import { CHANNEL } from './change_notifications.ts';

export const CHANNEL_PLACEHOLDERS = ['service', 'severity', 'environment'] as const;

/**
 * The buttons on alert thread posts and incident posts (outbound/render/chat-messages.ts), by the `action_id` a
 * press names back (webhooks/chat/), each with the operation it runs on the id in the button's `value`.
 */
export const CHAT_BUTTONS = {
  vigil_ack_alert: { operation: 'acknowledge_alert', subject: 'alert', label: 'Acknowledge' },
  vigil_resolve_alert: { operation: 'resolve_alert', subject: 'alert', label: 'Resolve' },
  vigil_ack_incident: { operation: 'acknowledge_incident', subject: 'incident', label: 'Acknowledge' },
  vigil_resolve_incident: { operation: 'resolve_incident', subject: 'incident', label: 'Resolve' },
} as const;
export type ChatButton = keyof typeof CHAT_BUTTONS;

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

const knownPlaceholders: Rule = {
  description: `alert_channel_pattern must use only the placeholders ${CHANNEL_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
  fields: ['alert_channel_pattern'],
  check: (row) => {
    const used = [...String(row.alert_channel_pattern ?? '').matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
    const unknown = [...new Set(used.filter((p) => !(CHANNEL_PLACEHOLDERS as readonly string[]).includes(p)))];
    if (!unknown.length) return [];
    // a {name} is named back so it can be fixed; anything else between braces is not repeated
    const named = unknown.filter((p) => PLACEHOLDER_NAME.test(p));
    const what = named.length === unknown.length ? `unknown placeholder ${named.map((p) => `{${p}}`).join(', ')}` : 'a {…} that is not a placeholder';
    return [{ field: 'alert_channel_pattern', message: `uses ${what}; the placeholders are ${CHANNEL_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}` }];
  },
};

const tokenWhileConnected: Rule = {
  description: 'bot_token must be stored while workspace_id is set',
  fields: ['bot_token', 'workspace_id'],
  check: (row) => (row.workspace_id !== null && row.workspace_id !== undefined && (row.bot_token === null || row.bot_token === undefined)
    ? [{ field: 'bot_token', message: 'is required while workspace_id is set (a connected workspace needs the bot token)' }]
    : []),
};

export default defineFamily({
  name: 'chat',
  description:
    'The organization\'s chat workspace connection: one row per organization, read by anyone and changed field by field by an org admin. ' +
    '`workspace_id` null means not connected: nothing is posted (alerts, incidents, change notifications) until it is set, and a connected workspace needs `bot_token`. ' +
    'Disconnecting is `workspace_id: null`; the tokens are kept until they are sent as null. ' +
    'Alerts are posted to the channel `alert_channel_pattern` names (default `#alerts-{service}`), filled from the alert: `{service}`, `{severity}` and `{environment}` ' +
    'are the only placeholders (another is refused by name); values are lowercased, characters other than a-z, 0-9, - and _ become -, an absent value is left empty, ' +
    'repeated or trailing - are dropped, and the name is cut at 80 characters; when the channel does not exist the post goes to `default_channel` (null: the alert is not posted). ' +
    'With `thread_per_alert` (default on) a page opens one thread per alert, and every later change of that alert (acknowledged, resolved, a quiet re-fire inside the cooldown) ' +
    'is a reply in it while its first post is updated to show the alert\'s state (resolved: the thread is closed); without it each change is a new message in the alert\'s channel. ' +
    'Every other event kind posted to chat (notification_settings.channels), cards, incidents, deployments and fix requests, is posted to `default_channel` (null: not posted). ' +
    '`incident_channel_prefix` (default `inc-`, 1..20 of a-z, 0-9, - and _) is stored for incident channels named `<prefix><incident number>`, which are not created yet: incidents are posted to `default_channel`. ' +
    'Alert thread posts and incident posts carry Acknowledge and Resolve buttons; presses and `/vigil` commands arrive at `POST /webhooks/chat/<webhook token>` and act as the member whose email the chat user has, ' +
    'refused (401) while no `signing_secret` is saved. ' +
    '`bot_token` (posts as the app) and `signing_secret` (checks that interactive requests such as button presses come from the workspace) are write-only, ' +
    'sealed, answered only as `bot_token_set` and `signing_secret_set`, shown in the audit log only as (set), (changed) or (cleared); an omitted one is kept and null removes it. ' +
    '`updated_at` is null until the first change is stored.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    workspace_id: nullable(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$', 'x-format-description': 'a workspace id of letters, digits, ., - and _ (1 to 100)' }), {
      default: null,
      description: 'the connected chat workspace; null means not connected',
    }),
    default_channel: nullable(CHANNEL, { default: null, description: 'where alerts go when their pattern channel does not exist, and where incidents, cards and other events are posted; null: those are not posted' }),
    alert_channel_pattern: Type.String({
      maxLength: 80,
      pattern: '^#([a-z0-9_-]|\\{[a-z_]+\\})+$',
      'x-format-description': 'a channel name of at most 80 characters: # then lowercase letters, digits, - or _ and the placeholders {service}, {severity}, {environment}',
      default: '#alerts-{service}',
      description: 'the channel an alert is posted to; placeholders {service}, {severity}, {environment}',
    }),
    incident_channel_prefix: Type.String({
      minLength: 1, maxLength: 20, pattern: '^[a-z0-9_-]+$', 'x-format-description': '1 to 20 lowercase letters, digits, - or _',
      default: 'inc-', description: 'the prefix of incident channel names (<prefix><incident number>); such channels are not created yet: incidents post to default_channel',
    }),
    thread_per_alert: Type.Boolean({ default: true, description: 'updates of one alert are replies in its thread' }),
    bot_token: nullable(Type.String({ minLength: 1, maxLength: 512, format: 'password' }), { writeOnly: true, description: 'write-only: the bot token the app posts with; omitted keeps it; null removes it' }),
    bot_token_set: Type.Boolean({ readOnly: true, description: 'whether a bot token is stored' }),
    signing_secret: nullable(Type.String({ minLength: 16, maxLength: 512, format: 'password' }), {
      writeOnly: true,
      description: 'write-only, 16..512 characters: verifies requests the workspace sends (interactive messages, commands); omitted keeps it; null removes it',
    }),
    signing_secret_set: Type.Boolean({ readOnly: true, description: 'whether a signing secret is stored' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  presence: { bot_token_set: 'bot_token', signing_secret_set: 'signing_secret' },
  rules: [knownPlaceholders, tokenWhileConnected],
  examples: {
    valid: [],
    invalid: [
      { body: { alert_channel_pattern: '#alerts-{team}' }, field: 'alert_channel_pattern' },
      { body: { alert_channel_pattern: 'alerts-{service}' }, field: 'alert_channel_pattern' },
      { body: { default_channel: 'ops' }, field: 'default_channel' },
      { body: { incident_channel_prefix: '' }, field: 'incident_channel_prefix' },
      { body: { incident_channel_prefix: 'Inc_' }, field: 'incident_channel_prefix' },
      { body: { signing_secret: 'short' }, field: 'signing_secret' },
      { body: { workspace_id: 'T 1' }, field: 'workspace_id' },
    ],
    update: {
      workspace_id: 'T0123ABCD',
      bot_token: 'bot-token-0123456789',
      signing_secret: 'chat-signing-secret-0123456789',
      default_channel: '#ops',
      alert_channel_pattern: '#alerts-{service}-{environment}',
    },
  },
});
