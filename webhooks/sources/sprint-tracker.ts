/**
 * `sprint-tracker`: Jira Cloud webhook deliveries keep a card in step with a sprint item; the fix tag also asks for
 * a fix pull request (domain/trackers/handler.ts). Signed with the secret saved on the tracker's ticket_integrations
 * row.
 */
import { sprintTrackerHandler } from '../../domain/trackers/handler.ts';
import { jiraSignature } from '../../domain/trackers/signatures.ts';
import { MiB, type WebhookSource } from './source.ts';

export const sprintTracker: WebhookSource = {
  segment: 'sprint-tracker',
  product: 'Jira Cloud webhook',
  // item payloads carry change logs and descriptions
  bodyLimit: MiB,
  signing: jiraSignature,
  handler: () => sprintTrackerHandler,
};
