/** The webhook side's routes (they read raw bodies), with every source's handler wired; module.ts hands them to the engine. */
import type Router from '@koa/router';
import type { Services } from '../engine/operations/types.ts';
import { alertHandlers, type AlertHandlerOptions } from '../domain/alerts/handler.ts';
import { boardHandler } from '../domain/board/handler.ts';
import { fixRequestHandler } from '../domain/fixes/handler.ts';
import { timelineHandlers } from '../domain/timeline/handler.ts';
import { trackerHandlers } from '../domain/trackers/handler.ts';
import { trackerSignatures } from '../domain/trackers/signatures.ts';
import { webhookRoutes, type WebhookOptions as RouterOptions } from './router.ts';

export type WebhookOptions = RouterOptions & AlertHandlerOptions;

/**
 * The routers for the webhooks module's `rawRoutes`: mounted before the JSON body parser, as signatures need the raw bytes.
 * Every source's handler is wired here; `options.handlers` replaces some (tests).
 */
export function webhookRouters(options: WebhookOptions = {}): ((services: Services) => Router)[] {
  const handlers = { ...alertHandlers(options), ...timelineHandlers(), tickets: boardHandler(options), 'fix-requests': fixRequestHandler, ...trackerHandlers(), ...options.handlers };
  const signatures = { ...trackerSignatures(), ...options.signatures };
  return [(services) => webhookRoutes(services, { ...options, handlers, signatures })];
}
