/** The audit entries of the board's writes by an API caller (family `cards`); the tickets webhook writes none. */
import type { Caller } from '../../engine/auth/caller.ts';
import { recordAudit } from '../../engine/operations/audit.ts';
import type { Change } from '../../engine/operations/audit-entry.ts';
import type { Services } from '../../engine/services.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';

export function auditCardUpdate(services: Services, store: FamilyStore, caller: Caller, cardId: string, changes: Record<string, Change>, at: Date): Promise<void> {
  return recordAudit(services, store, { caller, family: 'cards', rowId: cardId, action: 'update', changes, at });
}

export function auditComment(services: Services, store: FamilyStore, caller: Caller, cardId: string, commentId: string, at: Date): Promise<void> {
  return recordAudit(services, store, { caller, family: 'cards', rowId: cardId, action: 'action:add_card_comment', changes: { comment: { before: null, after: commentId } }, at });
}
