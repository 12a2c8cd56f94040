/** `fix-requests`: a fix asked for in plain words, queued for analysis (domain/fixes/handler.ts); answers 202. */
import { fixRequestHandler } from '../../domain/fixes/handler.ts';
import { KiB, type WebhookSource } from './source.ts';

export const fixRequests: WebhookSource = {
  segment: 'fix-requests',
  product: 'fix request',
  // a few short fields
  bodyLimit: 64 * KiB,
  signing: null,
  handler: () => fixRequestHandler,
};
