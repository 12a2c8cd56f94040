/**
 * The console runs the service's operations, never its own SQL writes: a domain operation by its imported handle
 * (the operation object its module exports, never its name as a string), through engine/operations/domain.ts, with
 * the signed-in person as the caller — so plan, role, validation, idempotency and audit are exactly REST's and MCP's.
 */
import type { Static, TSchema } from 'typebox';
import type { Caller } from '../../engine/auth/caller.ts';
import { executeDomain } from '../../engine/operations/domain.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';

export type Json = Record<string, any>;

/**
 * What the console may send: the operation's own input fields (a misspelt one does not compile), each holding what
 * the person typed — the operation validates it and refuses with the field named, as it does for REST and MCP.
 */
export type InputOf<Op extends DomainOperation> = { [K in keyof Static<Op['input']>]?: unknown };
/** What the operation answers, typed from its answer schema; an operation declared without its schema's type answers Json. */
export type AnswerOf<Op extends DomainOperation> = Op['answer'] extends { schema: infer S extends TSchema } ? (unknown extends Static<S> ? Json : Static<S> & Json) : Json;

/** The operation as the modules registered it: one the service does not serve is a mistake of the composition. */
function registered<Op extends DomainOperation>(services: Services, op: Op): Op {
  if (!services.domain.includes(op)) throw new Error(`the console needs the ${op.name} operation, which no module registers`);
  return op;
}

/** Runs the operation and answers its JSON. */
export async function run<Op extends DomainOperation>(services: Services, caller: Caller, op: Op, input: InputOf<Op>, idempotencyKey?: string): Promise<AnswerOf<Op>> {
  const result = await executeDomain(services, caller, registered(services, op), input, idempotencyKey);
  if (!('json' in result)) throw new Error(`${op.name} answered a document, not JSON`);
  return result.json as AnswerOf<Op>;
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
export async function listPage<Op extends DomainOperation>(services: Services, caller: Caller, op: Op, input: InputOf<Op>, cursor: string | undefined): Promise<ListPage> {
  const takesCursor = Boolean((op.input as { properties?: Record<string, unknown> }).properties?.cursor);
  const answer: Json = await run(services, caller, op, { ...input, ...(takesCursor && cursor ? { cursor } : {}) });
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
