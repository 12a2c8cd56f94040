import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import { targetUrl } from '../engine/targets.ts';
import { credentialUrl } from '../engine/credential-url.ts';

export const CHECK_METHODS = ['GET', 'HEAD', 'POST'] as const;
export const RUN_STATUSES = ['passing', 'failing', 'unknown'] as const;

/** Header names the HTTP client sets itself; a check may not send them. */
const MANAGED_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive'];
const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

const timeoutBelowInterval: Rule = {
  description: 'timeout_ms must be below interval_seconds × 1000, so a run ends before the next one starts',
  fields: ['timeout_ms', 'interval_seconds'],
  check: (row) =>
    typeof row.timeout_ms === 'number' && typeof row.interval_seconds === 'number' && row.timeout_ms >= row.interval_seconds * 1000
      ? [{ field: 'timeout_ms', message: 'must be below interval_seconds × 1000, so a run ends before the next one starts' }]
      : [],
};

const noBodyOnHead: Rule = {
  description: 'body_contains must be null when method is HEAD (a HEAD answer has no body)',
  fields: ['body_contains', 'method'],
  check: (row) => (row.method === 'HEAD' && row.body_contains !== null && row.body_contains !== undefined ? [{ field: 'body_contains', message: 'must be null when method is HEAD, whose answer has no body' }] : []),
};

/** Checked while the map is in plain text (the write that sends it); a stored map is sealed. */
const headerNames: Rule = {
  description: `headers must not name a header the HTTP client sets itself (${MANAGED_HEADERS.join(', ')}), nor one header twice in different cases`,
  fields: ['headers'],
  check: (row) => {
    if (!row.headers || typeof row.headers !== 'object') return [];
    const names = Object.keys(row.headers).map((n) => n.toLowerCase());
    const errors = Object.keys(row.headers).filter((n) => MANAGED_HEADERS.includes(n.toLowerCase())).map((n) => ({ field: `headers.${n}`, message: 'is set by the HTTP client and cannot be sent' }));
    if (new Set(names).size !== names.length) errors.push({ field: 'headers', message: 'must not name one header twice in different cases' });
    return errors;
  },
};

export default defineFamily({
  name: 'synthetic_checks',
  description:
    'An HTTP check that Vigil runs every `interval_seconds`: it sends `method` to `url` and passes when the answer arrives within `timeout_ms` ' +
    'with `expected_status` and, when `body_contains` is set, a body holding that text (case-sensitive). `name` is unique within the organization. ' +
    '`url` may be https or http for any host (internal health endpoints often speak plain http, and a self-hosted Vigil reaches them); other schemes ' +
    'are refused, and so is a user name or password in the URL. It is judged when saved by the checks\' own address policy (not the outbound one): a literal ' +
    'private address is accepted unless the operator turns private networks off (VIGIL_CHECK_ALLOW_PRIVATE=off), loopback only when allowed (VIGIL_CHECK_ALLOW_LOOPBACK=on), ' +
    'link-local (the cloud metadata address 169.254.169.254), unspecified and reserved addresses never (422 naming `url`); host names are judged at every run. Redirects are not followed, so a 301 is compared with `expected_status` as it is. ' +
    'POST sends an empty body. `interval_seconds` is 30..3600, default 60: at the default a failure is seen within about a minute, as uptime ' +
    'checks usually promise; the 30-second floor keeps one check from loading its target (and the runner) more than twice a minute, and the ' +
    'one-hour ceiling keeps every check saying something at least hourly. `timeout_ms` must stay below the interval so runs never overlap. `headers` (for example an Authorization header) is write-only and sealed whole: it is answered only as `headers_set`; ' +
    'a sent map replaces the stored one (send every header again to change one), null removes them all, an omitted map keeps them, and {} (or null) removes them all. ' +
    'Header names are HTTP tokens, at most 20 headers with values of up to 4096 characters; headers the client sets itself (Host, Content-Length…) are refused. ' +
    '`service` links results to the service alerts and deploys name, or null. The run results (`last_run_at`, `last_status`, `last_latency_ms`, ' +
    '`last_error`) are read-only, written by the runner, `unknown`/null until the first run, refused when sent, and never change the ETag. ' +
    'A disabled check is kept with its last results and not run. Reading needs the viewer role; creating, changing and deleting the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  requiredOnCreate: ['name', 'url'],
  order: [{ field: 'name', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'unique within the organization' }),
    url: credentialUrl(targetUrl('check', { description: 'the URL the check requests' })),
    method: Type.Union(CHECK_METHODS.map((m) => Type.Literal(m)), { default: 'GET', description: 'POST sends an empty body' }),
    expected_status: Type.Integer({ minimum: 100, maximum: 599, default: 200, description: 'the status a passing answer has; redirects are not followed' }),
    body_contains: nullable(Type.String({ minLength: 1, maxLength: 1000 }), { default: null, description: 'text the answer body must hold (case-sensitive); null checks the status only' }),
    interval_seconds: Type.Integer({ minimum: 30, maximum: 3600, default: 60, description: 'how often the check runs' }),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 30000, default: 10000, description: 'a run fails when no answer arrives in time; below interval_seconds × 1000' }),
    service: nullable(Type.String({ minLength: 1, maxLength: 200 }), { default: null, description: 'the service as alerts and deploy events name it; null links none' }),
    headers: nullable(
      Type.Record(Type.String({ pattern: TOKEN, maxLength: 100 }), Type.String({ maxLength: 4096, pattern: '^[^\\r\\n]*$', 'x-format-description': 'a header value of at most 4096 characters, without line breaks' }), {
        maxProperties: 20,
        additionalProperties: false,
      }),
      { writeOnly: true, description: 'request headers, name → value; write-only, sealed whole; a sent map replaces the stored one; {} or null removes them all' },
    ),
    headers_set: Type.Boolean({ readOnly: true, description: 'whether request headers are stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false the check is kept and not run' }),
    last_run_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when the check last ran; null until the first run' }),
    last_status: Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)), { readOnly: true, default: 'unknown', description: 'the result of the last run; unknown until the first' }),
    last_latency_ms: nullable(Type.Integer({ minimum: 0 }), { readOnly: true, default: null, description: 'how long the last answer took; null until the first run or when none arrived' }),
    last_error: nullable(Type.String(), { readOnly: true, default: null, description: 'why the last run failed; null when it passed' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { headers_set: 'headers' },
  rules: [timeoutBelowInterval, noBodyOnHead, headerNames],
  hooks: {
    // {} means "no headers": stored as null, so headers_set answers false
    prepare: (row: Row) => (row.headers && typeof row.headers === 'object' && Object.keys(row.headers).length === 0 ? { ...row, headers: null } : row),
  },
  examples: {
    valid: [
      { name: 'checkout health', url: 'https://checkout.example.com/healthz', service: 'checkout', headers: { Authorization: 'Bearer synthetic-secret-0001' } },
      { name: 'internal ping', url: 'http://10.0.0.7:8080/ping', method: 'HEAD', expected_status: 204, interval_seconds: 300, timeout_ms: 2000 },
    ],
    invalid: [
      { body: { url: 'https://x.example.com' }, field: 'name' },
      { body: { name: 'x' }, field: 'url' },
      { body: { name: 'x', url: 'ftp://files.example.com/' }, field: 'url' },
      { body: { name: 'x', url: 'https://user:pw@x.example.com/' }, field: 'url' },
      { body: { name: 'x', url: 'http://169.254.169.254/latest/meta-data/' }, field: 'url' },
      { body: { name: 'x', url: 'https://x.example.com', method: 'PUT' }, field: 'method' },
      { body: { name: 'x', url: 'https://x.example.com', expected_status: 600 }, field: 'expected_status' },
      { body: { name: 'x', url: 'https://x.example.com', interval_seconds: 29 }, field: 'interval_seconds' },
      { body: { name: 'x', url: 'https://x.example.com', interval_seconds: 30, timeout_ms: 30000 }, field: 'timeout_ms' },
      { body: { name: 'x', url: 'https://x.example.com', method: 'HEAD', body_contains: 'ok' }, field: 'body_contains' },
      { body: { name: 'x', url: 'https://x.example.com', headers: { 'Bad Name': 'v' } }, field: 'headers.Bad Name' },
      { body: { name: 'x', url: 'https://x.example.com', headers: { Host: 'evil.example.com' } }, field: 'headers.Host' },
    ],
    update: { interval_seconds: 120, expected_status: 204 },
  },
});
