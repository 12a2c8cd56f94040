/** Tables of the webhook side (deliveries, alerts, …), created by the same migrations as the engine's. */
import type { EntitySchema } from '@mikro-orm/core';
import { WebhookDeliveryEntity } from './deliveries.ts';
import { WebhookRateLimitEntity } from './rate-limit.ts';

export const WEBHOOK_ENTITIES: EntitySchema[] = [WebhookDeliveryEntity, WebhookRateLimitEntity];
