/**
 * `POST /webhooks/<source>/<token>` (and the tickets sub-paths `/<token>/<card>` and `/<token>/<card>/comments`):
 * the machinery every source shares, in this order.
 *
 * 1. No `User-Agent` → 400 `user_agent_required`, before any other work.
 * 2. Any method but POST → 405; an unknown source (or a sub-path on a source without cards) → the 404 below.
 * 3. The body is read as raw bytes (signatures are computed over them; this router is mounted before the JSON
 *    body parser), up to the source's limit (`limits.ts`): a larger `Content-Length` is not read at all, a
 *    chunked body is cut off at the limit. Either answers 413 whatever the token, so a 413 never confirms one.
 * 4. The token selects the organization with one hashed lookup: unknown, rotated away (over 72 hours), revoked
 *    previous and disabled-organization tokens all answer the same 404 status, body and headers.
 * 5. Rate limit per organization and source → 429 `rate_limited` with `Retry-After` (the first refusal of a window
 *    is logged, not each one).
 * 6. Signature (`signing.ts`): with a saved, enabled secret every request must carry a valid signature; the
 *    dashboard, pager and monitoring sources must be signed once the operator set the organization flag
 *    `automatic_runbook_approved` (an approved runbook that runs automatically). Otherwise 401. A source whose
 *    secret is kept elsewhere (`options.signatures`: the trackers' secrets on ticket_integrations) is checked by
 *    its own `SignatureCheck` in the same place.
 * 7. The source's handler (a map handed in); without one: 200 `{ status: "ok", processed: 0, total: 0 }`.
 * Every request to a valid token is written to the delivery log (`deliveries.ts`) with its status and outcome.
 * While the database cannot be reached, every source answers 503 `unavailable` with `Retry-After` (nothing logged
 * per request: the outage is logged once, engine/persistence/outage.ts).
 */
import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Organization } from '../engine/auth/caller.ts';
import { organizationByWebhookToken } from '../engine/admin/organizations.ts';
import { hashToken } from '../engine/crypto.ts';
import { ApiError } from '../engine/errors.ts';
import type { Services } from '../engine/operations/types.ts';
import { tableName } from '../engine/persistence/entities.ts';
import { deliveryLog, keptHeaders, keptPayload } from './deliveries.ts';
import type { SignatureCheck, SignatureChecks, WebhookAnswer, WebhookHandlers } from './handlers.ts';
import { BODY_LIMITS, DEFAULT_RATE_LIMIT, SOURCES_WITH_CARD_PATHS, type RateLimit, type WebhookSource } from './limits.ts';
import { createLimiter, limiterStore } from './rate-limit.ts';
import { isSignable, RUNBOOK_SIGNED_SOURCES, SIGNING_SCHEMES, signatureHeaders, verifySignature } from './signing.ts';
import { WEBHOOK_SOURCES } from './sources.ts';
import requestSigning from '../resources/request_signing.ts';

export interface WebhookOptions {
  /** the sources' handlers; a source without one accepts and processes nothing */
  handlers?: WebhookHandlers;
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
  /** sources whose signing secret is kept elsewhere than request_signing, and how to check them */
  signatures?: SignatureChecks;
}

/** The one answer for every token that selects no organization (and for unknown sources). */
export const WEBHOOK_NOT_FOUND = { error: 'not_found', message: 'No webhook is served at this address.' } as const;


type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

function reply(ctx: Context, answer: Answer): void {
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
  ctx.body = answer.body;
}

/** Reads the body up to `limit` bytes; past it, stops reading and says so. */
function readRaw(req: IncomingMessage, limit: number): Promise<{ raw: Buffer | null; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const settle = (result: { raw: Buffer | null; size: number }) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle({ raw: null, size });
      } else chunks.push(chunk);
    };
    const onEnd = () => settle({ raw: Buffer.concat(chunks), size });
    const onError = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(Object.assign(error, { status: 400 }));
    };
    const onClose = () => {
      if (!settled && !req.complete) onError(new Error('The request was aborted.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * After a 413 the rest of the body is not read into memory, and the connection is closed. Closing a socket
 * while the sender is still writing makes the peer's kernel reset the connection, and many clients then lose
 * the answer; so, like a web server's lingering close, the write side is closed first and up to 1 MiB more is
 * discarded for at most 2 seconds before the socket is destroyed.
 */
const LINGER_BYTES = 1024 * 1024;
const LINGER_MS = 2000;

function closeAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket;
  let discarded = 0;
  const stop = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Node closes a `Connection: close` socket through destroySoon once the answer is written: half-close instead
  socket.destroySoon = function (this: typeof socket) {
    if (this.writable) this.end();
  };
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) stop();
  });
  req.once('end', stop);
  req.resume();
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The source's sealed signing secret (when saved and enabled), read in the token lookup's round trip. */
function signingSecretQuery(services: Services, source: WebhookSource, custom?: SignatureCheck): { sql: string; params: unknown[] } | undefined {
  if (custom) return custom.secretQuery(services);
  const family = services.registry.get(requestSigning.name);
  if (!family || !isSignable(source)) return undefined;
  return {
    sql: `select s.secret from "${tableName(family)}" s where s.organization_id = o.id and s.source = ? and s.enabled is not false`,
    params: [source],
  };
}

type TokenLookup = Awaited<ReturnType<typeof organizationByWebhookToken>>;

/**
 * The organization of a token, and the source's sealed signing secret, in one query; kept in the per-process
 * credential cache like API keys (operator changes and request_signing writes clear it; another instance sees a
 * change within `VIGIL_AUTH_CACHE_MS`). Tokens that select nothing are not kept, so every 404 costs the same.
 */
async function tokenLookup(services: Services, token: string, source: WebhookSource, custom?: SignatureCheck): Promise<TokenLookup> {
  const key = `webhook:${source}:${hashToken(token)}`;
  const cached = services.credentials.get(key) as { found: TokenLookup } | undefined;
  if (cached) return cached.found;
  const generation = services.credentials.generation;
  const found = await organizationByWebhookToken(services, token, signingSecretQuery(services, source, custom));
  // a previous token's grace ends with the clock, not with a write: only current tokens are kept
  if (found?.current) services.credentials.set(key, { found }, generation);
  return found;
}

/** null when the request may go on; otherwise the 401 to answer. */
function checkSignature(
  services: Services,
  sealedSecret: unknown,
  organization: Organization,
  source: WebhookSource,
  raw: Buffer,
  header: (name: string) => string | undefined,
  custom?: SignatureCheck,
): { refusal: Answer | null; signed: boolean } {
  if (custom) return checkCustom(services, sealedSecret, source, raw, header, custom);
  if (!isSignable(source)) return { refusal: null, signed: false };
  const secret = typeof sealedSecret === 'string' ? services.secrets.open(sealedSecret) : null;
  const runbook = RUNBOOK_SIGNED_SOURCES.includes(source) && organization.flags.automatic_runbook_approved === true;
  const headers = signatureHeaders(source).join(' or ');
  if (secret !== null) {
    const verdict = verifySignature(source, raw, secret, header, services.clock.now());
    if (verdict === 'valid') return { refusal: null, signed: true };
    const message =
      verdict === 'missing'
        ? `A signing secret is saved for ${source}, so every request must be signed (${SIGNING_SCHEMES[source].scheme}, in ${headers}); this one is not.`
        : `The signature in ${headers} does not match this request and the signing secret saved for ${source}.`;
    return { refusal: { status: 401, body: { error: 'unauthorized', message } }, signed: false };
  }
  if (runbook) {
    const message =
      `This organization has an approved runbook that runs automatically, so ${source} requests must be signed: ` +
      `save a signing secret in request_signing for ${source} and configure the sender to sign (${headers}).`;
    return { refusal: { status: 401, body: { error: 'unauthorized', message } }, signed: false };
  }
  return { refusal: null, signed: false };
}

/** A source with its own signature check (SignatureCheck): signed while its secret is saved, token alone otherwise. */
function checkCustom(
  services: Services, sealedSecret: unknown, source: WebhookSource, raw: Buffer, header: (name: string) => string | undefined, custom: SignatureCheck,
): { refusal: Answer | null; signed: boolean } {
  if (typeof sealedSecret !== 'string') return { refusal: null, signed: false };
  const verdict = custom.verify(raw, services.secrets.open(sealedSecret), header, services.clock.now());
  if (verdict === 'valid') return { refusal: null, signed: true };
  const headers = custom.headers.join(' or ');
  const message =
    verdict === 'missing' ? `A signing secret is saved for ${source} (${custom.savedIn}), so every request must be signed (${custom.scheme}, in ${headers}); this one is not.`
      : verdict === 'stale' ? (custom.staleMessage ?? `The ${source} delivery is too old to accept; replays are refused.`)
        : `The signature in ${headers} does not match this request and the signing secret saved for ${source} (${custom.savedIn}).`;
  return { refusal: { status: 401, body: { error: 'unauthorized', message } }, signed: false };
}

export function webhookRoutes(services: Services, options: WebhookOptions = {}): Router {
  const limiter = createLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, limiterStore(options), { log: services.log });
  services.onClose(() => limiter.close());
  const handlers = options.handlers ?? {};
  /** per organization and source: until when rate-limit refusals go unlogged */
  const refusalLogged = new Map<string, number>();
  const deliveries = deliveryLog(services);
  const router = new Router();

  const serve = async (ctx: Context) => {
    // 1. before any work
    if (!ctx.get('user-agent').trim()) {
      return reply(ctx, { status: 400, body: { error: 'user_agent_required', message: 'Send a User-Agent header naming the sending system; requests without one are refused.' } });
    }
    if (ctx.method !== 'POST') {
      return reply(ctx, { status: 405, body: { error: 'method_not_allowed', message: 'Webhooks take POST only.', allowed: ['POST'] }, headers: { Allow: 'POST' } });
    }
    const { source: segment, token, card } = ctx.params as { source: string; token: string; card?: string };
    const comments = ctx.path.endsWith('/comments') && card !== undefined;
    if (!(WEBHOOK_SOURCES as readonly string[]).includes(segment)) return reply(ctx, { status: 404, body: { ...WEBHOOK_NOT_FOUND } });
    const source = segment as WebhookSource;
    if (card !== undefined && !SOURCES_WITH_CARD_PATHS.includes(source)) return reply(ctx, { status: 404, body: { ...WEBHOOK_NOT_FOUND } });

    // 3. the body, bounded; 4. the token, looked up exactly once whatever else happens
    const receivedAt = services.clock.now();
    const limit = BODY_LIMITS[source];
    const declared = Number(ctx.get('content-length') || 0);
    const read = declared > limit ? { raw: null, size: declared } : await readRaw(ctx.req, limit);
    const found = await tokenLookup(services, token, source, options.signatures?.[source]);
    const organization = found?.organization;
    const organizationId = organization?.id;
    const header = (name: string) => {
      const value = ctx.req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const log = async (answer: Answer, outcome: string, detail?: string, payload: unknown = keptPayload(read.raw, read.raw ? parseJson(read.raw) : undefined)) => {
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

    if (read.raw === null) {
      const answer: Answer = {
        status: 413,
        body: { error: 'payload_too_large', message: `The body is larger than the ${limit} bytes ${source} accepts.` },
        headers: { Connection: 'close' },
      };
      await log(answer, 'refused: too large', String(answer.body.message), null);
      closeAfterAnswer(ctx.req);
      return reply(ctx, answer);
    }
    if (!organization) return reply(ctx, { status: 404, body: { ...WEBHOOK_NOT_FOUND } });
    const raw = read.raw;

    // 5. rate limit
    const wait = await limiter.consume(`${organization.id}:${source}`);
    if (wait !== null) {
      const answer: Answer = {
        status: 429,
        body: { error: 'rate_limited', message: `Too many requests to the ${source} webhook; retry in ${wait} seconds.`, retry_after: wait },
        headers: { 'Retry-After': String(wait) },
      };
      // a runaway sender must not turn every refusal into a write: the first one of each window is logged
      const key = `${organization.id}:${source}`;
      if ((refusalLogged.get(key) ?? 0) <= receivedAt.getTime()) {
        refusalLogged.set(key, receivedAt.getTime() + wait * 1000);
        await log(answer, 'refused: rate limit', `${answer.body.message} Further refusals until then are not logged.`);
      }
      return reply(ctx, answer);
    }

    // 6. signature
    const { refusal, signed } = checkSignature(services, found!.also, organization, source, raw, header, options.signatures?.[source]);
    if (refusal) {
      await log(refusal, 'refused: signature', String(refusal.body.message));
      return reply(ctx, refusal);
    }

    // 7. the source's own work
    const body = parseJson(raw);
    const handler = handlers[source];
    let answer: WebhookAnswer;
    if (!handler) {
      answer = { status: 200, body: { status: 'ok', processed: 0, total: 0 }, outcome: 'no handler yet' };
    } else {
      try {
        answer = await handler({ services, organization, source, raw, body, header, card, comments, receivedAt, signed });
      } catch (error) {
        // the database is away: 503 with Retry-After (senders retry), and no delivery log entry to write
        const unavailable = services.outage.unavailable(error);
        if (unavailable) throw unavailable;
        if (!(error instanceof ApiError)) {
          await log({ status: 500, body: {} }, 'error', 'the handler failed');
          throw error;
        }
        answer = { status: error.status, body: error.toBody(), headers: error.headers, outcome: `refused: ${error.code}`, detail: error.message };
      }
    }
    await log(answer, answer.outcome, answer.detail, keptPayload(raw, body));
    return reply(ctx, answer);
  };

  router.all('/webhooks/:source/:token', serve);
  router.all('/webhooks/:source/:token/:card', serve);
  router.all('/webhooks/:source/:token/:card/comments', serve);
  return router;
}
