/**
 * Named actions (`set_deploy_freeze`, …): descriptor entries run by the same pipeline as writes —
 * endpoint plan, the action's feature and role, input validation, one transaction with the audit entry.
 */
import type { Caller } from '../auth/caller.ts';
import { actionTransports, type ActionDescriptor, type FamilyDescriptor, type Row } from '../descriptor.ts';
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { checkBody } from '../validation.ts';
import { diffRows, recordAudit } from './audit.ts';
import { requireEndpoint, requireFeature, requireRole } from './authorize.ts';
import { hookContext, inTransaction } from './context.ts';
import { idempotent, takeKey, type KeyClaim } from './idempotency.ts';
import { etagOf, ifMatchHolds, project } from './project.ts';
import { preconditionFailed } from './checks.ts';
import { loadRow } from './read.ts';
import { changedValues } from './rows.ts';
import { afterCommit } from './write.ts';
import type { Services } from '../services.ts';
import type { OperationResult } from './types.ts';

export interface ActionRequest {
  family: string;
  action: string;
  id?: string;
  /** instead of `id`: the values of the family's natural key (`{ service: 'checkout' }`) */
  key?: Row;
  body?: unknown;
  ifMatch?: string;
  /** the `Idempotency-Key` header (MCP: `idempotency_key`) as sent */
  idempotencyKey?: unknown;
}

export async function executeAction(services: Services, caller: Caller, request: ActionRequest): Promise<OperationResult> {
  const d = services.registry.get(request.family);
  if (!d) throw new ApiError('not_found', 'There is no resource family by that name; /api/v1/config/openapi.json lists them (one tag per family).');
  requireEndpoint(caller);
  const action = Object.hasOwn(d.actions ?? {}, request.action) ? d.actions![request.action] : undefined;
  // an action not served on this transport does not exist there (the REST-only override is never an agent tool);
  // the console, a person's pages, offers every action REST or MCP serves (its role and feature still apply)
  const servedHere = (a: ActionDescriptor) => caller.transport === 'system' || caller.transport === 'console' || actionTransports(a).includes(caller.transport);
  if (!action || !servedHere(action)) {
    // the action as sent is not repeated: name the ones that exist here instead
    const served = Object.entries(d.actions ?? {}).filter(([, a]) => servedHere(a)).map(([name]) => name);
    throw new ApiError('not_found', `${d.name} has no action by that name${served.length ? `; it has ${served.join(', ')}` : ''}.`);
  }
  const feature = action.feature ?? d.features?.update;
  if (feature) requireFeature(caller, feature);
  requireRole(caller, action.role);
  // an action sets state from its input, yet a stale retry would undo a later change: it takes a key like a create
  const call = { key: request.idempotencyKey, operation: `${d.name}.${request.action}`, target: request.id ?? request.key, body: request.body ?? {} };
  return idempotent(services, caller, call, (key) => runAction(services, caller, d, action, request, key), { claimInTransaction: true });
}

/** `key`: the idempotency key, claimed with the answer as the last statement of the action's transaction. */
async function runAction(services: Services, caller: Caller, d: FamilyDescriptor, action: ActionDescriptor, request: ActionRequest, key?: KeyClaim): Promise<OperationResult> {
  const errors = checkBody(action.input, request.body ?? {});
  if (d.kind === 'collection' && !request.id && !request.key) errors.unshift({ field: 'id', message: `is required: the id of the row${d.naturalKey ? `, or its ${d.naturalKey.join(' and ')}` : ''}` });
  if (errors.length) throw validationFailed(errors);
  const input = (request.body ?? {}) as Row;

  const done = await inTransaction(services, async (store) => {
    const now = services.clock.now();
    const ctx = hookContext(services, caller, store, now);
    const id = request.id ?? (request.key && d.naturalKey ? (await store.list(d, caller.organization.id, { where: request.key }))[0]?.id : undefined);
    const existing = await loadRow(services, caller, d, store, id === undefined ? undefined : String(id), true);
    if (!existing || existing.created_at === null) throw notFound(d.name);
    if (d.archive && existing[d.archive.field]) throw new ApiError('conflict', `This ${d.name} row is archived; archived rows cannot be changed.`);
    if (!ifMatchHolds(request.ifMatch, etagOf(d, existing))) throw preconditionFailed(services, d, existing, now);
    const next = { ...existing, ...(await action.run(existing, input, ctx)) };
    const changes = diffRows(d, existing, next);
    let written = existing;
    if (Object.keys(changes).length > 0) {
      written = await store.update(d, existing, changedValues(next, changes), now);
      await recordAudit(services, store, { caller, family: d.name, rowId: String(existing.id), action: `action:${request.action}`, changes, at: now });
    }
    const result: OperationResult = { status: 200, data: project(d, written, { now: services.clock.now(), config: services.config }), etag: etagOf(d, written), id: String(written.id) };
    if (key) await takeKey(store, key, result);
    return { result, written: written === existing ? null : { row: written, notices: [], ctx } };
  });
  if (done.written) await afterCommit(services, d, 'action', done.written);
  return done.result;
}
