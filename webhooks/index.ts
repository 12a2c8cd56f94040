/** What the webhook side hands to the engine: its routes (read raw bodies), its agent tools. Tables: entities.ts. */
import type Router from '@koa/router';
import type { DomainOperation } from '../engine/operations/domain.ts';
import type { Services } from '../engine/operations/types.ts';
import { alertHandlers, type AlertHandlerOptions } from './alerts/handler.ts';
import { ALERT_OPERATIONS } from './alerts/tools.ts';
import { boardHandler } from './board/handler.ts';
import { BOARD_OPERATIONS } from './board/tools.ts';
import { listWebhookDeliveries } from './deliveries.ts';
import { timelineHandlers } from './timeline/handler.ts';
import { TIMELINE_OPERATIONS } from './timeline/tools.ts';
import { webhookRoutes, type WebhookOptions as RouterOptions } from './router.ts';

export const WEBHOOK_OPERATIONS: DomainOperation[] = [listWebhookDeliveries, ...ALERT_OPERATIONS, ...TIMELINE_OPERATIONS, ...BOARD_OPERATIONS];

export type WebhookOptions = RouterOptions & AlertHandlerOptions;

/**
 * The routers for `serve`'s `rawRouters`: mounted before the JSON body parser, as signatures need the raw bytes.
 * Every source's handler is wired here; `options.handlers` replaces some (tests).
 */
export function webhookRouters(options: WebhookOptions = {}): ((services: Services) => Router)[] {
  const handlers = { ...alertHandlers(options), ...timelineHandlers(), tickets: boardHandler(options), ...options.handlers };
  return [(services) => webhookRoutes(services, { ...options, handlers })];
}
