/** One audit entry per successful write, in the write's own transaction; secrets appear only as markers. */
import { randomUUID } from 'node:crypto';
import type { FamilyStore, InsertedRow } from '../persistence/store.ts';
import { prepared } from '../persistence/sql.ts';
import type { Caller } from '../auth/caller.ts';
import type { FamilyDescriptor, Row } from '../descriptor.ts';
import { SecretBox } from '../crypto.ts';
import { isWriteOnly, planFields, unwrapNullable } from '../fields.ts';
import { maskCredentialFields } from '../credential-url.ts';
import { AuditEntryEntity } from '../persistence/entities.ts';
import { currentChangeId, inBatchNow } from './context.ts';
import { canonical } from './project.ts';
import type { AuditFacts, Services } from '../services.ts';
import type { AuditAction, AuditEntry, Change } from './audit-entry.ts';

const AUDIT_TABLE = AuditEntryEntity.meta.tableName;

const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : (v ?? null));

/** The stored fields that differ between two rows, secrets as markers and credential URLs masked. */
export function diffRows(d: FamilyDescriptor, before: Row | null, after: Row | null): Record<string, Change> {
  const changes: Record<string, Change> = {};
  for (const name of planFields(d).stored) {
    const a = plain(before?.[name]);
    const b = plain(after?.[name]);
    if (isWriteOnly(d.fields[name]!)) {
      const [da, db] = [a, b].map((v) => (typeof v === 'string' ? SecretBox.digestOf(v) : null));
      if (da !== db) changes[name] = da === null ? '(set)' : db === null ? '(cleared)' : '(changed)';
    } else if (canonical(a) !== canonical(b)) {
      // a URL that carries a credential is kept as where it goes, as an export keeps it: the log outlives the secret
      const schema = unwrapNullable(d.fields[name]!).inner;
      changes[name] = { before: maskCredentialFields(schema, a), after: maskCredentialFields(schema, b) };
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

/** What a write says of itself: who, what, which row, what changed. */
export interface AuditNote {
  caller: Caller;
  family: string;
  rowId: string | null;
  action: AuditAction;
  changes: Record<string, Change>;
  at: Date;
}

export function auditEntry(services: Services, note: AuditNote): AuditEntry {
  return {
    id: randomUUID(),
    organizationId: note.caller.organization.id,
    at: note.at,
    actor: actorOf(note.caller),
    transport: note.caller.transport,
    family: note.family,
    rowId: note.rowId,
    action: note.action,
    changes: note.changes,
    changeId: currentChangeId(services),
  };
}

const AUDIT_COLUMNS = ['id', 'organization_id', 'at', 'actor_kind', 'actor_id', 'transport', 'family', 'row_id', 'action', 'changes', 'change_id'];

/** The entry as a row of the audit table, for a statement that writes it with its change (store.writeAlone). */
export function auditRow(entry: AuditEntry): InsertedRow {
  return {
    table: AUDIT_TABLE,
    columns: AUDIT_COLUMNS,
    params: [entry.id, entry.organizationId, entry.at, entry.actor.kind, entry.actor.id, entry.transport, entry.family, entry.rowId, entry.action, JSON.stringify(entry.changes), entry.changeId],
  };
}

/** Writes the entry in the write's transaction (`store`), then tells the audit listeners. */
export async function recordAudit(services: Services, store: FamilyStore, note: AuditNote): Promise<void> {
  const written = auditEntry(services, note);
  const { table, columns, params } = auditRow(written);
  // parameter types come from the columns (`changes` is jsonb), as in the statement of a write alone
  await store.execute(prepared(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`), params);
  await tellListeners(services, store, written);
}

/** Tells the audit listeners of an entry written in `store`'s transaction (recordAudit, or with its row: store.writeAlone). */
export async function tellListeners(services: Services, store: FamilyStore, entry: AuditEntry): Promise<void> {
  for (const listener of services.auditListeners) await listener.record(services, store, entry);
}

/**
 * Whether a write may go without a transaction around it (one statement: the row, its audit entry and what else
 * the statement carries): not inside a batch (which is one transaction), not of rows other writes consult (the
 * row it writes may itself concern a listener: a rule announcing every change announces its own creation), and
 * no audit listener is concerned.
 */
export async function writesAlone(services: Services, d: FamilyDescriptor, facts: AuditFacts): Promise<boolean> {
  if (inBatchNow(services) || d.cachedRows) return false;
  for (const listener of services.auditListeners) if (await listener.concerns(services, facts)) return false;
  return true;
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
    change_id: entry.change_id ?? null,
  };
}
