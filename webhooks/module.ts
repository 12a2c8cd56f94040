/**
 * Inbound webhooks: the router (raw bodies, mounted before the JSON body parser; each source names its handler in
 * sources/), the delivery log (table and agent tool) and the rate-limit table.
 */
import type { Module } from '../engine/module.ts';
import { WebhookDeliveryEntity } from './delivery-log/entity.ts';
import { listWebhookDeliveries } from './delivery-log/tool.ts';
import { webhookRouters, type WebhookOptions } from './index.ts';
import { WebhookRateLimitEntity } from '../engine/rate-limit/store.ts';

export function webhooksModule(options: WebhookOptions = {}): Module {
  return { name: 'webhooks', entities: [WebhookDeliveryEntity, WebhookRateLimitEntity], operations: [listWebhookDeliveries], rawRoutes: webhookRouters(options) };
}
