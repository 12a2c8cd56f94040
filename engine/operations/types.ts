import type { OperationName, Row } from '../descriptor.ts';
import type { FieldError } from '../errors.ts';

export interface OperationRequest {
  family: string;
  op: OperationName;
  id?: string;
  body?: unknown;
  /** the `If-Match` header as sent */
  ifMatch?: string;
  /** lists: include archived rows */
  includeArchived?: boolean;
  /** lists: the page size and the previous page's `next_cursor`, as sent (checked by the list: 422 naming them) */
  limit?: unknown;
  cursor?: unknown;
  /** the `Idempotency-Key` header (MCP: `idempotency_key`) as sent; only creates use it */
  idempotencyKey?: unknown;
}

/** Something the caller should know beside a successful answer (an unlinked id, a move that moved nothing). */
export type Notice = FieldError;

export interface OperationResult {
  status: 200 | 201 | 204;
  data?: Row;
  /** a list page; `next_cursor` is null on the last page */
  list?: { data: Row[]; next_cursor: string | null };
  etag?: string;
  /** the row id, for the transport's Location header */
  id?: string;
  notices?: Notice[];
  /** the stored answer of an earlier request with the same idempotency key (`Idempotent-Replayed: true`) */
  replayed?: true;
}
