/**
 * The request a log line belongs to: its id, and once authenticated the organization and credential. Kept in
 * AsyncLocalStorage so every log line written while serving a request carries them (the logger's mixin), without
 * passing them through every call. Ids only: never a token or a secret.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
  organizationId?: string;
  credentialId?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Records who is calling on the current request (no-op outside one). */
export function noteCaller(organizationId: string, credentialId: string): void {
  const context = requestContext.getStore();
  if (!context) return;
  context.organizationId = organizationId;
  context.credentialId = credentialId;
}

/** The current request's id, or undefined outside a request. */
export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;
