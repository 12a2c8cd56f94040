/**
 * `deployments`: a deploy, rollback or other change, sent by a CI/CD pipeline or a script, recorded on the
 * deployments timeline (domain/timeline/deployments.ts reads the body and answers).
 */
import { deploymentsHandler } from '../../domain/timeline/handler.ts';
import { KiB, type WebhookSource } from './source.ts';

export const deployments: WebhookSource = {
  segment: 'deployments',
  product: 'deployment event (CI/CD pipeline or script)',
  // a few short fields
  bodyLimit: 64 * KiB,
  // the token alone
  signing: null,
  handler: () => deploymentsHandler,
};
