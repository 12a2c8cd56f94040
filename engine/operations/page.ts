/**
 * Pages of a list: `limit` and an opaque `cursor` in, `next_cursor` out (null on the last page). Family lists use
 * it through the store, any other list over a table through `pageOf` (a keyset page: persistence/keyset.ts).
 *
 * The cursor carries the last answered row's key values, signed with the deployment's secret key over the list it
 * was issued for (organization, list, filters, order). A cursor that was altered, made up, or issued for another
 * list, filter or organization is refused (422 naming `cursor`) instead of answering some other page; and every
 * page query stays scoped to the caller's organization whatever a cursor holds, so none can widen what is seen.
 */
import Type, { type TSchema } from 'typebox';
import { constantTimeEqual } from '../crypto.ts';
import { validationFailed } from '../errors.ts';
import { orderSql, selectPage, type KeyColumn, type PageQuery, type PageWindow } from '../persistence/keyset.ts';
import type { SqlExecutor } from '../persistence/sql.ts';
import { checkValue } from '../validation.ts';
import type { Services } from '../services.ts';

export type { KeyColumn } from '../persistence/keyset.ts';

/** The most rows one page of any list holds. */
export const PAGE_MAX = 500;
/** A cursor is a few key values; anything much longer was not issued here. */
const CURSOR_MAX = 2048;

/** A list's documented default `limit` and its maximum. */
export interface PageLimits {
  default: number;
  max: number;
}

const limitSchemas = new Map<string, TSchema>();

/** One schema object per (default, max): the validator compiled for it is kept with it. */
export function limitSchema(limits: PageLimits): TSchema {
  const name = `${limits.default}/${limits.max}`;
  let schema = limitSchemas.get(name);
  if (!schema) {
    schema = Type.Integer({ minimum: 1, maximum: limits.max, default: limits.default, description: `how many rows one page holds: 1 to ${limits.max}, default ${limits.default}` });
    limitSchemas.set(name, schema);
  }
  return schema;
}

export const CURSOR = Type.String({
  minLength: 1,
  maxLength: CURSOR_MAX,
  description: 'the `next_cursor` of the previous page, as answered (opaque); leave it out for the first page. Send the other arguments unchanged: a cursor only reads on the list it came from',
});

export const NEXT_CURSOR = Type.Union([Type.String(), Type.Null()], {
  description: 'pass it as `cursor` to read the next page; null on the last page. Rows created or deleted meanwhile never make a row skipped or repeated',
});

/** The input fields every paged list takes, beside its own filters. */
export function pageFields(limits: PageLimits): { limit: TSchema; cursor: TSchema } {
  return { limit: Type.Optional(limitSchema(limits)), cursor: Type.Optional(CURSOR) };
}

/** What a cursor is bound to: one organization's one list, with its filters, in one order. */
export interface PageScope {
  organizationId: string;
  /** names the list (a family, `audit_log`, …) */
  list: string;
  /** the filters that shape the list (a cursor read under other filters is refused) */
  filters?: Record<string, unknown>;
  keys: readonly KeyColumn[];
}

const PURPOSE = 'page cursor';
const bound = (scope: PageScope, payload: string) => [scope.organizationId, scope.list, JSON.stringify(scope.filters ?? {}), orderSql(scope.keys), payload].join('\n');

const REFUSED = 'is not a cursor this list answered (altered, cut, or from another list, filter or organization); start again without it';

/** The page asked for: the limit (default applied) and the row to start after; 422 naming `limit` or `cursor`. */
export function readPage(services: Services, scope: PageScope, input: { limit?: unknown; cursor?: unknown }, limits: PageLimits): PageWindow {
  const errors = [
    ...(input.limit === undefined ? [] : checkValue('limit', limitSchema(limits), input.limit)),
    ...(input.cursor === undefined ? [] : checkValue('cursor', CURSOR, input.cursor)),
  ];
  if (errors.length) throw validationFailed(errors);
  const limit = input.limit === undefined ? limits.default : (input.limit as number);
  return { limit, after: input.cursor === undefined ? null : openCursor(services, scope, input.cursor as string) };
}

function openCursor(services: Services, scope: PageScope, cursor: string): unknown[] {
  const refuse = () => validationFailed([{ field: 'cursor', message: REFUSED }]);
  const [payload, mac, ...rest] = cursor.split('.');
  if (!payload || !mac || rest.length) throw refuse();
  if (!constantTimeEqual(mac, services.secrets.sign(PURPOSE, bound(scope, payload)))) throw refuse();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(values) || values.length !== scope.keys.length) throw refuse();
  return values;
}

/** The cursor of the page after the one answered (null when it was the last). */
export function nextCursor(services: Services, scope: PageScope, next: readonly unknown[] | null): string | null {
  if (!next) return null;
  const payload = Buffer.from(JSON.stringify(next)).toString('base64url');
  return `${payload}.${services.secrets.sign(PURPOSE, bound(scope, payload))}`;
}

/**
 * One page of a list over a table: `input`'s limit and cursor read (and checked), the records, and the next cursor.
 * `query.where` must hold the organization scope; `query.keys` must end in a unique column and match `scope.keys`.
 */
export async function pageOf(
  services: Services,
  execute: SqlExecutor,
  scope: PageScope,
  query: Omit<PageQuery, 'keys'>,
  input: { limit?: unknown; cursor?: unknown },
  limits: PageLimits,
): Promise<{ records: Record<string, unknown>[]; next_cursor: string | null }> {
  const window = readPage(services, scope, input, limits);
  const page = await selectPage(execute, { ...query, keys: scope.keys }, window);
  return { records: page.records, next_cursor: nextCursor(services, scope, page.next) };
}

/** A list page as both transports answer it; `truncated` (what lists answered before pages) says a next page exists. */
export function listAnswer(list: { data: unknown[]; next_cursor: string | null }): { data: unknown[]; next_cursor: string | null; truncated: boolean } {
  return { data: list.data, next_cursor: list.next_cursor, truncated: list.next_cursor !== null };
}
