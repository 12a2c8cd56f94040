/**
 * A per-process cache of what most requests would otherwise read: credential lookups (key hash → key and
 * organization; webhook token → organization), so a request costs one query instead of two, and the rows of
 * families other writes consult (`cachedRows` on a descriptor). Every change that may make an entry wrong (an
 * operator write, a write to a family that `authenticates` or is `cachedRows`) clears it in this process and, on
 * PostgreSQL, in every other instance of the database at once (shared-clears.ts: LISTEN/NOTIFY). The time-to-live (`VIGIL_AUTH_CACHE_MS`, default 2000; 0
 * turns the cache off) bounds what a lost notification could leave behind; while the notification channel is
 * down nothing is kept.
 *
 * A lookup that started before a clear must not put its (possibly revoked) answer back afterwards: `set` takes
 * the generation read before the lookup and drops the answer when a clear came in between.
 */
export class SharedCache<T> {
  readonly #entries = new Map<string, { value: T; expires: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  #generation = 0;
  #keeping = true;
  #announce: (() => void) | null = null;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  /** Read before a lookup and handed to `set` with its answer. */
  get generation(): number {
    return this.#generation;
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= performance.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, generation: number): void {
    if (this.#ttlMs <= 0 || !this.#keeping || generation !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, expires: performance.now() + this.#ttlMs });
  }

  /** A change made here: forget everything, and tell the other instances. */
  clear(): void {
    this.forget();
    this.#announce?.();
  }

  /** A change somewhere (announced by another instance): forget everything. */
  forget(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  /** Shares clears between instances: `announce` tells the others; `keeping(false)` while they cannot be heard. */
  shareWith(announce: () => void): void {
    this.#announce = announce;
  }

  keeping(on: boolean): void {
    this.#keeping = on;
    this.forget();
  }
}
