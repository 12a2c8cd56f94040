/** What the webhook side hands to the engine: its routes (read raw bodies), its agent tools. Tables: entities.ts. */
import type Router from '@koa/router';
import type { DomainOperation } from '../engine/operations/domain.ts';
import type { JobHandler } from '../engine/jobs/types.ts';
import type { Services } from '../engine/operations/types.ts';
import { investigationsJob } from '../domain/ai/investigations.ts';
import { AI_OPERATIONS } from '../domain/ai/tools.ts';
import { alertHandlers, type AlertHandlerOptions } from '../domain/alerts/handler.ts';
import { ALERT_OPERATIONS } from '../domain/alerts/tools.ts';
import { boardHandler } from '../domain/board/handler.ts';
import type { CheckOptions } from '../domain/checks/options.ts';
import { checkScheduler, checkTickJob } from '../domain/checks/scheduler.ts';
import { CHAT_JOBS } from '../outbound/chat/jobs.ts';
import { CHAT_OPERATIONS } from '../outbound/chat/tools.ts';
import { EMAIL_JOBS } from '../outbound/email/jobs.ts';
import { EMAIL_OPERATIONS } from '../outbound/email/tools.ts';
import { noticeReleaser, notifyTickJob, type NotifyOptions } from '../outbound/tick.ts';
import { BOARD_OPERATIONS } from '../domain/board/tools.ts';
import { listWebhookDeliveries } from './delivery-log/tool.ts';
import type { AuditListener } from '../engine/operations/audit.ts';
import { announceChange } from '../outbound/changes.ts';
import { fixRequestJob } from '../domain/fixes/analysis.ts';
import { fixRequestHandler } from '../domain/fixes/handler.ts';
import { FIX_OPERATIONS } from '../domain/fixes/tools.ts';
import { outboundDeliveryJob } from '../outbound/deliveries/deliver.ts';
import { OUTBOUND_OPERATIONS } from '../outbound/deliveries/tools.ts';
import { SLO_OPERATIONS } from '../domain/slo/tools.ts';
import { timelineHandlers } from '../domain/timeline/handler.ts';
import { TIMELINE_OPERATIONS } from '../domain/timeline/tools.ts';
import { trackerHandlers } from '../domain/trackers/handler.ts';
import { trackerSignatures } from '../domain/trackers/signatures.ts';
import { TRACKER_OPERATIONS } from '../domain/trackers/tools.ts';
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
