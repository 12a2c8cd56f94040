/** Tables of the webhook side (deliveries, rate limits, alerts, …), created by the same migrations as the engine's. */
import type { EntitySchema } from '@mikro-orm/core';
import { AI_ENTITIES } from '../domain/ai/entities.ts';
import { ALERT_ENTITIES } from '../domain/alerts/entities.ts';
import { BOARD_ENTITIES } from '../domain/board/entities.ts';
import { CHAT_ENTITIES } from '../outbound/chat/entities.ts';
import { CHECK_ENTITIES } from '../domain/checks/entities.ts';
import { EMAIL_ENTITIES } from '../outbound/email/entities.ts';
import { FIX_ENTITIES } from '../domain/fixes/entities.ts';
import { OUTBOUND_ENTITIES } from '../outbound/deliveries/entities.ts';
import { WebhookDeliveryEntity } from './delivery-log/entity.ts';
import { WebhookRateLimitEntity } from './rate-limit.ts';
import { SLO_ENTITIES } from '../domain/slo/entities.ts';
import { TIMELINE_ENTITIES } from '../domain/timeline/entities.ts';
import { TRACKER_ENTITIES } from '../domain/trackers/entities.ts';

export const WEBHOOK_ENTITIES: EntitySchema[] = [WebhookDeliveryEntity, WebhookRateLimitEntity, ...ALERT_ENTITIES, ...TIMELINE_ENTITIES, ...BOARD_ENTITIES, ...AI_ENTITIES, ...FIX_ENTITIES, ...TRACKER_ENTITIES, ...OUTBOUND_ENTITIES, ...SLO_ENTITIES, ...CHECK_ENTITIES, ...CHAT_ENTITIES, ...EMAIL_ENTITIES];
