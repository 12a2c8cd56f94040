import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import type { FieldError } from '../engine/errors.ts';
import { targetUrl } from '../engine/targets.ts';
import { credentialUrl } from '../engine/credential-url.ts';

export const CONNECTOR_KINDS = ['logs', 'metrics', 'traces', 'docs'] as const;
type Kind = (typeof CONNECTOR_KINDS)[number];

export const PROVIDERS: Record<Kind, readonly string[]> = {
  logs: ['loki', 'elasticsearch', 'cloudwatch_logs'],
  metrics: ['prometheus', 'cloudwatch_metrics', 'datadog'],
  traces: ['tempo', 'jaeger', 'xray'],
  docs: ['confluence', 'notion', 'git'],
};
const ALL_PROVIDERS = Object.values(PROVIDERS).flat();

/** Per provider: settings keys (required ones marked `!`) and the credential keys it accepts. */
const HTTP_AUTH = ['username', 'password', 'bearer_token'];
const CLOUD = { settings: ['region!', 'role_arn'], credentials: [] };
const TABLE: Record<string, { settings: string[]; credentials: string[] }> = {
  loki: { settings: ['url!', 'tenant_id', 'datasource_uid'], credentials: HTTP_AUTH },
  elasticsearch: { settings: ['url!', 'index!'], credentials: ['api_key', 'username', 'password'] },
  cloudwatch_logs: { settings: [...CLOUD.settings, 'log_group_prefix'], credentials: CLOUD.credentials },
  prometheus: { settings: ['url!', 'datasource_uid'], credentials: HTTP_AUTH },
  cloudwatch_metrics: CLOUD,
  datadog: { settings: ['site!'], credentials: ['api_key', 'application_key'] },
  tempo: { settings: ['url!', 'tenant_id', 'datasource_uid'], credentials: HTTP_AUTH },
  jaeger: { settings: ['url!'], credentials: HTTP_AUTH },
  xray: CLOUD,
  confluence: { settings: ['url!', 'space_key!'], credentials: ['email', 'api_token'] },
  notion: { settings: ['root_page_id'], credentials: ['token'] },
  git: { settings: ['repo!', 'branch', 'path'], credentials: [] },
};
const keysOf = (provider: string) => (TABLE[provider]?.settings ?? []).map((k) => k.replace('!', ''));
const tableText = ALL_PROVIDERS.map((p) => `${p}: ${TABLE[p]!.settings.map((k) => k.replace('!', ' (required)')).join(', ')}; credentials ${TABLE[p]!.credentials.join(', ') || 'none'}`).join(' | ');

const FORMATS: Record<string, [RegExp, string]> = {
  region: [/^[a-z]{2}(-[a-z]+)+-[0-9]+$/, 'must be a cloud region name such as us-east-1'],
  role_arn: [/^arn:[a-z-]+:iam::[0-9]{12}:role\/[\w+=,.@/-]+$/, 'must be a role ARN: arn:<partition>:iam::<12-digit account>:role/<name>'],
  site: [/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'must be a host name such as datadoghq.eu'],
  repo: [/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be a repository written owner/name'],
  space_key: [/^[A-Za-z0-9~_]+$/, 'must be a space key of letters, digits, ~ or _'],
};

const providerOfKind: Rule = {
  description: `provider must belong to kind (${CONNECTOR_KINDS.map((k) => `${k}: ${PROVIDERS[k].join(', ')}`).join('; ')})`,
  fields: ['provider', 'kind'],
  check: (row) => {
    const accepted = PROVIDERS[row.kind as Kind] ?? [];
    return accepted.includes(String(row.provider)) ? [] : [{ field: 'provider', message: `is not a ${String(row.kind)} provider; ${String(row.kind)} has ${accepted.join(', ')}` }];
  },
};

const settingsOfProvider: Rule = {
  description: `settings must hold only its provider's keys, with the required ones (${tableText})`,
  fields: ['settings', 'provider'],
  check: (row) => {
    const provider = String(row.provider);
    const spec = TABLE[provider];
    if (!spec) return [];
    const settings = (row.settings ?? {}) as Record<string, string>;
    const errors: FieldError[] = [];
    for (const [key, value] of Object.entries(settings)) {
      if (!keysOf(provider).includes(key)) errors.push({ field: `settings.${key}`, message: `is not a setting of ${provider}; it has ${keysOf(provider).join(', ')}` });
      else if (FORMATS[key] && !FORMATS[key][0].test(value)) errors.push({ field: `settings.${key}`, message: FORMATS[key][1] });
    }
    for (const key of spec.settings.filter((k) => k.endsWith('!')).map((k) => k.slice(0, -1))) {
      if (!(key in settings)) errors.push({ field: `settings.${key}`, message: `is required for ${provider}` });
    }
    return errors;
  },
};

const credentialsOfProvider: Rule = {
  description: 'credentials must hold only its provider\'s credential keys',
  fields: ['credentials', 'provider'],
  check: (row) => {
    // on an update that does not send credentials the row holds the sealed value: nothing to check
    if (row.credentials === null || typeof row.credentials !== 'object') return [];
    const accepted = TABLE[String(row.provider)]?.credentials ?? [];
    return Object.keys(row.credentials as Row)
      .filter((key) => !accepted.includes(key))
      .map((key) => ({ field: `credentials.${key}`, message: accepted.length ? `is not a credential of ${String(row.provider)}; it takes ${accepted.join(', ')}` : `${String(row.provider)} takes no credentials` }));
  },
};

export default defineFamily({
  name: 'connectors',
  description:
    'A telemetry or knowledge backend that investigations query: logs, metrics, traces or docs. `provider` must belong to `kind` (logs: loki, elasticsearch, cloudwatch_logs; ' +
    'metrics: prometheus, cloudwatch_metrics, datadog; traces: tempo, jaeger, xray; docs: confluence, notion, git), otherwise it is refused naming `provider`. ' +
    `\`settings\` holds the provider's own keys, each a non-blank string; a key the provider does not have is refused by name (\`settings.<key>\`), and so is a missing required one: ${tableText}. ` +
    'Formats: url is the backend\'s address, judged when it is saved (422 naming `settings.url`): https without user:password@, plain http only to a loopback address the operator allows ' +
    '(VIGIL_OUTBOUND_ALLOW_LOOPBACK=on) or an allow-listed one, and no literal address the outbound policy refuses (host names are judged when the backend is queried); ' +
    `region like us-east-1; role_arn an IAM role ARN; site a host name (the provider's regional site); repo owner/name; ` +
    'datasource_uid queries through a dashboard tool\'s data-source proxy at url. The cloud providers (cloudwatch_logs, cloudwatch_metrics, xray) take no credentials: ' +
    'they assume `role_arn` with the organization\'s external id (cloud_external_id), or use the deployment\'s own role without one. git reads through the code-host app installation. ' +
    '`credentials` is write-only and sealed whole, answered only as `credentials_set` and shown in the audit log only as (set), (changed) or (cleared); its keys are checked per provider ' +
    '(`credentials.<key>`), its values never echoed. A sent `settings` or `credentials` replaces the stored one whole (so `settings` is sent complete, ' +
    'required keys included); an omitted one is kept; `credentials: {}` or null removes the credentials. Choices where the spec is silent: `name` is unique within the organization; `kind` and `provider` ' +
    'are set on create only (a new backend is a new connector); create, update and delete need the org admin role because a connector holds credentials; ' +
    'a disabled connector keeps everything and is not queried.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  roles: { create: 'org_admin', update: 'org_admin', delete: 'org_admin' },
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'kind', 'provider'],
  createOnly: ['kind', 'provider'],
  order: [{ field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization; investigations show it' }),
    kind: Type.Union(CONNECTOR_KINDS.map((k) => Type.Literal(k)), { description: 'what the backend holds; set on create only' }),
    provider: Type.Union(ALL_PROVIDERS.map((p) => Type.Literal(p)), { description: 'the backend; must belong to kind; set on create only' }),
    // `url` is a URL the service calls; the other keys are plain values, checked per provider by the rule
    settings: Type.Object({ url: Type.Optional(credentialUrl(targetUrl('outbound', { description: 'the backend\'s address (loki, elasticsearch, prometheus, tempo, jaeger, confluence)' }))) }, {
      additionalProperties: Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', 'x-format-description': 'a non-blank string of at most 1000 characters' }),
      default: {},
      description: 'the provider\'s settings (keys per provider in the family description); replaced whole when sent',
    }),
    credentials: nullable(Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 4096 })), {
      writeOnly: true,
      description: 'write-only: the provider\'s credential keys → values, sealed whole; replaced whole when sent; {} or null removes them',
    }),
    credentials_set: Type.Boolean({ readOnly: true, description: 'whether credentials are stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false investigations do not query it' }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { credentials_set: 'credentials' },
  rules: [providerOfKind, settingsOfProvider, credentialsOfProvider],
  hooks: {
    prepare: (row) => (row.credentials !== null && typeof row.credentials === 'object' && Object.keys(row.credentials).length === 0 ? { ...row, credentials: null } : row),
  },
  examples: {
    valid: [
      { name: 'prod logs', kind: 'logs', provider: 'loki', settings: { url: 'https://loki.example.com', tenant_id: 'prod' }, credentials: { username: 'vigil', password: 'loki-password-0001' } },
      { name: 'metrics', kind: 'metrics', provider: 'cloudwatch_metrics', settings: { region: 'eu-west-1', role_arn: 'arn:aws:iam::123456789012:role/vigil-read' } },
      { name: 'runbooks', kind: 'docs', provider: 'git', settings: { repo: 'acme/runbooks', path: 'ops/' }, enabled: false },
    ],
    invalid: [
      { body: { kind: 'logs', provider: 'loki', settings: { url: 'https://l.example.com' } }, field: 'name' },
      { body: { name: 'x', kind: 'logs', provider: 'prometheus', settings: { url: 'https://p.example.com' } }, field: 'provider' },
      { body: { name: 'x', kind: 'logs', provider: 'loki', settings: { url: 'https://l.example.com', space_key: 'OPS' } }, field: 'settings.space_key' },
      { body: { name: 'x', kind: 'logs', provider: 'loki', settings: {} }, field: 'settings.url' },
      { body: { name: 'x', kind: 'logs', provider: 'loki', settings: { url: 'http://loki.example.com' } }, field: 'settings.url' },
      { body: { name: 'x', kind: 'logs', provider: 'loki', settings: { url: 'https://0.0.0.0:3100' } }, field: 'settings.url' },
      { body: { name: 'x', kind: 'metrics', provider: 'cloudwatch_metrics', settings: { region: 'Mars' } }, field: 'settings.region' },
      { body: { name: 'x', kind: 'docs', provider: 'git', settings: { repo: 'acme/runbooks' }, credentials: { token: 'git-token-0001' } }, field: 'credentials.token' },
      { body: { name: 'x', kind: 'docs', provider: 'wiki' }, field: 'provider' },
    ],
    update: { settings: { url: 'https://loki.example.com', tenant_id: 'staging' }, enabled: false },
  },
});
