/** List and read: no transaction, except a singleton that is stored on its first read. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Caller } from '../auth/caller.ts';
import { DEFAULT_LIST_LIMIT, type FamilyDescriptor, type Row } from '../descriptor.ts';
import { notFound } from '../errors.ts';
import { unwrapNullable } from '../fields.ts';
import type { FamilyStore } from '../persistence/store.ts';
import { recordAudit, diffRows } from './audit.ts';
import { canWrite } from './authorize.ts';
import { inTransaction, readStore, userEmail } from './context.ts';
import { ownRowVisible, seesOwnRowsOnly } from './checks.ts';
import { nextCursor, PAGE_MAX, readPage, type KeyColumn, type PageLimits, type PageScope } from './page.ts';
import { defaultRow, etagOf, project, referenceLoader } from './project.ts';
import type { Services } from '../services.ts';
import type { OperationRequest, OperationResult } from './types.ts';

/** A family's list order: its declared order (or its public position), then creation, then the id (unique). */
export function listKeys(d: FamilyDescriptor): KeyColumn[] {
  const keys: KeyColumn[] = (d.order ?? (d.positioned ? [{ field: d.positioned.field, direction: 'asc' as const }] : [])).map((o) => ({ column: o.field, direction: o.direction }));
  for (const column of ['created_at', 'id']) if (!keys.some((k) => k.column === column)) keys.push({ column, direction: 'asc' });
  return keys;
}

export const listLimits = (d: FamilyDescriptor): PageLimits => ({ default: Math.min(d.defaultLimit ?? DEFAULT_LIST_LIMIT, PAGE_MAX), max: PAGE_MAX });

export async function listRows(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const archived = Boolean(d.archive && request.includeArchived);
  const where: Row = d.archive && !archived ? { [d.archive.field]: null } : {};
  const store = readStore(services);
  // a person who sees their own rows only lists those (no person: none)
  if (seesOwnRowsOnly(d, caller)) where[d.ownRows!.field] = (await userEmail(store, caller.credential.userId)) ?? '';
  const scope: PageScope = { organizationId: caller.organization.id, list: d.name, filters: { include_archived: archived }, keys: listKeys(d) };
  const window = readPage(services, scope, { limit: request.limit, cursor: request.cursor }, listLimits(d));
  const page = await store.page(d, caller.organization.id, { where, keys: scope.keys, window });
  const referenced = await referenceLoader(services.registry, store, d, caller.organization.id, page.rows);
  const ctx = { now: services.clock.now(), config: services.config, referenced, maskCredentials: !canWrite(caller, d) };
  const next = nextCursor(services, scope, page.next);
  return { status: 200, list: { data: page.rows.map((r) => project(d, r, ctx)), next_cursor: next } };
}

/** The stored row, or (singletons) the defaults; a singleton that persists on first read is stored now. */
export async function loadRow(services: Services, caller: Caller, d: FamilyDescriptor, store: FamilyStore, id: string | undefined, lock = false): Promise<Row | null> {
  const orgId = caller.organization.id;
  if (d.kind === 'collection') {
    const row = await store.get(d, orgId, id ?? '', lock);
    // another person's row of a family the caller sees only their own of does not exist for them
    return row && (await ownRowVisible(d, caller, store, row)) ? row : null;
  }
  return (await store.get(d, orgId, orgId, lock)) ?? { ...defaultRow(d), id: orgId };
}

const SYSTEM_TIMES = ['created_at', 'updated_at'] as const;

/**
 * A singleton before its first write: its `created_at` and `updated_at` fields whose schema does not allow null
 * answer the organization's creation time (its settings have been in force, as their defaults, since then). A
 * nullable one answers null, as its descriptor documents. The row itself keeps null: that is how the write path
 * knows the first write creates it. `store` is the one of the running transaction, if any (PGlite has one connection).
 */
export async function withSingletonTimes(store: FamilyStore, d: FamilyDescriptor, row: Row): Promise<Row> {
  if (d.kind !== 'singleton' || row.created_at !== null) return row;
  const times = SYSTEM_TIMES.filter((name) => Object.hasOwn(d.fields, name) && !unwrapNullable(d.fields[name]!).nullable);
  if (times.length === 0) return row;
  const [organization] = await store.execute('select created_at from organizations where id = ?', [row.id]);
  if (!organization) return row;
  const created = new Date(organization.created_at as string | Date);
  return { ...row, ...Object.fromEntries(times.map((name) => [name, created])) };
}

async function persistFirstRead(services: Services, caller: Caller, d: FamilyDescriptor): Promise<Row> {
  const orgId = caller.organization.id;
  try {
    return await inTransaction(services, async (store) => {
      const now = services.clock.now();
      const values: Row = { ...defaultRow(d), id: orgId };
      for (const [field, make] of Object.entries(d.generated ?? {})) values[field] = make();
      const row = await store.insert(d, orgId, values, now);
      await recordAudit(services, store, { caller, family: d.name, rowId: orgId, action: 'create', changes: diffRows(d, null, row), at: now });
      return row;
    });
  } catch (error) {
    // Two first reads raced: the other one stored the row; answer what it stored.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return (await readStore(services).get(d, orgId, orgId))!;
  }
}

export async function readRow(services: Services, caller: Caller, d: FamilyDescriptor, request: OperationRequest): Promise<OperationResult> {
  const store = readStore(services);
  let row = await loadRow(services, caller, d, store, request.id);
  if (!row) throw notFound(d.name);
  if (d.kind === 'singleton' && d.persistOnFirstRead && row.created_at === null) row = await persistFirstRead(services, caller, d);
  row = await withSingletonTimes(store, d, row);
  const referenced = await referenceLoader(services.registry, store, d, caller.organization.id, [row]);
  const ctx = { now: services.clock.now(), config: services.config, referenced, maskCredentials: !canWrite(caller, d) };
  return { status: 200, data: project(d, row, ctx), etag: etagOf(d, row), id: String(row.id) };
}
