import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import { targetUrl } from '../engine/targets.ts';

/**
 * The organization's accounts at the providers a page is sent through (domain/paging/channels/): Twilio for sms and
 * voice, Pushover's application token, and an ntfy server's access token. One row per organization; a field left null
 * falls back to the operator's default (VIGIL_TWILIO_*, VIGIL_PUSHOVER_APP_TOKEN), so a deployment can pay for one
 * account that every organization uses.
 */

const bothOrNeither = (a: string, b: string): Rule => ({
  description: `${a} and ${b} are set together`,
  fields: [a, b],
  check: (row) => ((row[a] == null) !== (row[b] == null) ? [{ field: row[a] == null ? a : b, message: `is required while ${row[a] == null ? b : a} is set` }] : []),
});

export default defineFamily({
  name: 'paging_providers',
  description:
    'The accounts pages are sent through, one row per organization, changed field by field by an org admin. ' +
    'Twilio sends sms and voice pages and verification codes: `twilio_account_sid` (AC and 32 hex digits), the write-only `twilio_auth_token`, and ' +
    '`twilio_from` (the sending number in E.164, or a Messaging Service SID, MG…). Pushover sends `pushover` pages with the application\'s ' +
    'write-only `pushover_app_token`. ntfy pages go to the topic URL on each contact method; `ntfy_access_token` (write-only) is sent only to ' +
    '`ntfy_server` (an https origin), never to a topic on another server. A field left null uses the operator\'s default account, where the ' +
    'deployment has one (VIGIL_TWILIO_ACCOUNT_SID, VIGIL_TWILIO_AUTH_TOKEN, VIGIL_TWILIO_FROM, VIGIL_PUSHOVER_APP_TOKEN); with neither, pages by that ' +
    'channel are recorded as not sent, naming why, and the person\'s other methods are still tried. `webhook_signing_secret` (write-only) signs ' +
    '`webhook` pages Standard Webhooks style, exactly like outbound deliveries; without it they go unsigned. Tokens are sealed, answered only as `…_set`, ' +
    'shown in the audit log only as (set), (changed) or (cleared); an omitted one is kept and null removes it.',
  kind: 'singleton',
  operations: ['read', 'update'],
  roles: { update: 'org_admin' },
  fields: {
    twilio_account_sid: nullable(Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', 'x-format-description': 'a Twilio account SID: AC and 32 hex digits' }), {
      default: null,
      description: 'the Twilio account pages are sent from; null uses the operator\'s default',
    }),
    twilio_auth_token: nullable(Type.String({ minLength: 16, maxLength: 128, format: 'password' }), {
      writeOnly: true,
      description: 'write-only: the account\'s auth token (signs Twilio\'s callbacks too); omitted keeps it; null removes it',
    }),
    twilio_auth_token_set: Type.Boolean({ readOnly: true, description: 'whether a Twilio auth token is stored' }),
    twilio_from: nullable(Type.String({ pattern: '^(\\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32})$', 'x-format-description': 'a number in E.164 (+ and 7 to 15 digits) or a Messaging Service SID (MG and 32 hex digits)' }), {
      default: null,
      description: 'the number sms and calls come from, or a Messaging Service SID (sms only; calls then need a number)',
    }),
    pushover_app_token: nullable(Type.String({ pattern: '^[A-Za-z0-9]{30}$', format: 'password', 'x-format-description': 'a Pushover application token: 30 letters and digits' }), {
      writeOnly: true,
      description: 'write-only: the Pushover application pages are sent as; omitted keeps it; null removes it',
    }),
    pushover_app_token_set: Type.Boolean({ readOnly: true, description: 'whether a Pushover application token is stored' }),
    ntfy_server: nullable(targetUrl('outbound'), { default: null, description: 'the ntfy server (an https origin) the access token belongs to' }),
    ntfy_access_token: nullable(Type.String({ minLength: 1, maxLength: 200, format: 'password' }), {
      writeOnly: true,
      description: 'write-only: an ntfy access token (tk_…) sent only with publishes to ntfy_server; omitted keeps it; null removes it',
    }),
    ntfy_access_token_set: Type.Boolean({ readOnly: true, description: 'whether an ntfy access token is stored' }),
    webhook_signing_secret: nullable(Type.String({ minLength: 16, maxLength: 512, format: 'password' }), {
      writeOnly: true,
      description: 'write-only: signs webhook pages Standard Webhooks style, like outbound deliveries (a whsec_ secret is base64 after the prefix, any other its UTF-8 bytes); omitted keeps it; null removes it and webhook pages go unsigned',
    }),
    webhook_signing_secret_set: Type.Boolean({ readOnly: true, description: 'whether webhook pages are signed' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  presence: { twilio_auth_token_set: 'twilio_auth_token', pushover_app_token_set: 'pushover_app_token', ntfy_access_token_set: 'ntfy_access_token', webhook_signing_secret_set: 'webhook_signing_secret' },
  rules: [bothOrNeither('twilio_account_sid', 'twilio_auth_token'), bothOrNeither('ntfy_server', 'ntfy_access_token')],
  examples: {
    valid: [],
    invalid: [
      { body: { twilio_account_sid: 'AC123' }, field: 'twilio_account_sid' },
      { body: { twilio_from: '4155552671' }, field: 'twilio_from' },
      { body: { pushover_app_token: 'short' }, field: 'pushover_app_token' },
      { body: { ntfy_server: 'https://10.0.0.5' }, field: 'ntfy_server' },
      { body: { webhook_signing_secret: 'short' }, field: 'webhook_signing_secret' },
    ],
    update: {
      twilio_account_sid: 'ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      twilio_auth_token: 'twilio-auth-token-0123456789abcdef',
      twilio_from: '+14155552671',
      pushover_app_token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi',
      ntfy_server: 'https://ntfy.example.com',
      ntfy_access_token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2',
      webhook_signing_secret: 'whsec_cGFnaW5nLXdlYmhvb2stc2VjcmV0',
    },
  },
});
