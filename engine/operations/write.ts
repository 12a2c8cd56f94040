/**
 * Create, update and delete: the row and its audit entry written together, in one statement when nothing else must
 * join them (no batch around it, no audit listener concerned: `writesAlone`), else in one transaction.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Caller } from '../auth/caller.ts';
import type { FamilyDescriptor, HookContext, Row, WriteStage } from '../descriptor.ts';
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { parseWrite } from '../validation.ts';
import { auditEntry, auditRow, diffRows, recordAudit, tellListeners, writesAlone } from './audit.ts';
import { checkOwnRow, checkRow, checkNaturalKey, checkUniqueAcrossOrganizations, conflict, preconditionFailed, resolveReferences, takenError, uniqueListWrite } from './checks.ts';
import { naturalKeyIndexed } from '../persistence/entities.ts';
import { hookContext, inBatchFirstPass, inTransaction, readStore, whenCommitted } from './context.ts';
import { KeyHeld, takeKey, type KeyClaim } from './idempotency.ts';
import { checkUserTokenFields } from './authorize.ts';
import { defaultRow, etagOf, ifMatchHolds, project, referenceLoader } from './project.ts';
import { loadRow, withSingletonTimes } from './read.ts';
import { applyMove, composeId, fieldsFromId, MOVE_INPUT, nextPosition, sealSecrets, changedValues } from './rows.ts';
import type { FamilyStore } from '../persistence/store.ts';
import type { Services } from '../services.ts';
import type { Notice, OperationRequest, OperationResult } from './types.ts';

interface Written {
  row: Row;
  notices: Notice[];
  ctx: HookContext;
}

type Answered = Written & { result: OperationResult };

function parseOrRefuse(services: Services, d: FamilyDescriptor, caller: Caller, request: OperationRequest, op: 'create' | 'update') {
  checkUserTokenFields(caller, d, request.body);
  const { input, errors } = parseWrite(d, request.body, op, services.targets, op === 'update' && d.positioned ? { move: MOVE_INPUT } : {});
  if (errors.length) throw validationFailed(errors);
  return input;
}

/** prepare → rules and validate hook → references: the row as it will be stored, plus notices. */
async function settle(services: Services, d: FamilyDescriptor, store: FamilyStore, row: Row, input: Row, stage: WriteStage): Promise<{ row: Row; notices: Notice[] }> {
  const prepared = d.hooks?.prepare ? await d.hooks.prepare(row, input, stage) : row;
  await checkRow(d, prepared, stage);
  return resolveReferences(d, prepared, input, stage.ctx, store, (family) => services.registry.get(family)!);
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
export function afterCommit(services: Services, d: FamilyDescriptor, op: 'create' | 'update' | 'delete' | 'action', written: Written): Promise<void> {
  return whenCommitted(services, () => runAfterCommit(services, d, op, written));
}

async function runAfterCommit(services: Services, d: FamilyDescriptor, op: 'create' | 'update' | 'delete' | 'action', written: Written): Promise<void> {
  if (d.authenticates) services.credentials.clear();
  if (d.cachedRows) services.rows.clear();
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

/** How often a write alone goes again after its row changed under it, before it takes the row's lock instead. */
const ALONE_ATTEMPTS = 3;

/**
 * A create: one statement with its audit entry (and its idempotency key, with the answer) when it can go alone
 * (writesAlone; no position to take, no natural key that needs a lock), else one transaction.
 */
export async function createRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest, key?: KeyClaim): Promise<OperationResult> {
  const input = parseOrRefuse(services, d, caller, request, 'create');
  const orgId = caller.organization.id;
  const alone = !d.positioned && !d.naturalKeyWhile && !uniqueListWrite(d) && (await writesAlone(services, d, { organizationId: orgId, family: d.name, action: 'create' }));
  let candidate: Row | undefined;

  /** The row as it will be stored, through the checks that need no lock. */
  async function shaped(store: FamilyStore, now: Date) {
    const ctx = hookContext(services, caller, store, now);
    const row: Row = { ...defaultRow(d), ...input };
    for (const [field, make] of Object.entries(d.generated ?? {})) row[field] = make();
    row.id = composeId(d, row);
    const settled = await settle(services, d, store, row, input, { op: 'create', ctx });
    candidate = settled.row;
    return { ...settled, ctx };
  }

  async function createAlone(): Promise<Answered> {
    const store = readStore(services);
    const now = services.clock.now();
    const { row, notices, ctx } = await shaped(store, now);
    // a unique index refuses a second holder of the natural key, which conflictOnRace answers as the check would
    if (!naturalKeyIndexed(d)) await checkNaturalKey(services, d, store, row, ctx);
    await checkUniqueAcrossOrganizations(d, store, orgId, row, undefined);
    const stored = store.inserted(d, orgId, sealSecrets(services, d, row, input), now);
    const written: Written = { row: stored, notices, ctx };
    const result = await answer(services, caller, d, 201, written, store);
    const entry = auditEntry(services, { caller, family: d.name, rowId: String(stored.id), action: 'create', changes: diffRows(d, null, stored), at: now });
    if ((await store.writeAlone(d, { op: 'insert', row: stored }, auditRow(entry), key?.claim(result))) === 'gated') throw new KeyHeld();
    return { ...written, result };
  }

  async function createLocked(store: FamilyStore): Promise<Answered> {
    const now = services.clock.now();
    const { row, notices, ctx } = await shaped(store, now);
    // a batch's first pass leaves the natural key to the unique index where one holds it: a second holder fails
    // the pass, and the batch's second pass (savepoints) answers the 409 as this check does
    const firstPass = inBatchFirstPass(services);
    if (!(firstPass && naturalKeyIndexed(d))) await checkNaturalKey(services, d, store, row, ctx);
    await checkUniqueAcrossOrganizations(d, store, orgId, row, undefined);
    if (d.positioned) row[d.positioned.field] = await nextPosition(store, d, orgId);
    const note = (stored: Row) => ({ caller, family: d.name, rowId: String(stored.id), action: 'create' as const, changes: diffRows(d, null, stored), at: now });
    let stored: Row;
    if (firstPass) {
      // the row and its audit entry in one statement, then the listeners, as recordAudit does after an insert
      stored = store.inserted(d, orgId, sealSecrets(services, d, row, input), now);
      const entry = auditEntry(services, note(stored));
      await store.writeAlone(d, { op: 'insert', row: stored }, auditRow(entry));
      await tellListeners(services, store, entry);
    } else {
      stored = await store.insert(d, orgId, sealSecrets(services, d, row, input), now);
      await recordAudit(services, store, note(stored));
    }
    const written: Written = { row: stored, notices, ctx };
    // made before the commit, on the transaction's connection (PGlite has one), and kept with the key
    const result = await answer(services, caller, d, 201, written, store);
    if (key) await takeKey(store, key, result);
    return { ...written, result };
  }

  const written = await conflictOnRace(services, caller, d, () => candidate, () => (alone ? createAlone() : inTransaction(services, createLocked)));
  await afterCommit(services, d, 'create', written);
  return written.result;
}

/**
 * An update: read, checked, then written in one statement with its audit entry if the row is still at the version
 * read (writesAlone; else, or after ALONE_ATTEMPTS lost races, or when it creates the row, under the row's lock in
 * one transaction). `If-Match` is checked against the row as read: a repeat that lost the race reads the row anew.
 */
export async function updateRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const { move, ...input } = parseOrRefuse(services, d, caller, request, 'update');
  const orgId = caller.organization.id;
  const alone = move === undefined && !d.naturalKeyWhile && !uniqueListWrite(d) && (await writesAlone(services, d, { organizationId: orgId, family: d.name, action: 'update' }));
  let candidate: Row | undefined;

  /** The row as it will be stored, checked against `existing`. */
  async function changed(store: FamilyStore, existing: Row, creating: boolean, ctx: HookContext) {
    if (d.archive && existing[d.archive.field]) {
      throw new ApiError('conflict', `This ${d.name} row is archived; archived rows cannot be changed or restored.`, {
        data: project(d, existing, { now: ctx.now, config: services.config }),
      });
    }
    const settled = await settle(services, d, store, { ...existing, ...input }, input, { op: 'update', existing, ctx });
    candidate = settled.row;
    // a unique index refuses a second holder of the natural key, which conflictOnRace answers as the check would
    if (!naturalKeyIndexed(d) && ((d.naturalKey ?? []).some((f) => settled.row[f] !== existing[f]) || (creating && d.kind === 'collection'))) {
      await checkNaturalKey(services, d, store, settled.row, ctx, creating ? undefined : existing.id);
    }
    await checkUniqueAcrossOrganizations(d, store, orgId, settled.row, creating ? undefined : existing);
    if (!ifMatchHolds(request.ifMatch, etagOf(d, existing)) || (creating && d.kind === 'collection' && request.ifMatch !== undefined)) {
      throw preconditionFailed(services, d, d.kind === 'collection' && creating ? null : await withSingletonTimes(store, d, existing), ctx.now);
    }
    return { row: sealSecrets(services, d, settled.row, input), notices: [...settled.notices] };
  }

  /** `undefined`: the row changed under it (go again), or does not exist yet (creating it takes the lock). */
  async function updateAlone(): Promise<Written | null | undefined> {
    const store = readStore(services);
    const now = services.clock.now();
    const ctx = hookContext(services, caller, store, now);
    const existing = await loadRow(services, caller, d, store, request.id);
    if (!existing || existing.created_at === null) return undefined;
    const { row, notices } = await changed(store, existing, false, ctx);
    const changes = diffRows(d, existing, row);
    if (Object.keys(changes).length === 0) return null;
    const values = changedValues(row, changes);
    const entry = auditEntry(services, { caller, family: d.name, rowId: String(existing.id), action: 'update', changes, at: now });
    if ((await store.writeAlone(d, { op: 'update', existing, changes: values, now }, auditRow(entry))) === 'stale') return undefined;
    return { row: store.updated(d, existing, values, now), notices, ctx };
  }

  async function updateLocked(store: FamilyStore): Promise<Written | null> {
    const now = services.clock.now();
    const ctx = hookContext(services, caller, store, now);
    let existing = await loadRow(services, caller, d, store, request.id, true);
    const creating = !existing || existing.created_at === null;
    if (!existing) {
      if (!d.id?.upsert || request.id === undefined) throw notFound(d.name);
      existing = { ...defaultRow(d), ...fieldsFromId(d, request.id), id: request.id };
      existing.id = composeId(d, existing);
    }
    const { row, notices } = await changed(store, existing, creating, ctx);
    if (move && !(await applyMove(store, d, row, move as 'up' | 'down', now))) {
      const message = `is already at the ${move === 'up' ? 'top' : 'bottom'}; nothing moved`;
      if (Object.keys(input).length === 0) throw validationFailed([{ field: 'move', message }]);
      notices.push({ field: 'move', message });
    }
    // after the move: it sets the row's position
    const changes = diffRows(d, existing, row);
    if (Object.keys(changes).length === 0 && !(creating && d.kind === 'collection')) return null;
    if (creating) {
      // a singleton always exists for its users: its first write is an update from the defaults
      const [action, before] = d.kind === 'singleton' ? (['update', existing] as const) : (['create', null] as const);
      const note = (stored: Row) => ({ caller, family: d.name, rowId: String(stored.id), action, changes: diffRows(d, before, stored), at: now });
      if (inBatchFirstPass(services)) {
        // held with its audit entry, as a create of the first pass is (createLocked)
        const stored = store.inserted(d, orgId, row, now);
        const entry = auditEntry(services, note(stored));
        await store.writeAlone(d, { op: 'insert', row: stored }, auditRow(entry));
        await tellListeners(services, store, entry);
        return { row: stored, notices, ctx };
      }
      const stored = await store.insert(d, orgId, row, now);
      await recordAudit(services, store, note(stored));
      return { row: stored, notices, ctx };
    }
    const stored = await store.update(d, existing, changedValues(row, changes), now);
    await recordAudit(services, store, { caller, family: d.name, rowId: String(stored.id), action: 'update', changes, at: now });
    return { row: stored, notices, ctx };
  }

  const written = await conflictOnRace(services, caller, d, () => candidate, async () => {
    for (let attempt = 0; alone && attempt < ALONE_ATTEMPTS; attempt++) {
      const outcome = await updateAlone();
      if (outcome !== undefined) return outcome;
    }
    return inTransaction(services, updateLocked);
  });
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

/**
 * A delete (or archive): alone, one statement with its audit entry if the row is still at the version read; else,
 * or after ALONE_ATTEMPTS lost races, under the row's lock in one transaction.
 */
export async function deleteRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const orgId = caller.organization.id;
  const alone = await writesAlone(services, d, { organizationId: orgId, family: d.name, action: d.archive ? 'archive' : 'delete' });

  /** The row to remove, checked; null when there is nothing to do (already archived). */
  async function removal(store: FamilyStore, lock: boolean) {
    const now = services.clock.now();
    // another person's row of a family the caller sees only their own of is not found (loadRow)
    const existing = d.kind === 'collection' ? await loadRow(services, caller, d, store, request.id ?? '', lock) : await store.get(d, orgId, request.id ?? '', lock);
    if (!existing) throw notFound(d.name);
    if (!ifMatchHolds(request.ifMatch, etagOf(d, existing))) throw preconditionFailed(services, d, existing, now, 'deleted');
    const ctx = hookContext(services, caller, store, now);
    await checkOwnRow(d, [existing], ctx);
    const refused = d.hooks?.validateDelete ? await d.hooks.validateDelete(existing, ctx) : [];
    if (refused.length) throw validationFailed(refused);
    if (d.archive && existing[d.archive.field]) return null;
    const after = d.archive ? store.updated(d, existing, { [d.archive.field]: now }, now) : null;
    const note = { caller, family: d.name, rowId: String(existing.id), action: d.archive ? ('archive' as const) : ('delete' as const), changes: diffRows(d, existing, after), at: now };
    return { existing, after, note, now, written: { row: after ?? existing, notices: [], ctx } satisfies Written };
  }

  /** `undefined`: the row changed under it (go again). */
  async function deleteAlone(): Promise<Written | null | undefined> {
    const store = readStore(services);
    const planned = await removal(store, false);
    if (!planned) return null;
    const { existing, after, note, now } = planned;
    const write = after ? { op: 'update' as const, existing, changes: { [d.archive!.field]: now }, now } : { op: 'delete' as const, existing };
    if ((await store.writeAlone(d, write, auditRow(auditEntry(services, note)))) === 'stale') return undefined;
    return planned.written;
  }

  async function deleteLocked(store: FamilyStore): Promise<Written | null> {
    const planned = await removal(store, true);
    if (!planned) return null;
    const { existing, after, note, now } = planned;
    if (after) await store.update(d, existing, { [d.archive!.field]: now }, now);
    else await store.remove(d, existing);
    await recordAudit(services, store, note);
    return planned.written;
  }

  let written: Written | null | undefined;
  for (let attempt = 0; alone && written === undefined && attempt < ALONE_ATTEMPTS; attempt++) written = await deleteAlone();
  if (written === undefined) written = await inTransaction(services, deleteLocked);
  if (written) await afterCommit(services, d, 'delete', written);
  return { status: 204 };
}
