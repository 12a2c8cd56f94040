/**
 * `POST /webhooks/<source>/<token>` (and the card sub-paths `/<token>/<card>` and `/<token>/<card>/comments` of a
 * source that has them), and a source's fixed path with the token in the body (`tokenInBody`: the Events API's
 * `POST /v2/enqueue`, whose `routing_key` is the token): the steps every source shares, in this order, each a
 * function below.
 *
 * 1. `routeOf`: no `User-Agent` → 400 `user_agent_required`, before any other work; any method but POST (or the
 *    source's `methods`: GET too for heartbeat pings) → 405; an unknown source (or a sub-path on a source without
 *    cards or a name path) → the 404 below.
 * 2. `readBounded` (raw-body.ts): the raw bytes, up to the source's `bodyLimit`. On a fixed path (`tokenInBody`),
 *    first `addressLimited`: per client address (the webhook limit), 429 before a byte is read; then the token is
 *    scanned from the raw bytes where the source can (`scan`), so an unknown key is refused without parsing.
 * 3. `tokenLookup`: the token selects the organization with one hashed lookup, whatever else happens: unknown,
 *    rotated away (over 72 hours), revoked previous and disabled-organization tokens all answer the same 404
 *    status, body and headers. A body over the limit answers 413 whatever the token (`tooLarge`), so a 413 never
 *    confirms one. On a fixed path the token is read from the body, and a missing or unknown one gets the source's
 *    own refusal (the same for every token that selects nothing).
 * 4. `checkSignature` (signing.ts): the source's `signing`: with a saved secret every request must carry a valid
 *    signature; sources signed under an approved automatic runbook (the organization flag
 *    `automatic_runbook_approved`), and those `alwaysSigned` (chat), must be signed even without one. Otherwise
 *    401, counted apart from accepted requests (over that count: 429). A source whose signatures count once
 *    (`onceWithinMs`: chat) refuses a second use of one with 401 `replayed` (`replayOf`).
 * 5. `rateLimited`: per organization and source → 429 `rate_limited` with `Retry-After` (the first refusal of a
 *    window is logged, not each one). Counted after the signature, so unsigned requests never use up a signed
 *    sender's limit.
 * 6. `handle`: the source's handler.
 * Every request to a valid token is written to the delivery log (delivery-log/) with its status and outcome
 * (`recorder`). While the database cannot be reached, every source answers 503 `unavailable` with `Retry-After`
 * (nothing logged per request: the outage is logged once, engine/persistence/outage.ts).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Organization } from '../engine/auth/caller.ts';
import { organizationByWebhookToken } from '../engine/admin/organizations.ts';
import { hashToken } from '../engine/crypto.ts';
import { ApiError } from '../engine/errors.ts';
import { unstorableText } from '../engine/validation.ts';
import { clientOf } from '../engine/http/client-address.ts';
import type { Services } from '../engine/services.ts';
import { keptHeaders, keptPayload } from './delivery-log/scrub.ts';
import { deliveryLog, type DeliveryLog } from './delivery-log/writer.ts';
import type { HeaderGetter, WebhookAnswer, WebhookHandler, WebhookRequest } from '../domain/webhook-contract.ts';
import { DEFAULT_RATE_LIMIT, type RateLimit } from '../engine/rate-limit/limits.ts';
import { createLimiter, limiterStore, type StoreLimiter } from '../engine/rate-limit/store.ts';
import { closeAfterAnswer, jsonOf, readBounded, type RawBody } from './raw-body.ts';
import { checkSignature, secretQuery } from './signing.ts';
import { snsTopic } from './sns-topic.ts';
import { SOURCES, sourceAt } from './sources/index.ts';
import type { SourceOptions, WebhookSource } from './sources/source.ts';

export interface WebhookOptions extends SourceOptions {
  /** requests per organization and source in a window (default 600 a minute) */
  rateLimit?: RateLimit;
  /** PostgreSQL URL of the service's database */
  databaseUrl?: string;
  /**
   * Where rate-limit counts live: `memory` (the default; right for one instance), `postgres` (a table in
   * `databaseUrl` that every instance serving the database counts in; one write per request) or `redis` (keys in
   * `redisUrl` that every instance pointed at it counts in)
   */
  rateLimitStore?: 'memory' | 'postgres' | 'redis';
  /** the Redis server of the `redis` store (redis:// or rediss://; may hold a password, so never logged) */
  redisUrl?: string;
}

declare module '../engine/config.ts' {
  interface ServiceConfig {
    /**
     * the webhooks' rate limit and the store every rate limit counts in (`VIGIL_WEBHOOK_RATE_LIMIT`,
     * `VIGIL_WEBHOOK_RATE_LIMIT_STORE`, `VIGIL_REDIS_URL`), and the SNS client a test replaces; absent: the defaults
     */
    webhooks?: WebhookOptions;
  }
}

/** The one answer for every token that selects no organization (and for unknown sources). */
export const WEBHOOK_NOT_FOUND = { error: 'not_found', message: 'No webhook is served at this address.' } as const;

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

const notFound = (): Answer => ({ status: 404, body: { ...WEBHOOK_NOT_FOUND } });

/** What the routes share across requests. */
interface Endpoint {
  services: Services;
  limiter: StoreLimiter;
  /** requests per client address on a fixed path (`tokenInBody`), counted before the body is read */
  addresses: StoreLimiter;
  /** signatures accepted within their window (`Signing.onceWithinMs`), one point each: a second use is refused */
  replays: StoreLimiter;
  /** each source's handler, built once */
  handlers: ReadonlyMap<string, WebhookHandler>;
  /** per organization and source: until when rate-limit refusals go unlogged */
  refusalLogged: Map<string, number>;
  deliveries: DeliveryLog;
}

/** Writes one delivery log row for the request (nothing when no organization was found). */
type LogDelivery = (answer: Answer, outcome: string, detail?: string, payload?: unknown) => Promise<void>;

function reply(ctx: Context, answer: Answer): void {
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
  ctx.body = answer.body;
}

type Route = { answer: Answer } | { source: WebhookSource; token?: string; card?: string; name?: string; comments: boolean };

/** Step 1's refusals every route shares: no User-Agent; a method the source does not take (POST, or its `methods`). */
function refusedRequest(ctx: Context, source: WebhookSource | undefined): { answer: Answer } | null {
  if (!ctx.get('user-agent').trim()) {
    return { answer: { status: 400, body: { error: 'user_agent_required', message: 'Send a User-Agent header naming the sending system; requests without one are refused.' } } };
  }
  const methods = source?.methods ?? ['POST'];
  if (!(methods as readonly string[]).includes(ctx.method)) {
    const message = methods.length === 1 ? 'Webhooks take POST only.' : `This webhook takes ${methods.join(' or ')}.`;
    return { answer: { status: 405, body: { error: 'method_not_allowed', message, allowed: [...methods] }, headers: { Allow: methods.join(', ') } } };
  }
  return null;
}

/**
 * Step 1: the source and path parts, or the answer that ends the request before any work. On a source's fixed path
 * (`tokenInBody`), the token is read from the body once it is (step 3).
 */
function routeOf(ctx: Context, fixed?: WebhookSource): Route {
  const { source: segment, token, card } = ctx.params as { source: string; token: string; card?: string };
  const source = fixed ?? sourceAt(segment);
  const refused = refusedRequest(ctx, source);
  if (refused) return refused;
  if (fixed) return { source: fixed, comments: false };
  const comments = ctx.path.endsWith('/comments') && card !== undefined;
  if (!source || (card !== undefined && !source.cardPaths && !(source.namePath && !comments))) return { answer: notFound() };
  if (source.namePath) {
    // a heartbeat name PostgreSQL cannot hold (NUL, a lone surrogate) names nothing: the one 404, no query (a card
    // reference is a key or a uuid, or the board's own 404, so it never reaches a query either)
    if (card !== undefined && unstorableText(card)) return { answer: notFound() };
    return { source, token, name: card, comments: false };
  }
  return { source, token, card, comments };
}

type TokenLookup = Awaited<ReturnType<typeof organizationByWebhookToken>>;

/**
 * Step 3: the organization of a token, and the source's sealed signing secret, in one query; kept in the
 * per-process credential cache like API keys (operator changes and request_signing writes clear it; another
 * instance sees a change within `VIGIL_AUTH_CACHE_MS`). Tokens that select nothing are not kept, so every 404 costs
 * the same.
 */
async function tokenLookup(services: Services, token: string, source: WebhookSource): Promise<TokenLookup> {
  const key = `webhook:${source.segment}:${hashToken(token)}`;
  const cached = services.credentials.get(key) as { found: TokenLookup } | undefined;
  if (cached) return cached.found;
  const generation = services.credentials.generation;
  const found = await organizationByWebhookToken(services, token, source.signing ? secretQuery(services, source.segment, source.signing) : undefined);
  // a previous token's grace ends with the clock, not with a write: only current tokens are kept
  if (found?.current) services.credentials.set(key, { found }, generation);
  return found;
}

function headerGetter(ctx: Context): HeaderGetter {
  return (name) => {
    const value = ctx.req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/** The delivery log writer of one request: its status, outcome, size, kept headers and payload. */
function recorder(
  endpoint: Endpoint, request: { segment: string; keepsText?: boolean; organizationId?: string; receivedAt: Date; read: RawBody; header: HeaderGetter },
): LogDelivery {
  const { services, deliveries } = endpoint;
  const { segment: source, keepsText, organizationId, receivedAt, read, header } = request;
  return async (answer, outcome, detail, payload = keptPayload(read.raw, read.raw ? jsonOf(read.raw) : undefined, keepsText)) => {
    if (!organizationId) return;
    services.metrics.webhook(source, answer.status, outcome);
    try {
      await deliveries.record({
        organizationId, source, receivedAt, status: answer.status, outcome, detail, size: read.size, headers: keptHeaders(header), payload,
      });
    } catch (error) {
      // the error's name only: a database error's message can quote the payload's values; an outage is logged once
      if (!services.outage.noted(error)) services.log.error({ err: { name: (error as Error).name }, source }, 'webhook delivery not logged');
    }
  };
}

/** Step 3's 413: logged (without the payload) when the token is valid, answered whatever the token. */
async function tooLarge(ctx: Context, source: WebhookSource, log: LogDelivery): Promise<void> {
  const answer: Answer = {
    status: 413,
    body: { error: 'payload_too_large', message: `The body is larger than the ${source.bodyLimit} bytes ${source.segment} accepts.` },
    headers: { Connection: 'close' },
  };
  await log(answer, 'refused: too large', String(answer.body.message), null);
  closeAfterAnswer(ctx.req);
  reply(ctx, answer);
}

/**
 * Step 5: the 429 to answer, or null; a runaway sender must not turn every refusal into a write. `refused` counts
 * requests whose signature failed apart from accepted ones, so unsigned traffic cannot use up a sender's limit.
 */
async function rateLimited(endpoint: Endpoint, organization: Organization, source: WebhookSource, receivedAt: Date, log: LogDelivery, refused = false): Promise<Answer | null> {
  const key = `${organization.id}:${source.segment}${refused ? ':refused' : ''}`;
  const wait = await endpoint.limiter.consume(key);
  if (wait === null) return null;
  const answer: Answer = {
    status: 429,
    body: { error: 'rate_limited', message: `Too many requests to the ${source.segment} webhook; retry in ${wait} seconds.`, retry_after: wait },
    headers: { 'Retry-After': String(wait) },
  };
  // the first refusal of each window is logged
  if ((endpoint.refusalLogged.get(key) ?? 0) <= receivedAt.getTime()) {
    endpoint.refusalLogged.set(key, receivedAt.getTime() + wait * 1000);
    await log(answer, 'refused: rate limit', `${answer.body.message} Further refusals until then are not logged.`);
  }
  return answer;
}

/** Step 1b, on a fixed path only: the 429 for a client address over the limit, before the body is read. */
async function addressLimited(endpoint: Endpoint, ctx: Context, source: WebhookSource): Promise<Answer | null> {
  const wait = await endpoint.addresses.consume(`${source.segment}:${clientOf(ctx.ip)}`);
  if (wait === null) return null;
  closeAfterAnswer(ctx.req);
  return {
    status: 429,
    body: { error: 'rate_limited', message: `Too many requests from this address to ${source.segment}; retry in ${wait} seconds.`, retry_after: wait },
    headers: { 'Retry-After': String(wait), Connection: 'close' },
  };
}

/**
 * Step 6: the source's handler. A refusal it throws (ApiError) is answered and logged like any answer; the
 * database being away is 503 with Retry-After (senders retry) and nothing to log; anything else is logged as an
 * error and rethrown.
 */
async function handle(handler: WebhookHandler, request: WebhookRequest, log: LogDelivery): Promise<WebhookAnswer> {
  try {
    return await handler(request);
  } catch (error) {
    const unavailable = request.services.outage.unavailable(error);
    if (unavailable) throw unavailable;
    if (!(error instanceof ApiError)) {
      await log({ status: 500, body: {} }, 'error', 'the handler failed');
      throw error;
    }
    return { status: error.status, body: error.toBody(), headers: error.headers, outcome: `refused: ${error.code}`, detail: error.message };
  }
}

async function serve(endpoint: Endpoint, ctx: Context, fixed?: WebhookSource): Promise<void> {
  const { services } = endpoint;
  const route = routeOf(ctx, fixed);
  if ('answer' in route) return reply(ctx, route.answer);
  const { source, card, name, comments } = route;

  const receivedAt = services.clock.now();
  // the fixed path carries its token in the body: counted per client address before a byte is read or parsed, so
  // unknown keys and large bodies are limited too
  if (fixed?.tokenInBody) {
    const limited = await addressLimited(endpoint, ctx, source);
    if (limited) return reply(ctx, limited);
  }
  const read = await readBounded(ctx.req, source.bodyLimit);
  const scanned = route.token === undefined && read.raw !== null ? source.tokenInBody?.scan?.(read.raw) : undefined;
  const token = route.token ?? scanned ?? (read.raw === null ? undefined : source.tokenInBody?.token(jsonOf(read.raw)));
  const found = token === undefined ? null : await tokenLookup(services, token, source);
  const header = headerGetter(ctx);
  const log = recorder(endpoint, { segment: source.segment, keepsText: source.keepsText, organizationId: found?.organization.id, receivedAt, read, header });
  if (read.raw === null) return tooLarge(ctx, source, log);
  // the fixed path answers as its product does; either way, nothing tells an unknown token from a revoked one
  if (!found) return reply(ctx, fixed?.tokenInBody ? fixed.tokenInBody.refusal(token !== undefined) : notFound());
  const { organization } = found;
  const raw = read.raw;
  // parsed at most once, and only when needed (never for a refused signature)
  let parsed: { body: unknown } | undefined;
  const bodyOf = () => (parsed ??= { body: jsonOf(raw) }).body;
  // a scanned token must be the one the parsed body carries (the scan saw one occurrence, but not where it sits)
  if (scanned !== undefined && fixed?.tokenInBody && fixed.tokenInBody.token(bodyOf()) !== scanned) {
    return reply(ctx, fixed.tokenInBody.refusal(false));
  }

  const { refusal, signed } = checkSignature(services, organization, source.segment, source.signing, found.also, raw, header);
  if (refusal) {
    const limitedRefusals = await rateLimited(endpoint, organization, source, receivedAt, log, true);
    if (limitedRefusals) return reply(ctx, limitedRefusals);
    await log(refusal, 'refused: signature', refusal.body.message);
    return reply(ctx, refusal);
  }
  const replayed = signed ? await replayOf(endpoint, organization, source, header) : null;
  if (replayed) {
    await log(replayed, 'refused: replayed', String(replayed.body.message));
    return reply(ctx, replayed);
  }

  const limited = await rateLimited(endpoint, organization, source, receivedAt, log);
  if (limited) return reply(ctx, limited);

  const body = bodyOf();
  const answer = await handle(endpoint.handlers.get(source.segment)!, { services, organization, source: source.segment, raw, body, header, card, name, comments, receivedAt, signed }, log);
  await log(answer, answer.outcome, answer.detail, keptPayload(raw, body, source.keepsText));
  reply(ctx, answer);
  // after the answer is written: the sender's own deadline (chat's 3 s) never waits for it
  if (answer.afterAnswer) ctx.res.once('close', () => void answer.afterAnswer!().catch(() => undefined));
}

/**
 * Step 4b: a signature a source accepts only once (`Signing.onceWithinMs`) that was already used: 401 `replayed`.
 * Remembered by its hash in the replay store, which every instance sharing the database (or Redis) reads.
 */
async function replayOf(endpoint: Endpoint, organization: Organization, source: WebhookSource, header: HeaderGetter): Promise<Answer | null> {
  const signing = source.signing;
  const value = signing?.onceWithinMs ? header(signing.headers[0]!) : undefined;
  if (!value) return null;
  const seen = await endpoint.replays.consume(`${organization.id}:${source.segment}:${hashToken(value)}`);
  if (seen === null) return null;
  const message = `This ${source.segment} request was already accepted once; a signed request is accepted only once.`;
  return { status: 401, body: { error: 'replayed', message } };
}

export function webhookRoutes(services: Services, options: WebhookOptions = {}): Router {
  const limiter = createLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, limiterStore(options), { log: services.log });
  services.onClose(() => limiter.close());
  // each accepted signature counts once for as long as it could be accepted; kept where every instance sees it:
  // Redis when the limits live there, else the database when it is PostgreSQL, else (PGlite: one instance) memory
  const addresses = createLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, limiterStore(options), { keyPrefix: 'vigil_webhook_addresses', log: services.log });
  services.onClose(() => addresses.close());
  const replayWindow = Math.max(1, ...SOURCES.map((s) => Math.ceil((s.signing?.onceWithinMs ?? 0) / 1000)));
  const replayStore = limiterStore({ ...options, rateLimitStore: options.rateLimitStore === 'redis' ? 'redis' : 'postgres' });
  const replays = createLimiter({ points: 1, durationSeconds: replayWindow }, replayStore, { keyPrefix: 'vigil_signatures', log: services.log });
  services.onClose(() => replays.close());
  const sourceOptions: SourceOptions = { ...options, snsTopic: snsTopic(options.snsHttp) };
  const endpoint: Endpoint = {
    services,
    limiter,
    addresses,
    replays,
    handlers: new Map(SOURCES.map((source) => [source.segment, source.handler(sourceOptions)])),
    refusalLogged: new Map(),
    deliveries: deliveryLog(services),
  };
  const router = new Router();
  const route = (ctx: Context) => serve(endpoint, ctx);
  router.all('/webhooks/:source/:token', route);
  router.all('/webhooks/:source/:token/:card', route);
  router.all('/webhooks/:source/:token/:card/comments', route);
  for (const source of SOURCES) {
    if (source.tokenInBody) router.all(source.tokenInBody.path, (ctx: Context) => serve(endpoint, ctx, source));
  }
  return router;
}
