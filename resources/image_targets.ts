import Type from 'typebox';
import { defineFamily, nullable, type Row, type Rule } from '../engine/descriptor.ts';
import { targetHost } from '../engine/targets.ts';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const REGISTRY = `^${LABEL}(?:\\.${LABEL})*(?::[1-9][0-9]{0,4})?$`;
/** The distribution spec's repository name: lowercase path components joined by "/". */
const COMPONENT = '[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*';
const REPOSITORY = `^${COMPONENT}(?:/${COMPONENT})*$`;

const registryPort: Rule = {
  description: 'registry must name a port from 1 to 65535 when it names one',
  fields: ['registry'],
  check: (row) => (typeof row.registry === 'string' && Number(row.registry.split(':')[1] ?? 1) > 65535 ? [{ field: 'registry', message: 'must name a port from 1 to 65535' }] : []),
};

/** The reason a pattern does not compile, in the engine's words only: never the pattern itself. */
function regexError(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
    return null;
  } catch (error) {
    const reason = String((error as Error).message).split(': ').at(-1) ?? '';
    return /^[A-Za-z ]{1,60}$/.test(reason) ? reason.toLowerCase() : 'it does not compile';
  }
}

const validRegex: Rule = {
  description: 'tag_pattern must be a valid regular expression (JavaScript syntax with the u flag)',
  fields: ['tag_pattern'],
  check: (row) => {
    const reason = typeof row.tag_pattern === 'string' ? regexError(row.tag_pattern) : null;
    return reason ? [{ field: 'tag_pattern', message: `must be a valid regular expression (JavaScript syntax, u flag): ${reason}` }] : [];
  },
};

const secret = () => Type.String({ minLength: 1, maxLength: 4096, format: 'password' });

export default defineFamily({
  name: 'image_targets',
  description:
    'A container image repository Vigil watches for new tags, so a new image can be put on the service\'s timeline before it is deployed. ' +
    'One target per registry and repository: `registry` is the registry host with an optional port (ghcr.io, docker.io for Docker Hub, ' +
    'registry.example.com:5000), stored lowercased, and judged when saved like every host the service calls (a literal address the outbound policy refuses is refused, 422 naming `registry`; names are judged when the registry is polled); `repository` is the path inside it as the distribution spec writes it (lowercase path ' +
    'components such as acme/checkout, and library/nginx for a Docker Hub official image). Both may be changed by update. ' +
    '`tag_pattern` is a JavaScript regular expression (u flag) searched in each tag, so anchor it (^v\\d+\\.\\d+\\.\\d+$) to match whole tags; ' +
    'null (the default) watches every tag. A pattern that does not compile is refused by name. `service` and `environment` (default empty) ' +
    'name what the image is deployed as, spelled as deploy events spell them. `credentials` is write-only and sealed whole: either ' +
    '`{ username, password }` or `{ token }` (a registry access token), answered only as `credentials_set`; a sent value replaces the stored one, ' +
    'null removes it (public images need none), an omitted one keeps it. The watch results `last_seen_tag` and `last_seen_at` are read-only, ' +
    'written by the watcher, null until a tag is seen, refused when sent, and never change the ETag. A disabled target keeps its results and is not polled. ' +
    'Reading needs the viewer role; creating, changing and deleting the member role.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['registry', 'repository'],
  requiredOnCreate: ['registry', 'repository', 'service'],
  order: [{ field: 'registry', direction: 'asc' }, { field: 'repository', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    registry: targetHost('outbound', {
      minLength: 1, maxLength: 255, pattern: REGISTRY, 'x-format-description': 'a registry host with an optional port, such as ghcr.io or registry.example.com:5000',
      description: 'the registry host[:port]; stored lowercased; with repository, unique within the organization',
    }),
    repository: Type.String({
      minLength: 1, maxLength: 255, pattern: REPOSITORY, 'x-format-description': 'a repository path of lowercase letters, digits and separators (. _ __ -) joined by "/", at most 255 characters',
      description: 'the repository path inside the registry, such as acme/checkout',
    }),
    tag_pattern: nullable(Type.String({ minLength: 1, maxLength: 500 }), { default: null, description: 'a regular expression searched in each tag; null watches every tag' }),
    service: Type.String({ minLength: 1, maxLength: 200, description: 'the service the image is deployed as' }),
    environment: Type.String({ maxLength: 200, default: '', description: 'the environment, as deploy events name it; empty for none' }),
    credentials: nullable(
      Type.Union([
        Type.Object({ username: Type.String({ minLength: 1, maxLength: 255 }), password: secret() }, { additionalProperties: false }),
        Type.Object({ token: secret() }, { additionalProperties: false }),
      ]),
      { writeOnly: true, description: 'registry credentials, { username, password } or { token }; write-only, sealed whole; null removes them' },
    ),
    credentials_set: Type.Boolean({ readOnly: true, description: 'whether registry credentials are stored' }),
    enabled: Type.Boolean({ default: true, description: 'when false the target is kept and not polled' }),
    last_seen_tag: nullable(Type.String(), { readOnly: true, default: null, description: 'the newest matching tag seen; null until one is' }),
    last_seen_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, default: null, description: 'when last_seen_tag was first seen' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { credentials_set: 'credentials' },
  rules: [registryPort, validRegex],
  hooks: {
    prepare: (row: Row) => (typeof row.registry === 'string' ? { ...row, registry: row.registry.toLowerCase() } : row),
  },
  examples: {
    valid: [
      { registry: 'ghcr.io', repository: 'acme/checkout', service: 'checkout', environment: 'production', tag_pattern: '^v\\d+\\.\\d+\\.\\d+$', credentials: { token: 'ghp_image-secret-0001' } },
      { registry: 'registry.example.com:5000', repository: 'platform/api', service: 'api', credentials: { username: 'robot', password: 'image-secret-0002' } },
      { registry: 'docker.io', repository: 'library/nginx', service: 'edge' },
    ],
    invalid: [
      { body: { repository: 'acme/x', service: 's' }, field: 'registry' },
      { body: { registry: '169.254.169.254', repository: 'acme/x', service: 's' }, field: 'registry' },
      { body: { registry: 'ghcr.io', service: 's' }, field: 'repository' },
      { body: { registry: 'ghcr.io', repository: 'acme/x' }, field: 'service' },
      { body: { registry: 'https://ghcr.io', repository: 'acme/x', service: 's' }, field: 'registry' },
      { body: { registry: 'ghcr.io:70000', repository: 'acme/x', service: 's' }, field: 'registry' },
      { body: { registry: 'ghcr.io', repository: 'Acme/X', service: 's' }, field: 'repository' },
      { body: { registry: 'ghcr.io', repository: 'acme//x', service: 's' }, field: 'repository' },
      { body: { registry: 'ghcr.io', repository: 'acme/x', service: 's', tag_pattern: '(v1' }, field: 'tag_pattern' },
      { body: { registry: 'ghcr.io', repository: 'acme/x', service: 's', credentials: { username: 'robot' } }, field: 'credentials.password' },
      { body: { registry: 'ghcr.io', repository: 'acme/x', service: 's', credentials: { token: '' } }, field: 'credentials.token' },
    ],
    update: { tag_pattern: '^v2\\.', enabled: false },
  },
});
