import Type from 'typebox';
import { defineFamily, featureFor, nullable } from '../engine/descriptor.ts';
import { notAUrl } from '../engine/rules.ts';
import { targetUrl } from '../engine/targets.ts';

/** The two trackers that need credentials (neutral stand-ins, in the service's order). */
export const TRACKERS_WITH_CREDENTIALS = ['issue_tracker', 'sprint_tracker'] as const;

export default defineFamily({
  name: 'ticket_integrations',
  description:
    'The credentials of one ticket tracker (`issue_tracker` or `sprint_tracker`), which its ticket import rule needs before it can be saved. ' +
    'This is the REST view of the agent-tool operation `configure_ticket_integration`; one row per tracker, whose path id is the tracker kind ' +
    '(a second create for the same tracker answers 409 with the existing row). ' +
    '`base_url` is the tracker\'s https API origin (Linear: https://api.linear.app; Jira Cloud: https://<site>.atlassian.net), judged when saved (422 naming `base_url`) since the token is sent to it: ' +
    'no user:password@, plain http only to a loopback address the operator allows (VIGIL_OUTBOUND_ALLOW_LOOPBACK=on) or an allow-listed one, no literal address the outbound policy refuses; host names are judged at every call; ' +
    '`account` the account email or user the token belongs to (Jira: the email of the API token\'s account). ' +
    '`signing_secret` (write-only, 16..512 characters, answered as `signing_secret_set`; null removes it) is the secret of the tracker\'s webhook: ' +
    'once saved, every delivery to the tracker\'s webhook must be signed with it (issue_tracker: Linear-Signature, the hex HMAC-SHA256 of the body, ' +
    'with a webhookTimestamp within 5 minutes; sprint_tracker: X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>, as Jira admin webhooks sign) or is answered 401; ' +
    'without one the webhook token alone is enough. It is checked whether or not the row is enabled. ' +
    '`api_token` is write-only: it is answered as `api_token_set`, never appears in an answer, error, audit entry or export, ' +
    'an omitted token on update keeps the stored one, and removing it means deleting the row. ' +
    'When `enabled` is false the credentials are kept and not used. ' +
    'Every operation but delete needs the ticket systems feature; delete is allowed on any plan so a downgraded plan cannot trap a token. ' +
    'Deleting the credentials leaves the tracker\'s import rule in place; it imports nothing until credentials are saved again, and ' +
    'while it is enabled it cannot be changed (only disabled or deleted) until they are.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: featureFor('ticket_systems', ['delete']),
  id: { from: ['provider'] },
  naturalKey: ['provider'],
  requiredOnCreate: ['provider', 'base_url', 'account', 'api_token'],
  createOnly: ['provider'],
  fields: {
    id: Type.String({ readOnly: true, description: 'the tracker kind' }),
    provider: Type.Union(TRACKERS_WITH_CREDENTIALS.map((k) => Type.Literal(k)), { description: 'the tracker; one row each; set on create only' }),
    base_url: targetUrl('outbound', { description: 'the tracker site\'s https URL' }),
    account: Type.String({ minLength: 1, maxLength: 200, description: 'the account email or user the token belongs to' }),
    api_token: Type.String({ minLength: 1, maxLength: 4096, writeOnly: true, format: 'password', description: 'write-only; never returned; an omitted token keeps the stored one' }),
    api_token_set: Type.Boolean({ readOnly: true, description: 'whether a token is stored' }),
    signing_secret: nullable(Type.String({ minLength: 16, maxLength: 512, format: 'password' }), {
      writeOnly: true,
      description: 'write-only, 16..512 characters: the tracker webhook\'s signing secret; once saved every delivery must be signed with it; omitted keeps it; null removes it',
    }),
    signing_secret_set: Type.Boolean({ readOnly: true, description: 'whether deliveries must be signed' }),
    enabled: Type.Boolean({ default: true, description: 'when false the credentials are kept and not used' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { api_token_set: 'api_token', signing_secret_set: 'signing_secret' },
  // the signing secret decides how the tracker webhooks authenticate: a write clears the credential cache
  authenticates: true,
  rules: [notAUrl('api_token', 'base_url'), notAUrl('signing_secret', 'base_url')],
  examples: {
    valid: [
      { provider: 'issue_tracker', base_url: 'https://acme.tracker.example.com', account: 'ops@acme.example', api_token: 'tok-issue-0001', signing_secret: 'lin_wh_signing-secret-0001' },
      { provider: 'sprint_tracker', base_url: 'https://sprints.example.com', account: 'ops-bot', api_token: 'tok-sprint-0001', enabled: false },
    ],
    invalid: [
      { body: { base_url: 'https://x.example.com', account: 'a', api_token: 't' }, field: 'provider' },
      { body: { provider: 'code_host', base_url: 'https://x.example.com', account: 'a', api_token: 't' }, field: 'provider' },
      { body: { provider: 'issue_tracker', base_url: 'not a url', account: 'a', api_token: 't' }, field: 'base_url' },
      { body: { provider: 'issue_tracker', base_url: 'http://x.example.com', account: 'a', api_token: 't' }, field: 'base_url' },
      { body: { provider: 'issue_tracker', base_url: 'https://10.0.0.1', account: 'a', api_token: 't' }, field: 'base_url' },
      { body: { provider: 'issue_tracker', base_url: 'https://x.example.com', api_token: 't' }, field: 'account' },
      { body: { provider: 'issue_tracker', base_url: 'https://x.example.com', account: 'a' }, field: 'api_token' },
      { body: { provider: 'issue_tracker', base_url: 'https://x.example.com', account: 'a', api_token: '' }, field: 'api_token' },
      { body: { provider: 'issue_tracker', base_url: 'https://x.example.com', account: 'a', api_token: 't', signing_secret: 'too-short' }, field: 'signing_secret' },
    ],
    update: { account: 'oncall@acme.example', enabled: false },
  },
});
