/**
 * The OpenAPI 3.1 document of the configuration API, generated entirely from the registry and the domain
 * operations: one tag per family and per domain operation REST serves, every (method, path) the route table
 * of config-api.ts serves, request and answer schemas copied from the field schemas (openapi-schemas.ts),
 * the shared error body, headers and responses (openapi-responses.ts). No family is named here.
 */
import { API_KEY_PREFIX, SCOPE_ROLES } from '../auth/credentials.ts';
import type { ServiceConfig } from '../config.ts';
import { isReadOnly, withConfiguredValues } from '../fields.ts';
import { actionTransports, DEFAULT_ROLES, type FamilyDescriptor, type OperationName } from '../descriptor.ts';
import { domainRestPath, takesIdempotencyKey } from '../operations/domain.ts';
import type { DomainOperation } from '../services.ts';
import { FEATURES, roleAtLeast, type Feature, type Role } from '../plans.ts';
import type { Registry } from '../registry.ts';
import { CONFIG_PREFIX } from './config-api.ts';
import { ERROR_STATUS } from '../errors.ts';
import { errorResponse, forbiddenCodes, KEY_RUNNING, ref, sharedHeaders, sharedParameters, sharedResponses, sharedSchemas, withRateLimit } from './openapi-responses.ts';
import { familyExamples, sampleBody } from './openapi-examples.ts';
import { copy, familySchemas, type Json } from './openapi-schemas.ts';
import { answersPage, LINK_HEADER, pageMembers, pageParameters } from './openapi-pages.ts';
import { listLimits } from '../operations/read.ts';

export const OPENAPI_VERSION = '1.0.0';
/** Where the document and its readable page are served, under the configuration API's prefix. */
export const DOCUMENT_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const SCHEME = 'api_key';
const REST_SCOPES = Object.entries(SCOPE_ROLES).filter(([, s]) => s.endpoint === 'rest');

const list = (items: readonly string[], last = 'and') => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`);
const plansOf = (feature: Feature) => `${list(FEATURES[feature].plans)} plan${FEATURES[feature].plans.length > 1 ? 's' : ''}`;

/** The scopes whose role reaches `role`: each one alone is enough. */
const scopesFor = (role: Role) => REST_SCOPES.filter(([, s]) => roleAtLeast(s.role, role)).map(([scope]) => scope);

/**
 * The plan and role facts of an operation, as extensions and as the sentence its description ends with. The key
 * scopes that reach it are an extension too: the scheme is http bearer, which has no OAuth scopes to list, so every
 * authenticated operation takes the document's `security` and says its scopes in `x-vigil-scopes`.
 */
function access(role: Role, feature: Feature | undefined): Json {
  const { label } = FEATURES[feature ?? 'config_api'];
  const needs = feature
    ? `Needs the ${feature} feature (${label === feature ? '' : `${label}; `}${plansOf(feature)})`
    : `Needs no feature beyond ${label} (${plansOf('config_api')})`;
  const scopes = scopesFor(role);
  return {
    'x-vigil-role': role,
    'x-vigil-scopes': scopes,
    ...(feature ? { 'x-vigil-feature': feature } : {}),
    sentence: `${needs}; role: ${role} (a key with ${list(scopes, 'or')}).`,
  };
}

function operationObject(fields: { id: string; tag: string; summary: string; what: string[]; role: Role; feature?: Feature }, rest: Json): Json {
  const { sentence, ...facts } = access(fields.role, fields.feature);
  return {
    operationId: fields.id,
    tags: [fields.tag],
    summary: fields.summary,
    description: [...fields.what, sentence as string].join(' '),
    ...facts,
    ...rest,
  };
}

const single = (row: Json, notices: boolean): Json => ({
  type: 'object',
  required: ['data', 'organization'],
  properties: {
    data: row,
    organization: ref('schemas', 'Organization'),
    ...(notices ? { notices: { type: 'array', items: ref('schemas', 'Notice'), description: 'present when something beside the answer needs saying' } } : {}),
  },
});

const jsonBody = (schema: Json, description: string, headers?: Json, examples?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema, ...(examples ? { examples } : {}) } },
});

/** What every step of a family's paths reads: the descriptor and the pieces its operations share. */
function familyContext(d: FamilyDescriptor) {
  const row = ref('schemas', d.name);
  const collection = d.kind === 'collection';
  const keyWords = d.naturalKey ? `natural key: ${list(d.naturalKey)}${d.naturalKeyWhile ? `, ${d.naturalKeyWhile.description}` : ''}` : '';
  const role = (op: OperationName) => d.roles?.[op] ?? DEFAULT_ROLES[op];
  return {
    d,
    row,
    collection,
    upsert: collection && Boolean(d.id?.upsert),
    notices: Boolean(d.positioned || Object.values(d.references ?? {}).some((r) => r.unknown === 'drop')),
    keyed: Boolean(d.naturalKey || d.naturalKeyWhile),
    /** an update can only collide on a natural key it can change */
    rekeyable: (d.naturalKey ?? []).some((f) => !isReadOnly(d.fields[f]!) && !d.createOnly?.includes(f)),
    keyWords,
    noun: collection ? `a ${d.name} row` : `the organization's ${d.name}`,
    examples: familyExamples(d),
    conflict: (why: string) => errorResponse(['conflict'], row, why),
    forbidden: (write: boolean) => errorResponse(forbiddenCodes(write, write && Boolean(d.userTokenFields?.length))),
    body: (suffix: string, bodyExamples?: Json) => ({ required: true, content: { 'application/json': { schema: ref('schemas', `${d.name}${suffix}`), ...(bodyExamples ? { examples: bodyExamples } : {}) } } }),
    writeErrors: { 400: ref('responses', 'bad_request'), 401: ref('responses', 'unauthorized'), 413: ref('responses', 'payload_too_large'), 415: ref('responses', 'unsupported_media_type'), 422: ref('responses', 'validation_failed') },
    op: (name: OperationName, summary: string, what: string[], rest: Json) =>
      operationObject({ id: `${name}_${d.name}`, tag: d.name, summary, what, role: role(name), feature: d.features?.[name] }, rest),
    etag: { ETag: ref('headers', 'ETag') },
    replayed: { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') },
    idParam: {
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: [
        (d.fields.id as unknown as Json | undefined)?.description ?? 'the row id, as the list answers it',
        d.id ? `: the values of ${list(d.id.from)} joined by "/", percent-encoded as %2F (a "/" sent as is is read the same way)` : '',
      ].join(''),
    } as Json,
  };
}

type FamilyContext = ReturnType<typeof familyContext>;

/** GET of the family path: one page of rows. */
function listOperation({ d, op, row, forbidden }: FamilyContext): Json {
  const order = d.order ? `, ordered by ${list(d.order.map((o) => `${o.field}${o.direction === 'desc' ? ' (descending)' : ''}`))}` : d.positioned ? ', in the public order' : ', oldest first';
  const limits = listLimits(d);
  return op('list', `List ${d.name}`, [
    `Answers the organization's ${d.name} rows${order}, one page at a time: \`limit\` rows (default ${limits.default}, at most ${limits.max}), ` +
      'then `next_cursor` (and a Link header) for the next page, until `next_cursor` is null. Rows created or deleted while paging never make a row skipped or repeated.',
    d.archive ? 'Archived rows are left out unless `include_archived=true`.' : '',
  ].filter(Boolean), {
    parameters: [...(d.archive ? [ref('parameters', 'IncludeArchived')] : []), ...pageParameters(limits)],
    responses: {
      200: jsonBody(
        { type: 'object', required: ['organization', 'data', 'next_cursor', 'truncated'], properties: { organization: ref('schemas', 'Organization'), data: { type: 'array', items: row }, ...pageMembers() } },
        `One page of the ${d.name} rows.`,
        { Link: LINK_HEADER },
      ),
      401: ref('responses', 'unauthorized'),
      403: forbidden(false),
      422: ref('responses', 'validation_failed'),
    },
  });
}

/** POST of the family path: a new row. */
function createOperation({ d, op, row, notices, keyed, keyWords, noun, examples, body, etag, replayed, writeErrors, forbidden, conflict }: FamilyContext): Json {
  return op('create', `Create ${noun}`, [
    'Answers 201 with the new row, its ETag and its Location.',
    keyed ? `A row that already matches the natural key (${keyWords}) answers 409 with the existing row; nothing is overwritten.` : '',
    d.positioned ? 'The new row is appended last in the public order.' : '',
  ].filter(Boolean), {
    parameters: [ref('parameters', 'IdempotencyKey')],
    requestBody: body('.create', examples.create?.requests),
    responses: {
      201: jsonBody(single(row, notices), `The new ${d.name} row.`, { ...etag, Location: ref('headers', 'Location'), ...replayed }, examples.create?.answer),
      ...writeErrors,
      403: forbidden(true),
      409: keyed ? conflict(`A row with the same ${keyWords} exists already; it is in \`data\`. Or: ${KEY_RUNNING}`) : errorResponse(['conflict'], undefined, KEY_RUNNING),
    },
  });
}

/** GET of the row (a singleton: of the family path). */
function readOperation({ d, op, row, collection, noun, examples, etag, forbidden }: FamilyContext): Json {
  return op('read', `Read ${noun}`, [
    collection ? (d.archive ? 'Archived rows read too.' : '') : 'One per organization, addressed without an id; it reads before anything is stored.',
    'The ETag header identifies the configuration the row holds now.',
  ].filter(Boolean), {
    responses: {
      200: jsonBody(single(row, false), `The ${d.name} row.`, etag, examples.read),
      401: ref('responses', 'unauthorized'),
      403: forbidden(false),
      ...(collection ? { 404: ref('responses', 'not_found') } : {}),
    },
  });
}

/** PUT of the row (a singleton: of the family path). */
function updateOperation({ d, op, row, collection, upsert, notices, rekeyable, keyWords, noun, examples, body, etag, writeErrors, forbidden, conflict }: FamilyContext): Json {
  return op('update', upsert ? `Update or create ${noun}` : `Update ${noun}`, [
    'Send only the fields to change; omitted fields keep their value.',
    collection ? (upsert ? 'An id that has no row yet creates one from the values the id is made of (200).' : 'An update of a missing row answers 404.') : '',
    d.archive ? 'An archived row is refused (409).' : '',
    rekeyable ? `A change that makes the row match another one's natural key (${keyWords}) answers 409 with that row.` : '',
    'With `If-Match`, a row that changed since answers 412 with the current row and nothing is written.',
  ].filter(Boolean), {
    parameters: [ref('parameters', 'IfMatch')],
    requestBody: body('.update', examples.update?.request),
    responses: {
      200: jsonBody(single(row, notices), `The ${d.name} row as stored now.`, etag, examples.update?.answer),
      ...writeErrors,
      403: forbidden(true),
      ...(collection && !upsert ? { 404: ref('responses', 'not_found') } : {}),
      ...(rekeyable || d.archive ? { 409: conflict([rekeyable ? 'Another row holds that natural key (it is in `data`).' : '', d.archive ? 'The row is archived (it is in `data`).' : ''].filter(Boolean).join(' ')) } : {}),
      412: upsert
        ? errorResponse(['precondition_failed'], { anyOf: [row, { type: 'null' }] }, 'The current row is in `data` (null when the id had no row yet).')
        : errorResponse(['precondition_failed'], row, 'The current row is in `data`.'),
    },
  });
}

/** DELETE of the row. */
function deleteOperation({ d, op, row, noun, forbidden }: FamilyContext): Json {
  return op('delete', d.archive ? `Archive ${noun}` : `Delete ${noun}`, [
    d.archive
      ? 'Delete archives: the row is kept and still reads, refuses updates, and leaves the default list; deleting it again changes nothing.'
      : 'Removes the row.',
    'Answers 204 with no body. With `If-Match`, a row that changed since answers 412 with the current row and nothing is deleted.',
  ], {
    parameters: [ref('parameters', 'IfMatch')],
    responses: {
      204: { description: 'Done; no body.' },
      401: ref('responses', 'unauthorized'),
      403: forbidden(true),
      404: ref('responses', 'not_found'),
      412: errorResponse(['precondition_failed'], row, 'The current row is in `data`.'),
    },
  });
}

/** POST /<family>/{id}/<action>: each action REST serves. */
function actionPaths({ d, row, examples, etag, replayed, writeErrors, forbidden, idParam }: FamilyContext): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const [name, action] of Object.entries(d.actions ?? {})) {
    if (!actionTransports(action).includes('rest')) continue;
    const what = [action.description, 'Answers the row as stored now; with `If-Match`, a row that changed since answers 412 and nothing is written.'];
    paths[`/${d.name}/{id}/${name}`] = {
      post: operationObject({ id: name, tag: d.name, summary: name, what, role: action.role, feature: action.feature ?? d.features?.update }, {
        parameters: [idParam, ref('parameters', 'IfMatch'), ref('parameters', 'IdempotencyKey')],
        requestBody: { required: true, content: { 'application/json': { schema: copy(action.input), examples: { request: { summary: 'A request', value: sampleBody(action.input as unknown as Json) } } } } },
        responses: {
          200: jsonBody(single(row, false), `The ${d.name} row as stored now.`, { ...etag, ...replayed }, examples.row), ...writeErrors, 403: forbidden(true), 404: ref('responses', 'not_found'),
          409: errorResponse(['conflict'], undefined, `The row is archived, or: ${KEY_RUNNING}`), 412: errorResponse(['precondition_failed'], row, 'The current row is in `data`.'),
        },
      }),
    };
  }
  return paths;
}

/** The operations REST serves for one family, keyed by path and method (the route table of config-api.ts): one step each. */
function familyPaths(d: FamilyDescriptor): Record<string, Json> {
  const c = familyContext(d);
  const has = (op: OperationName) => d.operations.includes(op);
  const familyPath: Json = {};
  const rowPath: Json = { parameters: [c.idParam] };
  const where = c.collection ? rowPath : familyPath;
  if (c.collection && has('list')) familyPath.get = listOperation(c);
  if (c.collection && has('create')) familyPath.post = createOperation(c);
  if (has('read')) where.get = readOperation(c);
  if (has('update')) where.put = updateOperation(c);
  if (c.collection && has('delete')) where.delete = deleteOperation(c);
  const methods = (item: Json) => Object.keys(item).filter((k) => k !== 'parameters').map((m) => m.toUpperCase());
  const paths: Record<string, Json> = {};
  for (const [path, item] of [[`/${d.name}`, familyPath], [`/${d.name}/{id}`, rowPath]] as const) {
    if (methods(item).length) paths[path] = { description: `Offers ${list(methods(item))}; any other method answers 405 method_not_allowed with an Allow header.`, ...item };
  }
  return { ...paths, ...actionPaths(c) };
}

const ACTION_CONFLICT = 'The row is in a state this action does not apply to; the message says which, `data` holds the row as it is.';

/** An object schema without one of its properties (the path names it). */
function withoutProperty(schema: Json, name: string): Json {
  const { [name]: _named, ...properties } = (schema.properties ?? {}) as Record<string, Json>;
  const required = ((schema.required ?? []) as string[]).filter((r) => r !== name);
  const { required: _all, ...rest } = schema;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

/** A domain operation REST serves: GET reads its input from the query string, POST from the body. */
function domainPath(operation: DomainOperation): Json {
  const rest = operation.rest!;
  const input = operation.input as unknown as { properties?: Record<string, Json>; required?: string[] };
  const answer = operation.answer;
  const content = answer?.contentType && answer.contentType !== 'application/json'
    ? { [answer.contentType]: { schema: answer.schema ? copy(answer.schema) : { type: 'string' } } }
    : { 'application/json': { schema: answer?.schema ? copy(answer.schema) : { type: 'object' } } };
  const get = rest.method === 'GET';
  const parameter = (name: string, where: 'query' | 'path') => {
    const { description, ...accepted } = copy(input.properties![name]!);
    return { name, in: where, required: where === 'path' || (input.required?.includes(name) ?? false), ...(description ? { description } : {}), schema: accepted };
  };
  // an action's body is the rest of its input: the row comes from the path
  const body = rest.param && !get ? withoutProperty(copy(operation.input) as unknown as Json, rest.param) : (copy(operation.input) as unknown as Json);
  const parameters: Json[] = [
    ...(rest.param ? [parameter(rest.param, 'path')] : []),
    ...(get ? Object.keys(input.properties ?? {}).filter((name) => name !== rest.param).map((name) => parameter(name, 'query')) : []),
  ];
  const write = operation.kind === 'write';
  const keyed = !get && takesIdempotencyKey(operation);
  if (keyed) parameters.push(ref('parameters', 'IdempotencyKey'));
  // what the operation may refuse with beyond the usual, unless documented already (the key's 409)
  const refusals = Object.fromEntries((answer?.refusals ?? []).map((code) => [ERROR_STATUS[code], errorResponse([code])]));
  const operationJson = operationObject(
    { id: operation.name, tag: rest.path, summary: `${operation.name[0]!.toUpperCase()}${operation.name.slice(1).replaceAll('_', ' ')}`, what: [operation.description], role: operation.role, feature: operation.feature },
    {
      ...(parameters.length ? { parameters } : {}),
      ...(get ? {} : { requestBody: { required: false, content: { 'application/json': { schema: body, examples: { request: { summary: 'A request', value: sampleBody(body) } } } } } }),
      responses: {
        200: {
          description: answer?.contentType ? `The answer, as ${answer.contentType}.` : 'The answer, as JSON.',
          content,
          ...(keyed ? { headers: { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } } : {}),
          ...(answersPage(answer?.schema as unknown as Json | undefined) ? { headers: { Link: LINK_HEADER } } : {}),
        },
        ...(get ? {} : { 400: ref('responses', 'bad_request'), 413: ref('responses', 'payload_too_large'), 415: ref('responses', 'unsupported_media_type') }),
        401: ref('responses', 'unauthorized'),
        403: errorResponse(forbiddenCodes(write, false)),
        ...refusals,
        ...(rest.param ? { 404: ref('responses', 'not_found') } : {}),
        // an action on a row may find it in a state the action does not apply to (its message says which)
        ...(keyed || (rest.action && !get) ? { 409: errorResponse(['conflict'], undefined, [rest.action && !get ? ACTION_CONFLICT : '', keyed ? KEY_RUNNING : ''].filter(Boolean).join(' ')) } : {}),
        422: ref('responses', 'validation_failed'),
      },
    },
  );
  return { [domainRestPath(operation)]: { description: `Offers ${rest.method}; any other method answers 405 method_not_allowed with an Allow header.`, [rest.method.toLowerCase()]: operationJson } };
}

/** The tag of the document and its page, which are no family's. */
export const REFERENCE_TAG = 'api_reference';

/** The document itself and its readable page: public, no credential. */
function documentationPaths(): Record<string, Json> {
  const publicOp = (id: string, summary: string, type: string, schema: Json) => ({
    operationId: id,
    tags: [REFERENCE_TAG],
    summary,
    description: `${summary} Generated from the resource families and operations this deployment runs, so it describes this version exactly.`,
    security: [],
    responses: { 200: { description: summary, content: { [type]: { schema } } } },
  });
  return {
    [DOCUMENT_PATH]: { get: publicOp('openapi_document', 'This OpenAPI document; no credential needed.', 'application/json', { type: 'object' }) },
    [DOCS_PATH]: { get: publicOp('api_reference_page', 'The same reference as a readable HTML page; no credential needed.', 'text/html', { type: 'string' }) },
  };
}

function introduction(): string {
  const scopes = REST_SCOPES.map(([scope, s]) => `\`${scope}\` acts as ${s.role}${s.role === 'viewer' ? ' (read only: a write answers 403 read_only_key; it cannot be combined with another scope)' : ' (read and write)'}`);
  return [
    `The configuration API reads and changes an organization's settings as resources; each resource family is a tag. It is part of the ${plansOf('config_api')}.`,
    '',
    `Authentication: every request carries \`Authorization: Bearer ${API_KEY_PREFIX}…\`, an organization API key. Scopes: ${scopes.join('; ')}. ` +
      'Personal access tokens are refused (403 personal_token_not_accepted), and agent-tool (`mcp:*`) keys work only at the agent-tool endpoint (403 forbidden).',
    '',
    'Rules for every resource: an update sends only the fields to change; update and delete accept `If-Match` with an ETag read earlier (412 with the current row when it changed; `*` skips the check); ' +
      'the ETag follows the configuration a caller can set, not routine activity; a write that matches an existing row\'s natural key answers 409 with that row; write-only fields (secrets) are never answered, ' +
      'a `*_set` flag says whether one is stored; a method a path does not offer answers 405 with an Allow header. Every failure answers `{ error, message }` (see the Error schema).',
    '',
    `Versioning: the version is in the path (${CONFIG_PREFIX}); this description is ${OPENAPI_VERSION}.`,
  ].join('\n');
}

export function openApiDocument(registry: Registry, domainOperations: readonly DomainOperation[], config: ServiceConfig): Json {
  const schemas: Record<string, Json> = sharedSchemas();
  const paths: Record<string, Json> = {};
  const tags: Json[] = [];
  // as this deployment publishes each family: fields whose values its configuration decides carry them as enum
  for (const d of registry.families.map((family) => withConfiguredValues(family, config))) {
    const derived = familySchemas(d);
    schemas[d.name] = derived.row;
    if (derived.create) schemas[`${d.name}.create`] = derived.create;
    if (derived.update) schemas[`${d.name}.update`] = derived.update;
    tags.push({ name: d.name, description: d.description });
    Object.assign(paths, familyPaths(d));
  }
  for (const operation of domainOperations) {
    if (!operation.rest) continue;
    // one tag per REST path: a list and its by-id read (`/alerts`, `/alerts/{id}`) share one
    if (!tags.some((tag) => tag.name === operation.rest!.path)) tags.push({ name: operation.rest.path, description: operation.description });
    Object.assign(paths, domainPath(operation));
  }
  const responses = sharedResponses();
  withRateLimit(paths, responses);
  Object.assign(paths, documentationPaths());
  tags.push({ name: REFERENCE_TAG, description: 'This reference, as an OpenAPI document and as a readable page.' });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil configuration API',
      version: OPENAPI_VERSION,
      description: introduction(),
      // a self-hosted service: whoever runs the deployment answers for it, at its own address
      contact: { name: 'The operator of this Vigil deployment', url: config.publicUrl },
    },
    servers: [{ url: `${config.publicUrl}${CONFIG_PREFIX}` }],
    security: [{ [SCHEME]: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        [SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${API_KEY_PREFIX}…`,
          description: `An organization API key (${API_KEY_PREFIX}…), shown once when it is made. ${REST_SCOPES.map(([scope, s]) => `${scope}: acts as ${s.role}`).join('; ')}. Each operation names the scopes that reach it in \`x-vigil-scopes\` and its description.`,
        },
      },
      schemas,
      responses,
      parameters: sharedParameters(),
      headers: sharedHeaders(),
    },
  };
}
