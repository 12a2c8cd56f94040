/**
 * The REST transport of the configuration API: authenticate, translate the path and method into an
 * operation, translate the result back. One table maps (method, id present, kind) to an operation.
 */
import type { Context, Next } from 'koa';
import { authenticateApiKey, bearerToken } from '../auth/authenticate.ts';
import { API_KEY_PREFIX, PERSONAL_TOKEN_PREFIX } from '../auth/credentials.ts';
import { authenticatePersonalToken, ORGANIZATION_HEADER } from '../auth/personal-token.ts';
import { publicOrganization, type Caller } from '../auth/caller.ts';
import { actionTransports, type FamilyDescriptor, type OperationName } from '../descriptor.ts';
import { ApiError } from '../errors.ts';
import { execute, type OperationResult, type Services } from '../operations/index.ts';
import { domainRoute, executeDomain } from '../operations/domain.ts';
import type { DomainOperation } from '../services.ts';
import { executeAction } from '../operations/action.ts';
import { listAnswer } from '../operations/page.ts';
import { linkNext, pageQuery } from './page-links.ts';
import { countRequest } from './rate-limit.ts';
import { toCsv } from './csv.ts';
import type { TSchema } from 'typebox';

export const CONFIG_PREFIX = '/api/v1/config';
/** The person's own surface: families with `ownRows` (and the operations on their rows), owner fixed to the token's user. */
export const ME_PREFIX = '/api/v1/me';

/** (method, has id) → operation; a singleton is addressed without an id. */
const ROUTES: Record<string, Partial<Record<'family' | 'row', OperationName>>> = {
  GET: { family: 'list', row: 'read' },
  POST: { family: 'create' },
  PUT: { row: 'update' },
  DELETE: { row: 'delete' },
};

function operationFor(method: string, family: FamilyDescriptor | undefined, id: string | undefined): OperationName {
  if (family?.kind === 'singleton') {
    if (id !== undefined) throw new ApiError('not_found', `${family.name} is one setting per organization; address it without an id.`);
    const op = ROUTES[method]?.row ?? ROUTES[method]?.family;
    if (op) return op === 'list' ? 'read' : op;
  } else {
    const op = ROUTES[method]?.[id === undefined ? 'family' : 'row'];
    if (op) return op;
  }
  const allowed = Object.keys(ROUTES).filter((m) => ROUTES[m]![id === undefined ? 'family' : 'row']);
  throw new ApiError('method_not_allowed', `This method is not allowed here; use ${allowed.join(' or ')}.`, { headers: { Allow: allowed.join(', ') }, extra: { allowed } });
}

function parsePath(path: string, prefix: string): { family: string; id?: string } {
  const segments = path.slice(prefix.length).split('/').filter(Boolean);
  const decode = (s: string) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      throw new ApiError('bad_request', 'The path holds a malformed percent-encoding.');
    }
    if (decoded.includes('\u0000')) throw new ApiError('not_found', 'No row has an id with a NUL character.');
    return decoded;
  };
  return { family: decode(segments[0] ?? ''), id: segments.length > 1 ? segments.slice(1).map(decode).join('/') : undefined };
}

/** `POST /<family>/{id}/<action>` names an action REST serves (declared `transports: ['rest', …]`). */
function restAction(method: string, family: FamilyDescriptor | undefined, id: string | undefined): { name: string; id: string } | undefined {
  if (method !== 'POST' || !family || id === undefined) return undefined;
  const cut = id.lastIndexOf('/');
  if (cut <= 0) return undefined;
  const name = id.slice(cut + 1);
  const action = Object.hasOwn(family.actions ?? {}, name) ? family.actions![name] : undefined;
  return action && actionTransports(action).includes('rest') ? { name, id: id.slice(0, cut) } : undefined;
}

/** The `Idempotency-Key` header as sent (undefined when absent; operations that take none ignore it). */
const idempotencyKey = (ctx: Context) => ctx.headers['idempotency-key'] as string | undefined;

/** A replayed answer says so (the IETF draft's and Stripe's header). */
function markReplay(ctx: Context, result: { replayed?: true }): void {
  if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
}

function render(ctx: Context, services: Services, caller: Caller, family: string, result: OperationResult, prefix: string): void {
  ctx.status = result.status;
  markReplay(ctx, result);
  if (result.etag) ctx.set('ETag', result.etag);
  if (result.status === 201 && result.id) ctx.set('Location', `${services.config.publicUrl}${prefix}/${family}/${encodeURIComponent(result.id)}`);
  const organization = publicOrganization(caller.organization);
  if (result.list) {
    ctx.body = { organization, ...listAnswer(result.list) };
    linkNext(ctx, services.config.publicUrl, result.list.next_cursor);
  } else if (result.data) ctx.body = { data: result.data, organization, ...(result.notices ? { notices: result.notices } : {}) };
}

/** Query strings are text: numbers and booleans are read as the operation's input schema declares them. */
function queryInput(schema: TSchema, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const properties = ((schema as unknown as { properties?: Record<string, { type?: string }> }).properties ?? {});
  const input: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const type = Object.hasOwn(properties, key) ? properties[key]!.type : undefined;
    if ((type === 'integer' || type === 'number') && value !== undefined && value.trim() !== '' && !Number.isNaN(Number(value))) input[key] = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) input[key] = value === 'true';
    else input[key] = value;
  }
  return input;
}

async function runDomain(ctx: Context, services: Services, caller: Caller, operation: DomainOperation, segment?: string): Promise<void> {
  if (ctx.method !== operation.rest!.method) {
    throw new ApiError('method_not_allowed', `This method is not allowed here; use ${operation.rest!.method}.`, { headers: { Allow: operation.rest!.method } });
  }
  let input = operation.rest!.method === 'GET' ? queryInput(operation.input, ctx.query) : (ctx.request as unknown as { body?: unknown }).body ?? {};
  if (operation.rest!.param && segment !== undefined && input && typeof input === 'object') input = { ...input, [operation.rest!.param]: segment };
  const result = await executeDomain(services, caller, operation, input, idempotencyKey(ctx));
  markReplay(ctx, result);
  if ('json' in result && operation.csv && ctx.accepts('application/json', 'text/csv') === 'text/csv') {
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = toCsv(operation.csv(result.json));
  } else if ('json' in result) {
    ctx.body = result.json;
    linkNext(ctx, services.config.publicUrl, result.json.next_cursor);
  } else {
    ctx.type = result.contentType;
    ctx.body = result.text;
  }
}

/** One request to a family or an operation under `prefix`, for a caller already known. */
async function serve(ctx: Context, services: Services, caller: Caller, prefix: string, served: (family: string) => boolean): Promise<void> {
  const { family, id } = parsePath(ctx.path, prefix);
  const domain = domainRoute(services.domain, family, id);
  if (domain && served(family)) return runDomain(ctx, services, caller, domain.operation, domain.segment);
  const descriptor = served(family) ? services.registry.get(family) : undefined;
  const action = restAction(ctx.method, descriptor, id);
  if (action) {
    const body = (ctx.request as unknown as { body?: unknown }).body;
    const result = await executeAction(services, caller, { family, action: action.name, id: action.id, body: body ?? {}, ifMatch: ctx.get('if-match') || undefined, idempotencyKey: idempotencyKey(ctx) });
    return render(ctx, services, caller, family, result, prefix);
  }
  if (!served(family)) throw new ApiError('not_found', `Nothing is served at ${prefix}/${family}.`);
  const op = operationFor(ctx.method, descriptor, id);
  const body = (ctx.request as unknown as { body?: unknown }).body;
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  const result = await execute(services, caller, {
    family,
    op,
    id,
    body: op === 'create' || op === 'update' ? (hasBody ? body : {}) : undefined,
    ifMatch: ctx.get('if-match') || undefined,
    includeArchived: ctx.query.include_archived === 'true',
    ...(op === 'list' ? pageQuery(ctx) : {}),
    idempotencyKey: idempotencyKey(ctx),
  });
  render(ctx, services, caller, family, result, prefix);
}

export function configApi(services: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== CONFIG_PREFIX && !ctx.path.startsWith(`${CONFIG_PREFIX}/`)) return next();
    const caller = await authenticateApiKey(services.db, services.credentials, ctx.get('authorization'), 'rest', 'config_api');
    const limited = await countRequest(ctx, services.rateLimit, caller);
    if (limited) throw limited;
    return serve(ctx, services, caller, CONFIG_PREFIX, () => true);
  };
}

/**
 * `/api/v1/me/<family>[/<id>[/<action>]]`: a person's own rows of every family with `ownRows` (contact methods,
 * notification rules, their overrides), with a personal access token only (an organization key names no person).
 * The caller sees and writes only rows naming them (`ownRowsOnly`), whatever their role: another person's row
 * answers 404. The same operations as the configuration API and the agent-tool endpoint; on every plan.
 */
export function meApi(services: Services) {
  const own = new Set(services.registry.families.filter((d) => d.ownRows).map((d) => d.name));
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== ME_PREFIX && !ctx.path.startsWith(`${ME_PREFIX}/`)) return next();
    const token = bearerToken(ctx.get('authorization'));
    if (!token.startsWith(PERSONAL_TOKEN_PREFIX)) {
      if (token.startsWith(API_KEY_PREFIX)) throw new ApiError('user_token_required', `${ME_PREFIX} is a person's own surface: send a personal access token; an organization key names no person.`);
      throw new ApiError('unauthorized', 'Send a valid credential as "Authorization: Bearer <token>"; this one is missing, unknown or revoked.', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const person = await authenticatePersonalToken(services.db, token, ctx.get(ORGANIZATION_HEADER) || undefined, 'rest', null, services.clock.now());
    const caller: Caller = { ...person, ownRowsOnly: true };
    const limited = await countRequest(ctx, services.rateLimit, caller);
    if (limited) throw limited;
    return serve(ctx, services, caller, ME_PREFIX, (family) => own.has(family));
  };
}
