/**
 * Inbound webhooks: the router (raw bodies, mounted before the JSON body parser, with every source's handler wired
 * in index.ts), the delivery log (table and agent tool) and the rate-limit table.
 */
import type { Module } from '../engine/module.ts';
import { listWebhookDeliveries, WebhookDeliveryEntity } from './deliveries.ts';
import { webhookRouters, type WebhookOptions } from './index.ts';
import { WebhookRateLimitEntity } from './rate-limit.ts';

export function webhooksModule(options: WebhookOptions = {}): Module {
  return { name: 'webhooks', entities: [WebhookDeliveryEntity, WebhookRateLimitEntity], operations: [listWebhookDeliveries], rawRoutes: webhookRouters(options) };
}
