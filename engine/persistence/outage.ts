/**
 * The database's reachability as this process last saw it, so an outage is logged once when it starts and once
 * when it ends (not a line per request, job poll or reconnection attempt), and so every transport answers it the
 * same way: 503 `unavailable` with `Retry-After`. Nothing here stops requests from trying the database: each one
 * still does, so service resumes by itself with the first connection that succeeds.
 */
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { isDatabaseUnreachable } from './unreachable.ts';

/** Seconds a client is asked to wait before retrying (`Retry-After`, and `retry_after` in the body). */
const UNAVAILABLE_RETRY_AFTER = 5;

function unavailableError(): ApiError {
  return new ApiError('unavailable', `The service cannot reach its database right now. Retry in ${UNAVAILABLE_RETRY_AFTER} seconds.`, {
    extra: { retry_after: UNAVAILABLE_RETRY_AFTER },
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER) },
  });
}

export class DatabaseOutage {
  readonly #log: Logger;
  readonly #clock: Clock;
  #since: Date | null = null;
  readonly #onRecovery: (() => void)[] = [];

  constructor(log: Logger, clock: Clock) {
    this.#log = log;
    this.#clock = clock;
  }

  get down(): boolean {
    return this.#since !== null;
  }

  /**
   * The answer for `error` when it says the database is unreachable (noting the outage), otherwise null: the
   * caller handles it as before.
   */
  unavailable(error: unknown): ApiError | null {
    if (error instanceof ApiError || !this.noted(error)) return null;
    return unavailableError();
  }

  /** Notes `error` when it says the database is unreachable; answers whether it did. */
  noted(error: unknown): boolean {
    if (!isDatabaseUnreachable(error)) return false;
    if (this.#since) return true;
    this.#since = this.#clock.now();
    // the code (ECONNREFUSED, 57P01, …) and class only: a driver message can quote SQL and values
    const { name, code } = error as { name?: unknown; code?: unknown };
    this.#log.error({ err: { name: typeof name === 'string' ? name : 'Error', code: typeof code === 'string' ? code : undefined } }, 'database unreachable');
    return true;
  }

  /**
   * `listener` runs each time a noted outage ends: work the outage may have interrupted for good (a chain of
   * periodic jobs whose next link could not be queued) starts again. It must not throw.
   */
  onRecovery(listener: () => void): void {
    this.#onRecovery.push(listener);
  }

  /** A connection succeeded: ends a noted outage. */
  reachable(): void {
    if (!this.#since) return;
    const since = this.#since;
    this.#since = null;
    this.#log.info({ down_since: since.toISOString(), down_ms: this.#clock.now().getTime() - since.getTime() }, 'database reachable again');
    for (const listener of this.#onRecovery) listener();
  }
}
