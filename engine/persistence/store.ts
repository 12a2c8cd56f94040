/**
 * Row access for family tables. Rows travel as plain objects (`Row`): field values plus `id`,
 * `created_at`, `updated_at` and `row_version`. Every query is scoped to one organization.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { planFields } from '../fields.ts';
import { familyEntity } from './entities.ts';

const SYSTEM_COLUMNS = ['id', 'organization_id', 'row_version', 'created_at', 'updated_at'];

function toRow(family: FamilyDescriptor, entity: Record<string, unknown>): Row {
  const row: Row = {};
  for (const column of [...SYSTEM_COLUMNS, ...planFields(family).stored]) row[column] = entity[column] ?? null;
  return row;
}

export interface ListOptions {
  where?: Row;
  orderBy?: Record<string, 'asc' | 'desc'>;
  limit?: number;
}

export class FamilyStore {
  readonly em: EntityManager;
  constructor(em: EntityManager) {
    this.em = em;
  }

  async list(family: FamilyDescriptor, organizationId: string, options: ListOptions = {}): Promise<Row[]> {
    // creation order breaks ties, then the id, so lists are stable
    const orderBy: Record<string, 'asc' | 'desc'> = { ...options.orderBy };
    orderBy.created_at ??= 'asc';
    orderBy.id ??= 'asc';
    const found = await this.em.find(familyEntity(family), { ...options.where, organization_id: organizationId } as never, {
      orderBy: orderBy as never,
      limit: options.limit,
      disableIdentityMap: true,
    });
    return found.map((e) => toRow(family, e as Record<string, unknown>));
  }

  async get(family: FamilyDescriptor, organizationId: string, id: string, lock = false): Promise<Row | null> {
    const found = await this.em.findOne(familyEntity(family), { id, organization_id: organizationId } as never, {
      disableIdentityMap: true,
      ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
    });
    return found ? toRow(family, found as Record<string, unknown>) : null;
  }

  async insert(family: FamilyDescriptor, organizationId: string, values: Row, now: Date): Promise<Row> {
    const row = { ...values, organization_id: organizationId, row_version: 1, created_at: now, updated_at: now };
    await this.em.insert(familyEntity(family), row as never);
    return toRow(family, row);
  }

  async update(family: FamilyDescriptor, existing: Row, changes: Row, now: Date): Promise<Row> {
    const next = { ...changes, row_version: Number(existing.row_version) + 1, updated_at: now };
    await this.em.nativeUpdate(familyEntity(family), { id: existing.id, organization_id: existing.organization_id } as never, next as never);
    return { ...existing, ...next };
  }

  async remove(family: FamilyDescriptor, existing: Row): Promise<void> {
    await this.em.nativeDelete(familyEntity(family), { id: existing.id, organization_id: existing.organization_id } as never);
  }

  /** A transaction-scoped lock per organization and family, for natural keys no index can hold. */
  async lockFamily(family: FamilyDescriptor, organizationId: string): Promise<void> {
    await this.em.execute('select pg_advisory_xact_lock(hashtext(?))', [`${organizationId}:${family.name}`]);
  }
}
