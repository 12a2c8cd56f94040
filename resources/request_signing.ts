import Type from 'typebox';
import { defineFamily, type HookContext, type Row } from '../engine/descriptor.ts';
import { validationFailed, type FieldError } from '../engine/errors.ts';
import { OPERATOR_SWITCHED_SOURCES, SIGNABLE_SOURCES, SIGNING_SCHEMES, type SignableSource } from '../webhooks/signing.ts';

/**
 * The organization flag the operator sets (the spec's "contacting support") to allow signing secrets for the
 * dashboard and monitoring sources: `signing_enabled_sources: ["metric-dashboard", …]`, or `true` for all three.
 */
export const SIGNING_SWITCH_FLAG = 'signing_enabled_sources';

function switchedOn(ctx: HookContext, source: string): boolean {
  const flag = ctx.caller.organization.flags[SIGNING_SWITCH_FLAG];
  return flag === true || (Array.isArray(flag) && flag.includes(source));
}

/** Refuses a new secret for a source the operator has not switched on; disabling or deleting one stays possible. */
function operatorSwitch(row: Row, input: Row, op: 'create' | 'update', ctx: HookContext): Row {
  const source = String(row.source);
  if (!(OPERATOR_SWITCHED_SOURCES as string[]).includes(source) || switchedOn(ctx, source)) return row;
  if (op === 'update' && !('secret' in input)) return row;
  const refusal: FieldError = { field: 'source', message: `signing for ${source} is switched on by the operator (contact support); until then no secret can be saved for it` };
  throw validationFailed([refusal]);
}

const SCHEME_NOTES: Record<SignableSource, string> = {
  'metric-dashboard': 'hex HMAC-SHA256 of the body in X-Grafana-Alerting-Signature (Grafana contact point "HMAC Signature"; optional Timestamp Header X-Grafana-Alerting-Timestamp, then "<timestamp>:<body>" is signed)',
  'incident-pager': 'X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>, possibly several comma-separated (PagerDuty v3 webhook subscription secret)',
  'monitoring-a': 'the secret itself as Authorization: Bearer <secret> or X-Vigil-Signature-Secret: <secret> (custom headers of the Datadog webhook)',
  'monitoring-b': 'the secret itself as Authorization: Bearer <secret> or X-Vigil-Signature-Secret: <secret> (New Relic webhook destination auth or custom header)',
  'code-host': 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body> (GitHub webhook secret)',
};

export default defineFamily({
  name: 'request_signing',
  singular: 'request_signing_secret',
  description:
    'The signing secrets of the inbound webhooks (the Webhooks tab): one row per source, whose path id is the source. ' +
    'Sources that can be signed, each in its product\'s own scheme (`scheme`): ' +
    SIGNABLE_SOURCES.map((s) => `\`${s}\` (${SIGNING_SCHEMES[s].scheme}: ${SCHEME_NOTES[s]})`).join('; ') + '. ' +
    'The cloud sources are not here: they rely on the notification topic\'s own message signature; the other sources take the token alone. ' +
    'Once a secret is saved and `enabled`, every request to that source must carry a matching signature or is answered 401; ' +
    '`enabled: false` keeps the secret and stops checking it. ' +
    'Requests to the dashboard, pager and monitoring sources must be signed, with a saved and enabled secret, once the organization has an approved runbook that runs automatically ' +
    '(the operator\'s organization flag `automatic_runbook_approved`); unsigned ones then answer 401 even without a secret. ' +
    `A secret for \`metric-dashboard\`, \`monitoring-a\` or \`monitoring-b\` is refused (422 naming \`source\`) until the operator switched signing on for that source ` +
    `(organization flag \`${SIGNING_SWITCH_FLAG}\`: a list of sources, or true for all). ` +
    '`secret` is write-only (16..512 characters): answered only as `secret_set`, never in an answer, error, audit entry (only (set) or (changed)) or export; ' +
    'an omitted secret on update keeps the stored one; rotating is sending a new one (the sender must switch at the same moment: the old one stops matching at once); ' +
    'removing it is deleting the row. Writes need an org admin.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  id: { from: ['source'] },
  naturalKey: ['source'],
  requiredOnCreate: ['source', 'secret'],
  createOnly: ['source'],
  fields: {
    id: Type.String({ readOnly: true, description: 'the source' }),
    source: Type.Union(SIGNABLE_SOURCES.map((s) => Type.Literal(s)), { description: 'the webhook source; one row each; set on create only' }),
    secret: Type.String({ minLength: 16, maxLength: 512, writeOnly: true, format: 'password', description: 'write-only, 16..512 characters; never returned; an omitted secret keeps the stored one' }),
    secret_set: Type.Boolean({ readOnly: true, description: 'whether a secret is stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false the secret is kept and requests are not checked against it' }),
    scheme: Type.String({ readOnly: true, description: 'the signing scheme of the source: grafana-hmac, pagerduty-v3, shared-secret-header or github-sha256' }),
    signature_header: Type.String({ readOnly: true, description: 'the header the sender puts the signature (or the secret) in' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { secret_set: 'secret' },
  authenticates: true,
  computed: {
    scheme: (row) => SIGNING_SCHEMES[row.source as SignableSource]?.scheme ?? null,
    signature_header: (row) => SIGNING_SCHEMES[row.source as SignableSource]?.header ?? null,
  },
  hooks: {
    prepare: (row, input, stage) => operatorSwitch(row, input, stage.op, stage.ctx),
  },
  examples: {
    valid: [
      { source: 'incident-pager', secret: 'pager-signing-secret-0001' },
      { source: 'code-host', secret: 'code-host-signing-secret-0001', enabled: false },
    ],
    invalid: [
      { body: { secret: 'pager-signing-secret-0001' }, field: 'source' },
      { body: { source: 'cloud-alarms', secret: 'cloud-signing-secret-0001' }, field: 'source' },
      { body: { source: 'metric-dashboard', secret: 'dashboard-signing-secret-0001' }, field: 'source' },
      { body: { source: 'incident-pager', secret: 'short' }, field: 'secret' },
      { body: { source: 'incident-pager' }, field: 'secret' },
    ],
    update: { secret: 'pager-signing-secret-0002', enabled: false },
  },
});
