/**
 * Inbound webhooks: the router (raw bodies, mounted before the JSON body parser as signatures need the raw bytes;
 * each source names its handler in sources/), Pushover's callback for emergency pages (paging/pushover.ts), Twilio's incoming texts, call key presses and status callbacks (paging/twilio-*.ts), the delivery log (table and agent tool) and the rate-limit table.
 */
import type { Module } from '../engine/module.ts';
import { WebhookRateLimitEntity } from '../engine/rate-limit/store.ts';
import { WebhookDeliveryEntity } from './delivery-log/entity.ts';
import { listWebhookDeliveries } from './delivery-log/tool.ts';
import { pushoverCallbackRoutes } from './paging/pushover.ts';
import { twilioSmsRoutes } from './paging/twilio-sms.ts';
import { twilioStatusRoutes } from './paging/twilio-status.ts';
import { twilioVoiceRoutes } from './paging/twilio-voice.ts';
import { webhookRoutes } from './router.ts';
import chat from '../resources/chat.ts';
import requestSigning from '../resources/request_signing.ts';
import schedules from '../resources/schedules.ts';
import teams from '../resources/teams.ts';

export const webhooksModule: Module = {
  name: 'webhooks', families: [chat, requestSigning, schedules, teams],
  entities: [WebhookDeliveryEntity, WebhookRateLimitEntity],
  operations: [listWebhookDeliveries],
  // Pushover's emergency callback and Twilio's requests post forms: read before the JSON-only check too
  rawRoutes: [(services) => webhookRoutes(services, services.config.webhooks), pushoverCallbackRoutes, twilioSmsRoutes, twilioVoiceRoutes, twilioStatusRoutes],
};
