/** What the webhook side hands to the engine: its routes (read raw bodies), its agent tools. Tables: entities.ts. */
import type Router from '@koa/router';
import type { DomainOperation } from '../engine/operations/domain.ts';
import type { Services } from '../engine/operations/types.ts';
import { listWebhookDeliveries } from './deliveries.ts';
import { webhookRoutes, type WebhookOptions } from './router.ts';

export const WEBHOOK_OPERATIONS: DomainOperation[] = [listWebhookDeliveries];

/** The routers for `serve`'s `rawRouters`: mounted before the JSON body parser, as signatures need the raw bytes. */
export function webhookRouters(options: WebhookOptions = {}): ((services: Services) => Router)[] {
  return [(services) => webhookRoutes(services, options)];
}

export type { WebhookOptions } from './router.ts';
