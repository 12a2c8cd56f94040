/**
 * Whether an error says the database could not be reached, as opposed to refusing a statement: the one place that
 * knows how `pg`, its pool, Kysely and MikroORM report a connection that failed, broke or was shut down. MikroORM's
 * DriverException copies the driver error's own properties (its `code`); pg-boss re-emits errors as plain objects
 * with `code` and `message`; Node's socket errors carry `code`, or sit in an AggregateError's `errors`.
 */

/** Socket errors of a connection that could not be opened or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that cannot serve: class 08 (connection exception), 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, in recovery), 53300 too_many_connections.
 */
const SERVER_CODES = /^(08...|57P0[123]|53300)$/;

/** What `pg` and `pg-pool` say (without a code) when a connection ends under a query or cannot be had in time. */
const MESSAGES = [
  /^Connection terminated/, // unexpectedly, due to connection timeout, …
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
];

export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}
