/**
 * Domain operations: what is not a family's CRUD (the audit log, the export, later alerts, cards,
 * deployments…). A module declares one as data — name, input schema, role, feature, how REST reaches it —
 * and it runs through the same checks as every operation: endpoint plan, feature, role, input validation.
 * REST and the agent-tool endpoint both serve it from this one declaration.
 */
import type { TSchema } from 'typebox';
import type { Caller } from '../auth/caller.ts';
import type { Row } from '../descriptor.ts';
import { validationFailed } from '../errors.ts';
import type { Feature, Role } from '../plans.ts';
import { checkBody } from '../validation.ts';
import { requireFeature, requireRole } from './authorize.ts';
import { idempotent } from './idempotency.ts';
import type { Services } from './types.ts';

/** JSON for REST's body and MCP's structuredContent, or a document (such as an HCL file) as text. */
export type DomainResult = { json: Record<string, unknown> } | { text: string; contentType: string };

export interface DomainOperation {
  /** the agent tool's name, snake_case */
  name: string;
  description: string;
  /** an object schema; REST takes it from the query string (GET) or the body (POST) */
  input: TSchema;
  role: Role;
  feature?: Feature;
  /** `read` operations answer viewers and read-only keys; `write` ones refuse read-only keys */
  kind: 'read' | 'write';
  /** a write that leaves the same state when repeated with the same input (the agent tool's idempotentHint) */
  idempotent?: boolean;
  /** a write that only adds (a comment, an entry) and never changes or removes what is there (destructiveHint false) */
  additive?: boolean;
  /**
   * where REST serves it under /api/v1/config; absent: agent tool only. With `param`, REST serves
   * `/<path>/{<param>}` and the segment is that input field (`get_alert`: GET /alerts/{id}).
   */
  rest?: { method: 'GET' | 'POST'; path: string; param?: string };
  /**
   * what a success answers: a JSON schema (OpenAPI's answer, the agent tool's output schema), or a document's content
   * type (the tool then answers `{ content_type, text }`). Required, and one of the two must be given (checked when
   * the tools are built), so an agent and a typed client know every answer.
   */
  answer: { schema?: TSchema; contentType?: string };
  /**
   * it reaches outside the service when it runs (a tracker's API, a receiver's URL, an AI provider): the agent tool's
   * `openWorldHint`. Absent: it reads and writes this service's own data only.
   */
  reachesOutside?: true;
  run(services: Services, caller: Caller, input: Row): Promise<DomainResult>;
}

/** Writes not declared idempotent take an idempotency key (the header; the agent tool's `idempotency_key`). */
export const takesIdempotencyKey = (operation: DomainOperation) => operation.kind === 'write' && operation.idempotent !== true;

/** `idempotencyKey` is ignored by the operations that do not take one (reads, idempotent writes). */
export async function executeDomain(services: Services, caller: Caller, operation: DomainOperation, input: unknown, idempotencyKey?: unknown): Promise<DomainResult & { replayed?: true }> {
  requireFeature(caller, caller.endpointFeature);
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
