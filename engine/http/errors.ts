/**
 * The first middleware: every failure leaves as `{ error, message, … }`. Only ApiErrors are exposed; a database
 * that cannot be reached is a 503 `unavailable` with Retry-After (the outage logged once, outage.ts); anything
 * else is a 500 with a fixed message, logged without the request's values.
 */
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { loggedError, type Logger } from '../logger.ts';
import type { DatabaseOutage } from '../persistence/outage.ts';
import { notFoundPage } from './page-headers.ts';

export function sendError(ctx: Context, error: ApiError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = error.toBody();
}

/** Body-parser and other HTTP-level errors carry a status; map the ones a client can cause. */
function fromHttpError(error: { status?: number; type?: string; expose?: boolean }): ApiError | null {
  if (error.status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (error.status === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (error.status === 400) return new ApiError('bad_request', 'The request body is not valid JSON (a JSON object is expected).');
  return null;
}

export function errorMiddleware(log: Logger, outage: DatabaseOutage) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && !notFoundPage(ctx)) {
        sendError(ctx, new ApiError('not_found', 'Nothing is served at this method and path.'));
      }
    } catch (error) {
      if (error instanceof ApiError) return sendError(ctx, error);
      const mapped = fromHttpError(error as { status?: number });
      if (mapped) return sendError(ctx, mapped);
      const unavailable = outage.unavailable(error);
      if (unavailable) return sendError(ctx, unavailable);
      // the route, not the raw path: a webhook path holds its token
      log.error({ err: { name: (error as Error).name, stack: (error as Error).stack }, method: ctx.method, route: ctx.state.route }, 'unhandled error');
      sendError(ctx, new ApiError('internal_error', 'Something went wrong on our side; nothing you sent was at fault. Try again.'));
    }
  };
}

/** Socket errors that only say the client went away before its answer was written. */
const CLIENT_GONE = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Koa's `error` event, for errors met after an answer started (the middleware above can no longer answer them):
 * a JSON log line instead of Koa's default stack on stderr — at debug when the client simply went away (it closed
 * the connection mid-answer), at error otherwise. Never the raw path (a webhook path holds its token).
 */
export function afterAnswerErrors(log: Logger): (error: Error & { code?: string }, ctx?: Context) => void {
  return (error, ctx) => {
    const route = ctx?.state?.route;
    if (error.code && CLIENT_GONE.has(error.code)) log.debug({ code: error.code, route }, 'the client went away before its answer was written');
    else log.error({ err: loggedError(error), route }, 'error after the answer started');
  };
}

/** Writes need a JSON body; anything else is refused before parsing. */
export async function requireJson(ctx: Context, next: Next): Promise<void> {
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(ctx.method) && Number(ctx.get('content-length') || 0) > 0;
  if (hasBody && !ctx.is('application/json', '+json')) throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  await next();
}
