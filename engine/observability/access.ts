/**
 * The outermost middleware: gives each request an id (a sent `X-Request-Id` of safe characters is kept, else a new
 * one; answered in `X-Request-Id`), runs it inside the request context, and afterwards writes one access log line
 * (method, route — never the raw path, which can hold a webhook token —, status, duration, organization and
 * credential ids) and the request metrics.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import { requestContext } from './context.ts';
import type { Metrics } from './metrics.ts';
import { routeOf, type RouteNames } from './routes.ts';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export function accessMiddleware(log: Logger, metrics: Metrics, names: () => RouteNames) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const sent = ctx.get('x-request-id');
    const requestId = SAFE_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const route = routeOf(ctx.path, names());
    ctx.state.route = route;
    await requestContext.run({ requestId }, async () => {
      try {
        await next();
      } finally {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        // a transport that answers by itself (the agent-tool endpoint) leaves Koa's status untouched
        const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
        metrics.request(ctx.method, route, status, seconds);
        log.info({ method: ctx.method, route, status, ms: Math.round(seconds * 1000) }, 'request');
      }
    });
  };
}
