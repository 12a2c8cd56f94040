/**
 * `code-host`: GitHub repository webhooks (push, pull request, workflow run, deployment status, release, issues)
 * turned into timeline entries and synced cards (domain/timeline/code-host.ts). Answers 200 whatever happens, so
 * GitHub does not disable the hook. Signed with GitHub's webhook secret once one is saved in request_signing.
 */
import { codeHostHandler } from '../../domain/timeline/handler.ts';
import { signedWith } from '../signing.ts';
import { MiB, type WebhookSource } from './source.ts';

export const codeHost: WebhookSource = {
  segment: 'code-host',
  product: 'GitHub webhook',
  // push and pull-request payloads can be a few megabytes; GitHub's own cap (25 MB) would let one request hold too much memory
  bodyLimit: 5 * MiB,
  signing: signedWith('github-sha256', { notes: 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body> (GitHub webhook secret)' }),
  handler: () => codeHostHandler,
};
