/** What the webhook side hands to its module: the routes that read raw bodies. Each source names its handler (webhooks/sources/). */
import type Router from '@koa/router';
import type { Services } from '../engine/services.ts';
import { webhookRoutes, type WebhookOptions } from './router.ts';

export type { WebhookOptions };

/** The routers for the webhooks module's `rawRoutes`: mounted before the JSON body parser, as signatures need the raw bytes. */
export function webhookRouters(options: WebhookOptions = {}): ((services: Services) => Router)[] {
  return [(services) => webhookRoutes(services, options)];
}
