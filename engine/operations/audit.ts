/** One audit entry per successful write, in the write's own transaction; secrets appear only as markers. */
import { randomUUID } from 'node:crypto';
import type { FamilyStore } from '../persistence/store.ts';
import type { Caller } from '../auth/caller.ts';
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { SecretBox } from '../crypto.ts';
import { isWriteOnly, planFields } from '../fields.ts';
import { AuditEntryEntity } from '../persistence/entities.ts';
import { canonical } from './project.ts';
import type { Services } from '../services.ts';
import type { AuditAction, AuditEntry, Change } from './audit-entry.ts';

const AUDIT_TABLE = AuditEntryEntity.meta.tableName;

const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : (v ?? null));

/** The stored fields that differ between two rows, secrets as markers. */
export function diffRows(d: FamilyDescriptor, before: Row | null, after: Row | null): Record<string, Change> {
  const changes: Record<string, Change> = {};
  for (const name of planFields(d).stored) {
    const a = plain(before?.[name]);
    const b = plain(after?.[name]);
    if (isWriteOnly(d.fields[name]!)) {
      const [da, db] = [a, b].map((v) => (typeof v === 'string' ? SecretBox.digestOf(v) : null));
      if (da !== db) changes[name] = da === null ? '(set)' : db === null ? '(cleared)' : '(changed)';
    } else if (canonical(a) !== canonical(b)) {
      changes[name] = { before: a, after: b };
    }
  }
  return changes;
}

/**
 * Who a caller is, as audit entries (and what records a person's action elsewhere) name it: a person (personal
 * token, console session) is named by their user id, a key by its own.
 */
export function actorOf(caller: Caller): { kind: string; id: string } {
  return { kind: caller.credential.kind, id: caller.credential.userId ?? caller.credential.id };
}

export async function recordAudit(
  services: Services,
  store: FamilyStore,
  entry: { caller: Caller; family: string; rowId: string | null; action: AuditAction; changes: Record<string, Change>; at: Date },
): Promise<void> {
  const { caller } = entry;
  const written: AuditEntry = {
    id: randomUUID(),
    organizationId: caller.organization.id,
    at: entry.at,
    actor: actorOf(caller),
    transport: caller.transport,
    family: entry.family,
    rowId: entry.rowId,
    action: entry.action,
    changes: entry.changes,
  };
  await store.execute(
    `insert into ${AUDIT_TABLE} (id, organization_id, at, actor_kind, actor_id, transport, family, row_id, action, changes) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    [written.id, written.organizationId, written.at, written.actor.kind, written.actor.id, written.transport, written.family, written.rowId, written.action, JSON.stringify(written.changes)],
  );
  for (const listener of services.auditListeners) await listener(services, store, written);
}

export function auditView(entry: Record<string, unknown>): Row {
  return {
    id: entry.id,
    at: plain(entry.at),
    actor: { kind: entry.actor_kind, id: entry.actor_id },
    transport: entry.transport,
    family: entry.family,
    row_id: entry.row_id,
    action: entry.action,
    changes: entry.changes,
  };
}
