/**
 * `issue-tracker`: Linear webhook deliveries keep a card in step with an issue; the fix label also asks for a fix
 * pull request (domain/trackers/handler.ts). Signed with the secret saved on the tracker's ticket_integrations row.
 */
import { issueTrackerHandler } from '../../domain/trackers/handler.ts';
import { linearSignature } from '../../domain/trackers/signatures.ts';
import { MiB, type WebhookSource } from './source.ts';

export const issueTracker: WebhookSource = {
  segment: 'issue-tracker',
  product: 'Linear webhook',
  // issue payloads carry change logs and descriptions
  bodyLimit: MiB,
  signing: linearSignature,
  handler: () => issueTrackerHandler,
};
