/**
 * The console runs the service's operations, never its own SQL writes: a domain operation by name (the list the
 * modules registered), through engine/operations/domain.ts, with the signed-in person as the caller — so plan,
 * role, validation, idempotency and audit are exactly REST's and MCP's.
 */
import type { Caller } from '../../engine/auth/caller.ts';
import { executeDomain } from '../../engine/operations/domain.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';

export type Json = Record<string, any>;

export function operation(services: Services, name: string): DomainOperation {
  const found = services.domain.find((op) => op.name === name);
  if (!found) throw new Error(`the console needs the ${name} operation, which no module registers`);
  return found;
}

/** Runs the operation and answers its JSON. */
export async function run(services: Services, caller: Caller, name: string, input: Json, idempotencyKey?: string): Promise<Json> {
  const result = await executeDomain(services, caller, operation(services, name), input, idempotencyKey);
  if (!('json' in result)) throw new Error(`${name} answered a document, not JSON`);
  return result.json;
}

export interface ListPage {
  data: Json[];
  /** the next page's cursor when the operation pages by cursor; null on the last page */
  nextCursor: string | null;
  /** more rows exist (the operations that answer `truncated` instead of a cursor) */
  more: boolean;
}

/**
 * One page of a list operation: `cursor` is passed on only to operations whose input takes one, and the answer's
 * `next_cursor` read when present, so the console pages as the API does whichever of the two an operation has.
 */
export async function listPage(services: Services, caller: Caller, name: string, input: Json, cursor: string | undefined): Promise<ListPage> {
  const op = operation(services, name);
  const takesCursor = Boolean((op.input as { properties?: Record<string, unknown> }).properties?.cursor);
  const answer = await run(services, caller, name, { ...input, ...(takesCursor && cursor ? { cursor } : {}) });
  const nextCursor = typeof answer.next_cursor === 'string' ? answer.next_cursor : null;
  return { data: Array.isArray(answer.data) ? answer.data : [], nextCursor, more: nextCursor !== null || answer.truncated === true };
}

/** Query-string fields that are non-empty strings (a filter form sends every field, blank ones too). */
export function filters(query: Record<string, unknown>, names: readonly string[]): Json {
  const out: Json = {};
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string' && value.trim() !== '') out[name] = value.trim();
  }
  return out;
}
