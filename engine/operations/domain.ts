/**
 * Domain operations: what is not a family's CRUD (the audit log, the export, later alerts, cards,
 * deployments…). A module declares one as data — name, input schema, role, feature, how REST reaches it —
 * and it runs through the same checks as every operation: endpoint plan, feature, role, input validation.
 * REST and the agent-tool endpoint both serve it from this one declaration.
 */
import type { Caller } from '../auth/caller.ts';
import type { Row } from '../descriptor.ts';
import { validationFailed } from '../errors.ts';
import { checkBody } from '../validation.ts';
import { requireEndpoint, requireFeature, requireRole } from './authorize.ts';
import { idempotent } from './idempotency.ts';
import type { DomainOperation, DomainResult, Services } from '../services.ts';

/** Writes not declared idempotent take an idempotency key (the header; the agent tool's `idempotency_key`). */
export const takesIdempotencyKey = (operation: DomainOperation) => operation.kind === 'write' && operation.idempotent !== true;

/** The path REST serves an operation at, under the configuration API's prefix (OpenAPI's path template). */
export function domainRestPath(operation: DomainOperation): string {
  const rest = operation.rest!;
  return `/${rest.path}${rest.param ? `/{${rest.param}}` : ''}${rest.param && rest.action ? `/${rest.action}` : ''}`;
}

/**
 * The operation REST serves at `/<path>[/<segment…>]`, and the row segment its `param` takes: an action on a row
 * (`/<path>/<id>/<action>`) is matched first, then a by-id operation, then the path's own.
 */
export function domainRoute(operations: readonly DomainOperation[], path: string, id: string | undefined): { operation: DomainOperation; segment?: string } | undefined {
  const cut = id?.lastIndexOf('/') ?? -1;
  if (id !== undefined && cut > 0) {
    const action = id.slice(cut + 1);
    const operation = operations.find((op) => op.rest?.path === path && op.rest.param !== undefined && op.rest.action === action);
    if (operation) return { operation, segment: id.slice(0, cut) };
  }
  const operation = operations.find((op) => op.rest?.path === path && op.rest.action === undefined && (op.rest.param !== undefined) === (id !== undefined));
  return operation ? { operation, segment: id } : undefined;
}

/** `idempotencyKey` is ignored by the operations that do not take one (reads, idempotent writes). */
export async function executeDomain(services: Services, caller: Caller, operation: DomainOperation, input: unknown, idempotencyKey?: unknown): Promise<DomainResult & { replayed?: true }> {
  requireEndpoint(caller);
  if (operation.feature) requireFeature(caller, operation.feature);
  requireRole(caller, operation.role, operation.kind === 'write');
  const run = async () => {
    const errors = checkBody(operation.input, input ?? {});
    if (errors.length) throw validationFailed(errors);
    return operation.run(services, caller, (input ?? {}) as Row);
  };
  if (!takesIdempotencyKey(operation)) return run();
  return idempotent(services, caller, { key: idempotencyKey, operation: operation.name, body: input ?? {} }, run);
}
