/**
 * The per-credential rate limit of the configuration API and the agent-tool endpoint: one step both transports
 * run once the caller is known (after authentication, before the body is used), so a request without a valid
 * credential counts against no one. The counter is keyed by the credential's kind and id, never its secret. The
 * store (memory, a shared PostgreSQL table or Redis) is given by the composition root; the engine sees only
 * `CredentialLimiter`.
 *
 * Every answer to a counted request carries the fields of "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers; the current revision is -11, May 2026, and the syntax is that of -08
 * onwards): each a Structured Field (RFC 9651) List of one Item, the policy's name as a String with Integer
 * parameters (`q` quota, `w` window; `r` remaining, `t` seconds to reset) —
 *   RateLimit-Policy: "default";q=<requests per window>;w=<window in seconds>
 *   RateLimit: "default";r=<remaining>;t=<seconds until the window resets>
 * Over the limit: 429 `rate_limited` with `Retry-After` (seconds) and `retry_after` in the body.
 *
 * A request is counted when it is admitted, before its outcome is known: a 503 while the database is away is
 * counted like any other answer (no refund: during an outage the shared store is often the same database, and a
 * client retrying after Retry-After stays far below the limit).
 */
import type { Context } from 'koa';
import type { Caller } from '../auth/caller.ts';
import { ApiError } from '../errors.ts';

/** One request counted: what is left of the window, and the wait when nothing is. */
export interface RequestCount {
  remaining: number;
  /** seconds until the window starts afresh */
  resetSeconds: number;
  /** null when the request is allowed; otherwise the seconds to wait */
  retryAfter: number | null;
}

export interface CredentialLimiter {
  /** requests allowed per credential in one window */
  readonly points: number;
  /** the window, in seconds */
  readonly windowSeconds: number;
  take(key: string): Promise<RequestCount>;
}

/**
 * A limit on failures alone (wrong operator tokens, per client address): `take` counts one failure; `waiting` answers
 * the seconds left when the key is over its limit (null otherwise) without counting, so once an address has failed
 * too often every request from it waits, a right guess included.
 */
export interface FailureLimiter extends CredentialLimiter {
  waiting(key: string): Promise<number | null>;
}

/**
 * Numbers kept per key in the same store (memory, PostgreSQL or Redis), shared by every instance using it: the
 * console's failed sign-ins. Each number is forgotten a fixed time after it was first added to or last set.
 */
export interface CountStore {
  /** 0 for a key never counted (or forgotten) */
  get(key: string): Promise<number>;
  /** adds one; answers the new count */
  add(key: string): Promise<number>;
  set(key: string, value: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * Counts the caller's request and sets the fields on the answer; returns the 429 to give when over the limit
 * (the transport chooses how to give it). No limiter (the limit is off): nothing counted, no fields.
 */
export async function countRequest(ctx: Context, limiter: CredentialLimiter | undefined, caller: Caller): Promise<ApiError | null> {
  if (!limiter) return null;
  const count = await limiter.take(`${caller.credential.kind}:${caller.credential.id}`);
  ctx.set('RateLimit-Policy', `"default";q=${limiter.points};w=${limiter.windowSeconds}`);
  ctx.set('RateLimit', `"default";r=${count.remaining};t=${count.resetSeconds}`);
  if (count.retryAfter === null) return null;
  return new ApiError('rate_limited', `Too many requests with this credential (${limiter.points} per ${limiter.windowSeconds} seconds); retry in ${count.retryAfter} seconds.`, {
    headers: { 'Retry-After': String(count.retryAfter) },
    extra: { retry_after: count.retryAfter },
  });
}
