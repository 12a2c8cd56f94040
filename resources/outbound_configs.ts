import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { notAUrl } from '../engine/rules.ts';
import { targetUrl } from '../engine/targets.ts';
import { credentialUrl } from '../engine/credential-url.ts';

export const OUTBOUND_KINDS = ['webhook', 'chat', 'pager'] as const;

const pagerRoutingKey: Rule = {
  description: 'routing_key must be stored for a pager config (the events endpoint refuses an event without one) and only there',
  fields: ['routing_key', 'kind'],
  check: (row) => {
    const stored = row.routing_key !== null && row.routing_key !== undefined;
    if (row.kind === 'pager' && !stored) return [{ field: 'routing_key', message: 'is required for a pager config: the integration key the events endpoint routes by' }];
    if (row.kind !== 'pager' && stored) return [{ field: 'routing_key', message: 'is only for a pager config; send null to remove it before changing kind' }];
    return [];
  },
};

/** Headers the delivery sets itself, and names that differ only by case (HTTP header names are case-insensitive). */
const RESERVED = ['host', 'content-length', 'content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
const MAX_HEADERS = 20;

const headerRule: Rule = {
  description: `headers must hold at most ${MAX_HEADERS} names, none of ${RESERVED.join(', ')} (the delivery sets those), and no name twice in different case`,
  fields: ['headers'],
  check: (row) => {
    // on an update that does not send headers the row holds the sealed value: nothing to check
    if (row.headers === null || typeof row.headers !== 'object') return [];
    const names = Object.keys(row.headers as Row);
    const errors: FieldError[] = [];
    if (names.length > MAX_HEADERS) errors.push({ field: 'headers', message: `must hold at most ${MAX_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      const lower = name.toLowerCase();
      if (RESERVED.includes(lower)) errors.push({ field: `headers.${name}`, message: 'is set by the delivery itself and cannot be overridden' });
      else if (seen.has(lower)) errors.push({ field: `headers.${name}`, message: 'repeats a header name in different case' });
      seen.add(lower);
    }
    return errors;
  },
};

/** An HTTP token (RFC 9110 `tchar`s), as header names are written. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$";

export default defineFamily({
  name: 'outbound_configs',
  description:
    'A delivery destination that outbound rules and change notifications send events to. `kind` says how the event is written: ' +
    '`webhook` POSTs the JSON envelope `{ type, version, id, occurred_at, organization_id, data }` (`type` is the event kind, such as alert.fired; `id` the event\'s); ' +
    '`chat` posts a Slack-compatible incoming-webhook message `{ text, blocks }` (a line for notifications and Block Kit sections: headline, fields such as severity, service and status, a link) to an incoming-webhook URL; `pager` sends PagerDuty Events v2 style events (alert.fired and incident.opened trigger, ' +
    'alert.acknowledged acknowledges, alert.resolved and incident.closed resolve, `dedup_key` per alert or incident) and takes only alert and incident events. ' +
    '`url` is judged when it is saved (422 naming `url`): https, without user:password@; plain http only to a loopback address the operator allows ' +
    '(VIGIL_OUTBOUND_ALLOW_LOOPBACK=on: local receivers and tests) or an allow-listed one; a literal address the outbound policy refuses is refused; host names are judged at every delivery. ' +
    'Deliveries are signed Standard Webhooks style when `signing_secret` is set: headers `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` ' +
    '(a `whsec_` secret is base64-decoded first, as that specification says); receivers that do not check signatures can ignore them. ' +
    'The `webhook-id` header is the delivery\'s id, the same on every attempt, so receivers de-duplicate by it. An attempt that answers non-2xx, fails to connect or takes longer ' +
    'than `timeout_ms` fails and is retried: 8 attempts over about an hour (waits of 30 s, 1, 2, 4, 8, 16, 32 minutes, ±20 % jitter), then the delivery is dead ' +
    '(list_outbound_deliveries, redeliver). Requests never follow a redirect to another host, and an address that resolves to a private, link-local or reserved ' +
    'network is refused (loopback too, unless the operator allows it with VIGIL_OUTBOUND_ALLOW_LOOPBACK=on). A disabled config keeps its secrets and receives nothing. ' +
    'Secrets are write-only and sealed whole, answered only as `headers_set`, `signing_secret_set` and `routing_key_set`, and appear in the audit log only as (set), (changed) or (cleared). ' +
    '`headers` (extra request headers, e.g. an Authorization header for the receiver) is sent whole: a sent map replaces the stored one, an omitted one keeps it, ' +
    'and `{}` removes them all (nothing is stored, so `headers_set` reads false). `signing_secret: null` removes the secret and deliveries go unsigned. ' +
    'Choices where the spec is silent: `name` is unique within the organization; create, update and delete need the org admin role, because a destination decides where the organization\'s ' +
    'data goes; a config that outbound rules or change notifications still name cannot be deleted (422 naming `id`): repoint or delete them first.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'kind', 'url'],
  order: [{ field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization; rules and notifications show it' }),
    kind: Type.Union(OUTBOUND_KINDS.map((k) => Type.Literal(k)), { description: 'webhook (JSON event), chat (chat incoming webhook) or pager (paging events endpoint)' }),
    // a chat incoming webhook's URL is its secret: masked for whoever cannot write the family, and in exports
    url: credentialUrl(targetUrl('outbound', { description: 'where deliveries go' })),
    headers: Type.Record(
      Type.String({ pattern: HEADER_NAME }),
      Type.String({ maxLength: 1000 }),
      {
        additionalProperties: false,
        writeOnly: true,
        description: `write-only: extra request headers, name → value (names are HTTP tokens, values at most 1000 characters, at most ${MAX_HEADERS}); sealed whole; a sent map replaces the stored one; {} removes them`,
      },
    ),
    headers_set: Type.Boolean({ readOnly: true, description: 'whether extra headers are stored' }),
    signing_secret: nullable(Type.String({ minLength: 16, maxLength: 512, format: 'password' }), {
      writeOnly: true,
      description: 'write-only, 16..512 characters: signs every delivery (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature); omitted keeps it; null removes it',
    }),
    signing_secret_set: Type.Boolean({ readOnly: true, description: 'whether deliveries are signed' }),
    routing_key: nullable(Type.String({ minLength: 1, maxLength: 128, format: 'password' }), {
      writeOnly: true,
      description: 'write-only, pager configs only (required there): the integration (routing) key every event carries; omitted keeps it; null removes it',
    }),
    routing_key_set: Type.Boolean({ readOnly: true, description: 'whether a routing key is stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false nothing is delivered; rules and secrets are kept' }),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 30000, default: 5000, description: 'how long one delivery attempt may take, 100..30000 ms' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { headers_set: 'headers', signing_secret_set: 'signing_secret', routing_key_set: 'routing_key' },
  rules: [headerRule, pagerRoutingKey, notAUrl('signing_secret', 'url'), notAUrl('routing_key', 'url')],
  hooks: {
    // `{}` clears: store nothing rather than an empty sealed map, so `headers_set` reads false
    prepare: (row) => (row.headers !== null && typeof row.headers === 'object' && Object.keys(row.headers).length === 0 ? { ...row, headers: null } : row),
    validateDelete: async (row, ctx) => {
      const users = [
        ...(await ctx.lookup.rows('outbound_rules', { outbound_config_id: row.id })).map((r) => `outbound_rules ${String(r.name)}`),
        ...(await ctx.lookup.rows('change_notifications', { outbound_config_id: row.id })).map((r) => `change_notifications ${String(r.name)}`),
      ];
      return users.length ? [{ field: 'id', message: `is still used by ${users.join(', ')}; repoint or delete them first` }] : [];
    },
  },
  examples: {
    valid: [
      { name: 'ops webhook', kind: 'webhook', url: 'https://hooks.example.com/vigil', headers: { Authorization: 'Bearer receiver-token-0001' }, signing_secret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5' },
      { name: 'local receiver', kind: 'webhook', url: 'http://127.0.0.1:9000/events', timeout_ms: 1000, enabled: false },
      { name: 'pager', kind: 'pager', url: 'https://events.pager.example.com/v2/enqueue', routing_key: 'R0ut1ngKeyOfTheServic3Integrat10n' },
    ],
    invalid: [
      { body: { kind: 'webhook', url: 'https://x.example.com' }, field: 'name' },
      { body: { name: 'x', kind: 'email', url: 'https://x.example.com' }, field: 'kind' },
      { body: { name: 'x', kind: 'webhook', url: 'http://hooks.example.com/vigil' }, field: 'url' },
      { body: { name: 'x', kind: 'webhook', url: 'https://user:pw@hooks.example.com/' }, field: 'url' },
      { body: { name: 'x', kind: 'webhook', url: 'https://[::ffff:169.254.169.254]/' }, field: 'url' },
      { body: { name: 'x', kind: 'webhook', url: 'https://x.example.com', headers: { 'bad name': 'v' } }, field: 'headers.bad name' },
      { body: { name: 'x', kind: 'webhook', url: 'https://x.example.com', headers: { 'Webhook-Signature': 'v' } }, field: 'headers.Webhook-Signature' },
      { body: { name: 'x', kind: 'webhook', url: 'https://x.example.com', signing_secret: 'too-short' }, field: 'signing_secret' },
      { body: { name: 'x', kind: 'webhook', url: 'https://x.example.com', timeout_ms: 30001 }, field: 'timeout_ms' },
      { body: { name: 'x', kind: 'pager', url: 'https://events.pager.example.com/v2/enqueue' }, field: 'routing_key' },
      { body: { name: 'x', kind: 'webhook', url: 'https://x.example.com', routing_key: 'R0ut1ngKey' }, field: 'routing_key' },
    ],
    update: { url: 'https://hooks.example.com/vigil/v2', timeout_ms: 10000, enabled: false },
  },
});
