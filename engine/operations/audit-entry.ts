/** An audit entry's shape, apart from the code that writes it, so the listeners' contract (engine/services.ts) can name it without importing the writer. */

export type AuditAction = 'create' | 'update' | 'delete' | 'archive' | `action:${string}`;

export type Change = { before: unknown; after: unknown } | '(set)' | '(changed)' | '(cleared)';

/** An audit entry as written, secrets already markers: what audit listeners receive. */
export interface AuditEntry {
  id: string;
  organizationId: string;
  at: Date;
  actor: { kind: string; id: string };
  transport: string;
  family: string;
  rowId: string | null;
  action: AuditAction;
  changes: Record<string, Change>;
  /** the change id of the batch apply that wrote it; null for a single write */
  changeId: string | null;
}
