import { isIPv6 } from 'node:net';
import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import { targetHost } from '../engine/targets.ts';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A DNS name whose last label starts with a letter (so 300.1.1.1 is no hostname). */
export const HOSTNAME = `(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
/** IPv6 characters only; the rule below checks the address itself. */
const IPV6 = '[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*';

export const CHECK_STATUSES = ['ok', 'expiring', 'expired', 'error', 'unknown'] as const;

const ipv6Host: Rule = {
  description: 'host must be a valid IPv6 address when it holds a colon (written without brackets)',
  fields: ['host'],
  check: (row) => (typeof row.host === 'string' && row.host.includes(':') && !isIPv6(row.host) ? [{ field: 'host', message: 'must be a valid IPv6 address, written without brackets' }] : []),
};

/** Hostnames compare without regard to case; an IPv6 address is written in its compressed form. */
function canonicalHost(host: unknown): unknown {
  if (typeof host !== 'string') return host;
  if (isIPv6(host)) return new URL(`https://[${host}]/`).hostname.slice(1, -1);
  return host.toLowerCase();
}

export default defineFamily({
  name: 'certificate_monitors',
  description:
    'A TLS endpoint whose certificate Vigil watches: it connects to `host`:`port`, reads the certificate chain the endpoint serves and ' +
    'reports when the leaf certificate expires. One monitor per host and port: `host` is stored lowercased (an IPv6 address in its ' +
    'compressed form), so a second monitor of `API.example.com:443` beside `api.example.com:443` answers 409 with the existing one. ' +
    'To watch several names served from one address, monitor each name as its own host. ' +
    '`sni` is the server name sent in the TLS handshake; null (the default) sends `host` when it is a hostname and no server name when it is ' +
    'an IP address (TLS forbids an IP as a server name, so `sni` accepts hostnames only). ' +
    'Private addresses and internal names are accepted: a self-hosted Vigil watches internal endpoints too. `host` is judged when saved by the checks\' own ' +
    'address policy, as synthetic checks are: a literal loopback address (or localhost) only when the operator allows it (VIGIL_CHECK_ALLOW_LOOPBACK=on), a private one ' +
    'unless private networks are turned off (VIGIL_CHECK_ALLOW_PRIVATE=off), link-local, unspecified and reserved addresses never (422 naming `host`); names are judged at every check. ' +
    '`last_status` is `expiring` once fewer than `warn_days` days remain before `expires_at`, `expired` after it, `error` when the last check ' +
    'could not read a certificate (the reason in `last_error`), and `unknown` until the first check. The check results (`expires_at`, ' +
    '`last_checked_at`, `last_status`, `last_error`) are read-only: they are written by the checker, null (unknown) until the first check, ' +
    'refused by name when sent, and never change the ETag. A disabled monitor keeps its last results and is not checked. Every field can be ' +
    'changed by update (a changed host or port is checked against the other monitors again); delete removes the monitor and its results. ' +
    'Reading needs the viewer role; creating, changing and deleting the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['host', 'port'],
  requiredOnCreate: ['host'],
  order: [{ field: 'host', direction: 'asc' }, { field: 'port', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    host: targetHost('check', {
      minLength: 1, maxLength: 253, pattern: `^(?:${HOSTNAME}|${IPV4}|${IPV6})$`,
      'x-format-description': 'a hostname, an IPv4 address or an IPv6 address (without brackets), at most 253 characters',
      description: 'the endpoint to connect to; stored lowercased; with port, unique within the organization',
    }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 443, description: 'the TCP port that speaks TLS' }),
    sni: nullable(Type.String({ minLength: 1, maxLength: 253, pattern: `^${HOSTNAME}$`, 'x-format-description': 'a hostname of at most 253 characters' }), {
      default: null,
      description: 'the server name sent in the handshake, stored lowercased; null sends host when it is a hostname, and none for an IP address',
    }),
    warn_days: Type.Integer({ minimum: 1, maximum: 365, default: 21, description: 'last_status turns expiring once fewer days than this remain' }),
    enabled: Type.Boolean({ default: true, description: 'when false the monitor is kept with its last results and not checked' }),
    expires_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when the served leaf certificate expires; null until a check read one' }),
    last_checked_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when the last check ran; null until the first' }),
    last_status: Type.Union(CHECK_STATUSES.map((s) => Type.Literal(s)), { readOnly: true, default: 'unknown', description: 'the result of the last check; unknown until the first' }),
    last_error: nullable(Type.String(), { readOnly: true, default: null, description: 'why the last check failed (last_status error); null otherwise' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  rules: [ipv6Host],
  hooks: {
    prepare: (row: Row) => ({ ...row, host: canonicalHost(row.host), sni: typeof row.sni === 'string' ? row.sni.toLowerCase() : row.sni }),
  },
  examples: {
    valid: [
      { host: 'api.example.com' },
      { host: '10.0.0.5', port: 8443, sni: 'internal.example.com', warn_days: 30, enabled: false },
    ],
    invalid: [
      { body: { port: 443 }, field: 'host' },
      { body: { host: 'not a host' }, field: 'host' },
      { body: { host: '-bad.example.com' }, field: 'host' },
      { body: { host: '2001:db8:::1' }, field: 'host' },
      { body: { host: '169.254.169.254' }, field: 'host' },
      { body: { host: 'api.example.com', port: 0 }, field: 'port' },
      { body: { host: 'api.example.com', port: 65536 }, field: 'port' },
      { body: { host: 'api.example.com', sni: '10.0.0.5' }, field: 'sni' },
      { body: { host: 'api.example.com', warn_days: 366 }, field: 'warn_days' },
      { body: { host: 'api.example.com', last_status: 'ok' }, field: 'last_status' },
    ],
    update: { warn_days: 14, enabled: false },
  },
});
