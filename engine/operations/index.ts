/**
 * The operation pipeline: the one place where rules live, so REST and MCP cannot drift.
 *
 * Every operation runs these phases, in this order:
 *  1. resolve the family (unknown → 404 not_found)
 *  2. the endpoint's plan feature (`config_api` or `mcp`) → 403 plan_required
 *  3. the operation exists on the family → 405 method_not_allowed
 *  4. the family's plan feature for the operation → 403 plan_required
 *  5. the role the operation needs → 403 read_only_key / forbidden
 *  5a. a collection's read, update and delete (and a named action) name their row: no id → 422 naming `id`
 *  5b. creates and named actions (and domain writes not declared idempotent): the idempotency key
 *     (idempotency.ts) — malformed → 422 naming it; still running here → 409; claimed for the organization with
 *     the answer, in the write of step 8 (so claim, write and answer commit together; domain writes: before they
 *     run), or: the same request done within 24 h → its stored answer replayed (nothing else is written, and a
 *     refusal below answers the stored answer instead); another request → 422. Only a 2xx answer is stored.
 *  6. fields only a user may write → 403 user_token_required
 *  7. parse the body: unknown, read-only and create-only fields and schema violations, all collected → 422;
 *     a list reads its page instead (page.ts): `limit` out of range, or a `cursor` it did not issue → 422 naming them
 *  8. load (404) → merge → `prepare` hook → rules and `validate` hook (422) → references → natural-key conflict
 *     (409, existing row) → `If-Match` (412, current row) → persist with the audit entry: in one statement, the
 *     row written only if still at the version loaded (else loaded and checked again), when no listener is
 *     concerned and no batch runs; else in one transaction, the row locked as it is loaded (write.ts)
 *  9. after the commit, the `afterCommit` hook
 * 10. project the answer (readable fields only; secrets become `<name>_set`)
 */
import type { Caller } from '../auth/caller.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { authorize } from './authorize.ts';
import { idempotent } from './idempotency.ts';
import { listRows, readRow } from './read.ts';
import type { Services } from '../services.ts';
import type { OperationRequest, OperationResult } from './types.ts';
import { createRow, deleteRow, updateRow } from './write.ts';

const HANDLERS = { list: listRows, read: readRow, create: createRow, update: updateRow, delete: deleteRow };

export async function execute(services: Services, caller: Caller, request: OperationRequest): Promise<OperationResult> {
  const family = services.registry.get(request.family);
  if (!family) throw new ApiError('not_found', 'There is no resource family by that name; /api/v1/config/openapi.json lists them (one tag per family).');
  authorize(caller, family, request.op);
  if (family.kind === 'collection' && request.op !== 'list' && request.op !== 'create' && !request.id) throw idRequired();
  if (request.op !== 'create') return HANDLERS[request.op](services, caller, family, request);
  const call = { key: request.idempotencyKey, operation: `${family.name}.create`, body: request.body };
  return idempotent(services, caller, call, (key) => createRow(services, caller, family, request, key), { claimInTransaction: true });
}

/** A row-addressed operation without its row: the caller's mistake to fix (a missing row is 404; a missing id is not). */
export const idRequired = () => validationFailed([{ field: 'id', message: 'is required: the id of the row, as the list answers it' }]);

export type { OperationRequest, OperationResult } from './types.ts';
export type { Services } from '../services.ts';
