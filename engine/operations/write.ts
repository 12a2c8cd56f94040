/** Create, update and delete: each one transaction that writes the row and its audit entry together. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Caller } from '../auth/caller.ts';
import type { FamilyDescriptor, HookContext, Row, WriteStage } from '../descriptor.ts';
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { parseWrite } from '../validation.ts';
import { diffRows, recordAudit } from './audit.ts';
import type { AuditAction } from './audit-entry.ts';
import { checkRow, checkNaturalKey, checkUniqueAcrossOrganizations, conflict, preconditionFailed, resolveReferences, takenError } from './checks.ts';
import { hookContext, inTransaction, readStore, whenCommitted } from './context.ts';
import type { KeyClaim } from './idempotency.ts';
import { checkUserTokenFields } from './authorize.ts';
import { defaultRow, etagOf, ifMatchHolds, project, referenceLoader } from './project.ts';
import { loadRow, withSingletonTimes } from './read.ts';
import { applyMove, composeId, fieldsFromId, MOVE_INPUT, nextPosition, sealSecrets, changedValues } from './rows.ts';
import type { Services } from '../services.ts';
import type { Notice, OperationRequest, OperationResult } from './types.ts';

interface Written {
  row: Row;
  notices: Notice[];
  action?: AuditAction;
  ctx: HookContext;
}

function parseOrRefuse(services: Services, d: FamilyDescriptor, caller: Caller, request: OperationRequest, op: 'create' | 'update') {
  checkUserTokenFields(caller, d, request.body);
  const { input, errors } = parseWrite(d, request.body, op, services.targets, op === 'update' && d.positioned ? { move: MOVE_INPUT } : {});
  if (errors.length) throw validationFailed(errors);
  return input;
}

/** prepare → rules and validate hook → references: the row as it will be stored, plus notices. */
async function settle(services: Services, d: FamilyDescriptor, row: Row, input: Row, stage: WriteStage): Promise<{ row: Row; notices: Notice[] }> {
  const prepared = d.hooks?.prepare ? await d.hooks.prepare(row, input, stage) : row;
  await checkRow(d, prepared, stage);
  return resolveReferences(d, prepared, input, stage.ctx, (family) => services.registry.get(family)?.archive?.field);
}

/** A unique-index race lost at commit is the same 409 as one caught before writing. */
async function conflictOnRace<T>(services: Services, caller: Caller, d: FamilyDescriptor, candidate: () => Row | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const row = candidate();
    if (!(error instanceof UniqueConstraintViolationException) || !row) throw error;
    if (!d.naturalKey) throw d.uniqueAcrossOrganizations?.length ? takenError(d) : error;
    const where = Object.fromEntries(d.naturalKey.map((f) => [f, row[f]]));
    const [holder] = await readStore(services).list(d, caller.organization.id, { where });
    if (!holder && d.uniqueAcrossOrganizations?.length) throw takenError(d);
    if (!holder) throw error;
    throw conflict(services, d, holder, services.clock.now());
  }
}

/** After the commit (inside a batch: after the batch's commit, never when it rolls back). */
function afterCommit(services: Services, d: FamilyDescriptor, op: 'create' | 'update' | 'delete', written: Written): Promise<void> {
  return whenCommitted(services, () => runAfterCommit(services, d, op, written));
}

async function runAfterCommit(services: Services, d: FamilyDescriptor, op: 'create' | 'update' | 'delete', written: Written): Promise<void> {
  if (d.authenticates) services.credentials.clear();
  if (!d.hooks?.afterCommit) return;
  try {
    await d.hooks.afterCommit({ op, row: written.row, ctx: written.ctx });
  } catch (error) {
    if (!services.outage.noted(error)) services.log.error({ family: d.name, op, err: (error as Error).name }, 'afterCommit hook failed');
  }
}

/** `store`: the transaction's, when the answer is made before the commit (PGlite has one connection). */
async function answer(services: Services, caller: Caller, d: FamilyDescriptor, status: 200 | 201, written: Written, store = readStore(services)): Promise<OperationResult> {
  const referenced = await referenceLoader(services.registry, store, d, caller.organization.id, [written.row]);
  const data = project(d, written.row, { now: written.ctx.now, config: services.config, referenced });
  return { status, data, etag: etagOf(d, written.row), id: String(written.row.id), notices: written.notices.length ? written.notices : undefined };
}

/**
 * `key`: the idempotency key's steps, run in the create's one transaction: the claim first, the answer last (so
 * the answer is made before the commit, and stored with the row it answers).
 */
export async function createRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest, key?: KeyClaim): Promise<OperationResult> {
  const input = parseOrRefuse(services, d, caller, request, 'create');
  const orgId = caller.organization.id;
  let candidate: Row | undefined;
  const written = await conflictOnRace(services, caller, d, () => candidate, () =>
    inTransaction(services, async (store): Promise<Written & { result: OperationResult }> => {
      await key?.claim(store);
      const now = services.clock.now();
      const ctx = hookContext(services, caller, store, now);
      let row: Row = { ...defaultRow(d), ...input };
      for (const [field, make] of Object.entries(d.generated ?? {})) row[field] = make();
      row.id = composeId(d, row);
      const settled = await settle(services, d, row, input, { op: 'create', ctx });
      row = settled.row;
      candidate = row;
      await checkNaturalKey(services, d, store, row, ctx);
      await checkUniqueAcrossOrganizations(d, store, orgId, row, undefined);
      if (d.positioned) row[d.positioned.field] = await nextPosition(store, d, orgId);
      const stored = await store.insert(d, orgId, sealSecrets(services, d, row, input), now);
      await recordAudit(services, store, { caller, family: d.name, rowId: String(stored.id), action: 'create', changes: diffRows(d, null, stored), at: now });
      const written: Written = { row: stored, notices: settled.notices, ctx };
      const result = await answer(services, caller, d, 201, written, store);
      await key?.record(store, result);
      return { ...written, result };
    }),
  );
  await afterCommit(services, d, 'create', written);
  return written.result;
}

export async function updateRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const { move, ...input } = parseOrRefuse(services, d, caller, request, 'update');
  const orgId = caller.organization.id;
  let candidate: Row | undefined;
  const written = await conflictOnRace(services, caller, d, () => candidate, () =>
    inTransaction(services, async (store): Promise<Written | null> => {
      const now = services.clock.now();
      const ctx = hookContext(services, caller, store, now);
      let existing = await loadRow(services, caller, d, store, request.id, true);
      const creating = !existing || existing.created_at === null;
      if (!existing) {
        if (!d.id?.upsert || request.id === undefined) throw notFound(d.name);
        existing = { ...defaultRow(d), ...fieldsFromId(d, request.id), id: request.id };
        existing.id = composeId(d, existing);
      }
      if (d.archive && existing[d.archive.field]) {
        throw new ApiError('conflict', `This ${d.name} row is archived; archived rows cannot be changed or restored.`, {
          data: project(d, existing, { now, config: services.config }),
        });
      }
      const settled = await settle(services, d, { ...existing, ...input }, input, { op: 'update', existing, ctx });
      let row = settled.row;
      candidate = row;
      const notices = [...settled.notices];
      if ((d.naturalKey ?? []).some((f) => row[f] !== existing[f]) || (creating && d.kind === 'collection')) {
        await checkNaturalKey(services, d, store, row, ctx, creating ? undefined : existing.id);
      }
      await checkUniqueAcrossOrganizations(d, store, orgId, row, creating ? undefined : existing);
      if (!ifMatchHolds(request.ifMatch, etagOf(d, existing)) || (creating && d.kind === 'collection' && request.ifMatch !== undefined)) {
        throw preconditionFailed(services, d, d.kind === 'collection' && creating ? null : await withSingletonTimes(store, d, existing), now);
      }
      row = sealSecrets(services, d, row, input);
      if (move && !(await applyMove(store, d, row, move as 'up' | 'down', now))) {
        const message = `is already at the ${move === 'up' ? 'top' : 'bottom'}; nothing moved`;
        if (Object.keys(input).length === 0) throw validationFailed([{ field: 'move', message }]);
        notices.push({ field: 'move', message });
      }
      const changes = diffRows(d, existing, row);
      if (Object.keys(changes).length === 0) return creating && d.kind === 'collection' ? persistNew() : null;
      return creating ? persistNew() : persistChange();

      async function persistNew(): Promise<Written> {
        const stored = await store.insert(d, orgId, row, now);
        // a singleton always exists for its users: its first write is an update from the defaults
        const [action, before] = d.kind === 'singleton' ? (['update', existing] as const) : (['create', null] as const);
        await recordAudit(services, store, { caller, family: d.name, rowId: String(stored.id), action, changes: diffRows(d, before, stored), at: now });
        return { row: stored, notices, ctx };
      }
      async function persistChange(): Promise<Written> {
        const stored = await store.update(d, existing!, changedValues(row, changes), now);
        await recordAudit(services, store, { caller, family: d.name, rowId: String(stored.id), action: 'update', changes, at: now });
        return { row: stored, notices, ctx };
      }
    }),
  );
  if (!written) return readUnchanged(services, caller, d, request);
  await afterCommit(services, d, 'update', written);
  return answer(services, caller, d, 200, written);
}

/** An update that changes nothing writes nothing and audits nothing; it answers the row as it stands. */
async function readUnchanged(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const now = services.clock.now();
  const store = readStore(services);
  const row = await withSingletonTimes(store, d, (await loadRow(services, caller, d, store, request.id))!);
  return answer(services, caller, d, 200, { row, notices: [], ctx: hookContext(services, caller, store, now) });
}

export async function deleteRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const written = await inTransaction(services, async (store): Promise<Written | null> => {
    const now = services.clock.now();
    const existing = await store.get(d, caller.organization.id, request.id ?? '', true);
    if (!existing) throw notFound(d.name);
    if (!ifMatchHolds(request.ifMatch, etagOf(d, existing))) throw preconditionFailed(services, d, existing, now, 'deleted');
    const ctx = hookContext(services, caller, store, now);
    const refused = d.hooks?.validateDelete ? await d.hooks.validateDelete(existing, ctx) : [];
    if (refused.length) throw validationFailed(refused);
    if (d.archive) {
      if (existing[d.archive.field]) return null;
      const archived = await store.update(d, existing, { [d.archive.field]: now }, now);
      await recordAudit(services, store, { caller, family: d.name, rowId: String(existing.id), action: 'archive', changes: diffRows(d, existing, archived), at: now });
      return { row: archived, notices: [], ctx };
    }
    await store.remove(d, existing);
    await recordAudit(services, store, { caller, family: d.name, rowId: String(existing.id), action: 'delete', changes: diffRows(d, existing, null), at: now });
    return { row: existing, notices: [], ctx };
  });
  if (written) await afterCommit(services, d, 'delete', written);
  return { status: 204 };
}
