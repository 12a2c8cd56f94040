/** The handlers of the two timeline sources, for the router's map (webhooks/index.ts). */
import type { WebhookHandlers } from '../../webhooks/handlers.ts';
import { codeHostHandler } from './code-host.ts';
import { deploymentsHandler } from './deployments.ts';

export function timelineHandlers(): WebhookHandlers {
  return { deployments: deploymentsHandler, 'code-host': codeHostHandler };
}
