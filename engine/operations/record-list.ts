/**
 * The lists of what the service records (cards, deployments, deliveries, chat messages, …): one table, newest first,
 * a few filters, paged like every other list (page.ts). A list declares its table, order and limits once
 * (`RecordList`); its operation turns its input into filters and its records into answers, and `recordPage` does the
 * rest: the organization scope, the filters bound into the cursor, the keyset page and the answer's shape.
 */
import Type, { type TSchema } from 'typebox';
import { validationFailed } from '../errors.ts';
import type { Services } from '../services.ts';
import { readStore } from './context.ts';
import { listAnswer, NEXT_CURSOR, pageOf, type KeyColumn, type PageLimits } from './page.ts';

/** What these lists took before they were paged (1..200, default 50): the first page a client sees is unchanged. */
export const RECORD_LIST_LIMITS: PageLimits = { default: 50, max: 200 };

/** Newest first by insertion order: `seq` is unique on every table these lists read. */
export const NEWEST_FIRST: readonly KeyColumn[] = [{ column: 'seq', direction: 'desc' }];

export interface RecordList {
  /** names the list in its cursors (a cursor of one list never reads on another) */
  name: string;
  /** the select list; it must answer the key columns under their own names */
  select: string;
  /** the table, with its joins when it has some */
  from: string;
  /** the organization column, qualified when `from` joins */
  organizationColumn?: string;
  /** the order; the last column must be unique */
  keys: readonly KeyColumn[];
  limits: PageLimits;
}

/** One filter: the input field it came from and its value as applied (bound into the cursor), and its condition. */
export interface ListFilter {
  field: string;
  value: unknown;
  sql: string;
  params: unknown[];
}

/** `column = ?` for each input field sent as a string (`columns`: input field → column). */
export function equalTo(input: Record<string, unknown>, columns: Record<string, string>): ListFilter[] {
  return Object.entries(columns)
    .filter(([field]) => typeof input[field] === 'string')
    .map(([field, column]) => ({ field, value: input[field], sql: `${column} = ?`, params: [input[field]] }));
}

/** `column >= ?` when `input[field]` is sent: an ISO 8601 time (422 naming the field otherwise), bound as read. */
export function atOrAfter(input: Record<string, unknown>, field: string, column: string): ListFilter[] {
  if (typeof input[field] !== 'string') return [];
  const at = new Date(input[field]);
  if (Number.isNaN(at.getTime())) throw validationFailed([{ field, message: 'must be an ISO 8601 date-time' }]);
  return [{ field, value: at.toISOString(), sql: `${column} >= ?`, params: [at] }];
}

/** One page of a record list for `organizationId`: the records shaped by `view`, `next_cursor` and `truncated`. */
export async function recordPage(
  services: Services,
  list: RecordList,
  organizationId: string,
  filters: readonly ListFilter[],
  input: { limit?: unknown; cursor?: unknown },
  view: (records: Record<string, unknown>[]) => unknown[] | Promise<unknown[]>,
) {
  const scope = { organizationId, list: list.name, keys: list.keys, filters: Object.fromEntries(filters.map((f) => [f.field, f.value])) };
  const page = await pageOf(services, readStore(services).execute, scope, {
    select: list.select,
    from: list.from,
    where: [`${list.organizationColumn ?? 'organization_id'} = ?`, ...filters.map((f) => f.sql)].join(' and '),
    params: [organizationId, ...filters.flatMap((f) => f.params)],
  }, input, list.limits);
  return listAnswer({ data: await view(page.records), next_cursor: page.next_cursor });
}

/** The answer schema of a record list: its rows, `next_cursor` and `truncated`. */
export function recordPageSchema(row: TSchema) {
  return Type.Object({
    data: Type.Array(row),
    next_cursor: NEXT_CURSOR,
    truncated: Type.Boolean({ description: 'true when a next page exists (`next_cursor` is not null)' }),
  });
}
