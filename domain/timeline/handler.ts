/** The handlers of the two timeline sources (named by webhooks/sources/deployments.ts and code-host.ts). */
export { codeHostHandler } from './code-host.ts';
export { deploymentsHandler } from './deployments.ts';
