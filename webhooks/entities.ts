/** Tables of the webhook side (deliveries, alerts, …), created by the same migrations as the engine's. */
import type { EntitySchema } from '@mikro-orm/core';

export const WEBHOOK_ENTITIES: EntitySchema[] = [];
