import Type from 'typebox';
import type { ServiceConfig, WebhookSourceFacts } from '../engine/config.ts';
import { defineFamily, type HookContext, type Row } from '../engine/descriptor.ts';
import { validationFailed, type FieldError } from '../engine/errors.ts';

/**
 * The organization flag the operator sets (the spec's "contacting support") to allow signing secrets for the
 * dashboard and monitoring sources: `signing_enabled_sources: ["metric-dashboard", …]`, or `true` for all three.
 */
export const SIGNING_SWITCH_FLAG = 'signing_enabled_sources';

function switchedOn(ctx: HookContext, source: string): boolean {
  const flag = ctx.caller.organization.flags[SIGNING_SWITCH_FLAG];
  return flag === true || (Array.isArray(flag) && flag.includes(source));
}

type Signing = NonNullable<WebhookSourceFacts['signing']>;

/**
 * Which sources can be signed, and how, is the webhook side's to say (each source's `signing`): the engine hands it
 * over as data in the deployment's config, so this family names no source.
 */
function signingOf(config: ServiceConfig, source: unknown): Signing | undefined {
  return config.webhookSources.find((s) => s.segment === source)?.signing;
}

/** The sources that can be signed: the field's allowed values, published as its enum (the deployment's, not this family's). */
function signable(config: ServiceConfig): string[] {
  return config.webhookSources.flatMap((s) => (s.signing ? [s.segment] : []));
}

/** For the refusal of any other source: every signable source with its scheme and how its sender signs. */
function signableSources(config: ServiceConfig): string {
  return config.webhookSources.flatMap((s) => (s.signing ? [`${s.segment} (${s.signing.scheme}: ${s.signing.notes})`] : [])).join('; ');
}

/**
 * On create, the source must be one that can be signed; a new secret for a source the operator has not switched on
 * is refused, while disabling or deleting one stays possible.
 */
function checkSource(row: Row, input: Row, op: 'create' | 'update', ctx: HookContext): Row {
  const signing = signingOf(ctx.config, row.source);
  if (!signing) {
    // the refusal names the field and the accepted values, never the value sent
    if (op === 'create') throw validationFailed([{ field: 'source', message: `must be a webhook source that can be signed: ${signableSources(ctx.config)}` }]);
    return row;
  }
  const source = String(row.source);
  if (!signing.operatorSwitch || switchedOn(ctx, source)) return row;
  if (op === 'update' && !('secret' in input)) return row;
  const refusal: FieldError = { field: 'source', message: `signing for ${source} is switched on by the operator (contact support); until then no secret can be saved for it` };
  throw validationFailed([refusal]);
}

export default defineFamily({
  name: 'request_signing',
  singular: 'request_signing_secret',
  description:
    'The signing secrets of the inbound webhooks (the Webhooks tab): one row per source, whose path id is the source. ' +
    'Sources that can be signed, each in its product\'s own scheme: the dashboard (`metric-dashboard`), pager, monitoring and code-host sources; ' +
    'a row answers its `scheme` and `signature_header`, and a create for any other source is refused with 422 naming `source` and listing every signable source with how its sender signs. ' +
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
    source: Type.String({ minLength: 1, maxLength: 64, description: 'the webhook source (its URL segment), one that can be signed; one row each; set on create only' }),
    secret: Type.String({ minLength: 16, maxLength: 512, writeOnly: true, format: 'password', description: 'write-only, 16..512 characters; never returned; an omitted secret keeps the stored one' }),
    secret_set: Type.Boolean({ readOnly: true, description: 'whether a secret is stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false the secret is kept and requests are not checked against it' }),
    scheme: Type.String({ readOnly: true, description: 'the signing scheme of the source: grafana-hmac, pagerduty-v3, shared-secret-header or github-sha256' }),
    signature_header: Type.String({ readOnly: true, description: 'the header the sender puts the signature (or the secret) in' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  configuredValues: { source: signable },
  presence: { secret_set: 'secret' },
  authenticates: true,
  computed: {
    scheme: (row, ctx) => signingOf(ctx.config, row.source)?.scheme ?? null,
    signature_header: (row, ctx) => signingOf(ctx.config, row.source)?.header ?? null,
  },
  hooks: {
    prepare: (row, input, stage) => checkSource(row, input, stage.op, stage.ctx),
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
