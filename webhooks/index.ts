/** What the webhook side hands to the engine: its routes (read raw bodies), its agent tools. Tables: entities.ts. */
import type Router from '@koa/router';
import type { DomainOperation } from '../engine/operations/domain.ts';
import type { JobHandler } from '../engine/jobs/types.ts';
import type { Services } from '../engine/operations/types.ts';
import { investigationsJob } from './ai/investigations.ts';
import { AI_OPERATIONS } from './ai/tools.ts';
import { alertHandlers, type AlertHandlerOptions } from './alerts/handler.ts';
import { ALERT_OPERATIONS } from './alerts/tools.ts';
import { boardHandler } from './board/handler.ts';
import type { CheckOptions } from './checks/options.ts';
import { checkScheduler, checkTickJob } from './checks/scheduler.ts';
import { CHAT_JOBS } from './chat/jobs.ts';
import { CHAT_OPERATIONS } from './chat/tools.ts';
import { EMAIL_JOBS } from './notify/jobs.ts';
import { EMAIL_OPERATIONS } from './notify/email-tools.ts';
import { noticeReleaser, notifyTickJob, type NotifyOptions } from './notify/tick.ts';
import { BOARD_OPERATIONS } from './board/tools.ts';
import { listWebhookDeliveries } from './deliveries.ts';
import type { AuditListener } from '../engine/operations/audit.ts';
import { announceChange } from './notify/changes.ts';
import { fixRequestJob } from './fixes/analysis.ts';
import { fixRequestHandler } from './fixes/handler.ts';
import { FIX_OPERATIONS } from './fixes/tools.ts';
import { outboundDeliveryJob } from './outbound/deliver.ts';
import { OUTBOUND_OPERATIONS } from './outbound/tools.ts';
import { SLO_OPERATIONS } from './slo/tools.ts';
import { timelineHandlers } from './timeline/handler.ts';
import { TIMELINE_OPERATIONS } from './timeline/tools.ts';
import { trackerHandlers } from './trackers/handler.ts';
import { trackerSignatures } from './trackers/signatures.ts';
import { TRACKER_OPERATIONS } from './trackers/tools.ts';
import { webhookRoutes, type WebhookOptions as RouterOptions } from './router.ts';

export const WEBHOOK_OPERATIONS: DomainOperation[] = [listWebhookDeliveries, ...ALERT_OPERATIONS, ...TIMELINE_OPERATIONS, ...BOARD_OPERATIONS, ...TRACKER_OPERATIONS, ...FIX_OPERATIONS, ...AI_OPERATIONS, ...OUTBOUND_OPERATIONS, ...SLO_OPERATIONS, ...CHAT_OPERATIONS, ...EMAIL_OPERATIONS];

/** The background job handlers of the webhook side (one per queue), handed to `serve({ jobs })`: add yours here. */
export const WEBHOOK_JOBS: JobHandler[] = [fixRequestJob, investigationsJob, outboundDeliveryJob, checkTickJob, notifyTickJob, ...CHAT_JOBS, ...EMAIL_JOBS];

/** Told of every audit entry inside its write's transaction, handed to `serve({ auditListeners })`. */
export const WEBHOOK_AUDIT_LISTENERS: AuditListener[] = [announceChange];

export type WebhookOptions = RouterOptions & AlertHandlerOptions & { checks?: CheckOptions; notify?: NotifyOptions };

/**
 * The routers for `serve`'s `rawRouters`: mounted before the JSON body parser, as signatures need the raw bytes.
 * Every source's handler is wired here; `options.handlers` replaces some (tests).
 */
export function webhookRouters(options: WebhookOptions = {}): ((services: Services) => Router)[] {
  const handlers = { ...alertHandlers(options), ...timelineHandlers(), tickets: boardHandler(options), 'fix-requests': fixRequestHandler, ...trackerHandlers(), ...options.handlers };
  const signatures = { ...trackerSignatures(), ...options.signatures };
  return [(services) => webhookRoutes(services, { ...options, handlers, signatures })];
}

/** What the webhook side runs once an instance serves, handed to `serve({ onStart })`. */
export function webhookStartup(options: WebhookOptions = {}): ((services: Services) => Promise<void>)[] {
  return [checkScheduler(options.checks), noticeReleaser(options.notify)];
}
