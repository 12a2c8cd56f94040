/**
 * The parts of the OpenAPI document every operation shares: the error body with its closed codes, the
 * error responses by status, the headers (ETag, Location, If-Match) and the organization every answer names.
 */
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { FEATURES, PLANS } from '../plans.ts';
import type { Json } from './openapi-schemas.ts';

/** What each error code means to a caller; typed by the code list, so a new code cannot go undocumented. */
export const CODE_MEANING: Record<ErrorCode, string> = {
  bad_request: 'the body is not valid JSON, or the path holds a malformed percent-encoding',
  unauthorized: 'no credential, or an unknown or revoked one',
  forbidden: "the credential's role is too low for the operation, or the key's scopes belong to the agent-tool endpoint",
  plan_required: "the organization's plan does not include the configuration API or the operation's feature (`feature` names it)",
  read_only_key: 'a write with an api:config_read key',
  personal_token_not_accepted: 'a personal access token: the configuration API takes organization API keys only',
  user_token_required: 'the body names a field that only a user (a personal access token) may change',
  organization_disabled: 'the organization is disabled: its keys do not work',
  not_found: 'no such row in this organization (an id of another organization reads the same), or nothing is served at that path',
  method_not_allowed: 'the path exists, but not with this method: `allowed` and the Allow header name the methods that do',
  conflict: 'a row already matches the natural key (the existing row is in `data`), the row is archived, or it is in a state the action does not apply to; nothing was written',
  precondition_failed: '`If-Match` does not match the current ETag (the current row is in `data`), or names a row that does not exist (`data` null); nothing was written',
  payload_too_large: 'the body is larger than the service accepts',
  unsupported_media_type: 'a body that is not application/json',
  validation_failed: '`errors` holds one { field, message } per refused field, unknown and read-only fields included; nothing was written',
  rate_limited: 'too many requests: retry after the seconds in Retry-After',
  internal_error: 'a failure on the service side; nothing the caller sent was at fault, and nothing was written',
  unavailable: 'the service cannot reach its database for now: retry after the seconds in Retry-After (and `retry_after`)',
};

export const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

export function sharedSchemas(): Record<string, Json> {
  const fieldError = {
    type: 'object',
    required: ['field', 'message'],
    properties: {
      field: { type: 'string', description: 'the refused field, with a path into nested values such as `log_groups[0]` or `metric_selectors[0].metric_name`' },
      message: { type: 'string', description: 'what the field must be; it never repeats the value sent' },
    },
  };
  return {
    Organization: {
      type: 'object',
      description: 'The organization the credential acts for.',
      required: ['id', 'name', 'plan'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string', enum: [...PLANS] } },
    },
    FieldError: { ...fieldError, description: 'One refused field.' },
    Notice: { ...fieldError, description: 'Something the caller should know beside a successful answer (an id that was not linked, a move that moved nothing).' },
    Error: {
      type: 'object',
      description: 'The body of every failure. Match on `error` (a closed list of codes) and on `errors[].field`, not on the wording of `message`.',
      required: ['error', 'message'],
      properties: {
        error: {
          type: 'string',
          enum: Object.keys(ERROR_STATUS),
          description: (Object.keys(ERROR_STATUS) as ErrorCode[]).map((c) => `\`${c}\` (${ERROR_STATUS[c]}): ${CODE_MEANING[c]}`).join('; '),
        },
        message: { type: 'string', description: 'a sentence saying what to change' },
        errors: { type: 'array', items: ref('schemas', 'FieldError'), description: 'with validation_failed and user_token_required: one entry per refused field' },
        data: { description: 'with conflict: the existing row; with precondition_failed: the current row' },
        allowed: { type: 'array', items: { type: 'string' }, description: 'with method_not_allowed: the methods the path offers' },
        feature: { type: 'string', enum: Object.keys(FEATURES), description: 'with plan_required: the missing feature' },
        retry_after: { type: 'integer', description: 'with unavailable and rate_limited: the seconds to wait before retrying, as in Retry-After' },
      },
    },
  };
}

export function sharedHeaders(): Record<string, Json> {
  return {
    ETag: {
      description: "Identifies the row's current configuration (what a caller can set; routine activity does not change it). Send it in `If-Match` to write only that version.",
      schema: { type: 'string' },
    },
    Location: { description: 'The URL of the new row.', schema: { type: 'string', format: 'uri' } },
    'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string' } },
    'RateLimit-Policy': {
      description: 'The per-credential request limit (IETF draft-ietf-httpapi-ratelimit-headers): `"default";q=<requests>;w=<window in seconds>`. Absent when the deployment turned the limit off.',
      schema: { type: 'string', example: '"default";q=600;w=60' },
    },
    RateLimit: {
      description: "What is left of this credential's window: `\"default\";r=<requests remaining>;t=<seconds until the window resets>`. Absent when the limit is off.",
      schema: { type: 'string', example: '"default";r=599;t=60' },
    },
    'Retry-After': { description: 'The seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
    'Idempotent-Replayed': { description: '`true` when the answer is the stored answer of an earlier request with the same `Idempotency-Key`; absent otherwise.', schema: { type: 'string', enum: ['true'] } },
  };
}

export function sharedParameters(): Record<string, Json> {
  return {
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'An ETag read earlier, with or without its quotes: if the row changed since, the answer is 412 with the current row and nothing is written. `*` asks only that the row exists (412 when it does not); without the header the write goes through unchecked.',
      schema: { type: 'string' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A key of your choosing (a UUID; 1 to 255 printable ASCII characters) that makes a retry safe. Repeated within 24 hours with the same ' +
        'request (operation, path and body), the first successful answer comes back with `Idempotent-Replayed: true` and nothing is done again; ' +
        'with another request it is 422 naming `Idempotency-Key`; while the first is still running it is 409. A refused request keeps no key.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    },
    IncludeArchived: {
      name: 'include_archived',
      in: 'query',
      required: false,
      description: 'true lists archived rows as well.',
      schema: { type: 'boolean', default: false },
    },
  };
}

/** An error answer whose `error` is one of `codes`, optionally with `data` narrowed to a row schema. */
export function errorResponse(codes: readonly ErrorCode[], data?: Json, lead?: string): Json {
  const schema: Json = { allOf: [ref('schemas', 'Error')], properties: { error: { enum: [...codes] }, ...(data ? { data } : {}) } };
  const description = [lead, ...codes.map((c) => `\`${c}\`: ${CODE_MEANING[c]}.`)].filter(Boolean).join(' ');
  return { description, content: { 'application/json': { schema } } };
}

/** The 409 of a repeat while the request that first sent its Idempotency-Key still runs. */
export const KEY_RUNNING = 'A request with the same `Idempotency-Key` is still running: retry later to get its answer (`Retry-After`).';

/** Error responses that read the same for every operation, kept once in components. */
export function sharedResponses(): Record<string, Json> {
  const unauthorized = errorResponse(['unauthorized']);
  unauthorized.headers = { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') };
  return {
    unauthorized,
    bad_request: errorResponse(['bad_request']),
    not_found: errorResponse(['not_found']),
    payload_too_large: errorResponse(['payload_too_large']),
    unsupported_media_type: errorResponse(['unsupported_media_type']),
    validation_failed: errorResponse(['validation_failed']),
    rate_limited: { ...errorResponse(['rate_limited']), headers: { 'Retry-After': ref('headers', 'Retry-After') } },
  };
}

/**
 * Every operation that authenticates is rate limited per credential: it may answer 429, and each of its answers but
 * the 401 (a request not counted) carries the RateLimit fields. Applied once to the generated paths, shared responses
 * included, so no operation can miss them.
 */
export function withRateLimit(paths: Record<string, Json>, responses: Record<string, Json>): void {
  const fields = { 'RateLimit-Policy': ref('headers', 'RateLimit-Policy'), RateLimit: ref('headers', 'RateLimit') };
  const addFields = (response: Json) => {
    response.headers = { ...(response.headers ?? {}), ...fields };
  };
  for (const [name, response] of Object.entries(responses)) if (name !== 'unauthorized') addFields(response);
  for (const path of Object.values(paths)) {
    // a path item also holds its shared `parameters`: only operations have responses
    for (const operation of Object.values(path) as { responses?: Record<string, Json> }[]) {
      if (!operation.responses) continue;
      operation.responses[429] = ref('responses', 'rate_limited');
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status !== '401' && !response.$ref) addFields(response);
      }
    }
  }
}

/** The 403 codes an operation can answer: writes add read-only keys, user-only fields add user_token_required. */
export function forbiddenCodes(write: boolean, userFields: boolean): ErrorCode[] {
  const codes: ErrorCode[] = ['plan_required', 'forbidden', 'personal_token_not_accepted', 'organization_disabled'];
  if (write) codes.push('read_only_key');
  if (userFields) codes.push('user_token_required');
  return codes;
}
