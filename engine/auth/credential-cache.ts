/**
 * A short-lived, per-process cache of API-key lookups (key hash → key and organization), so a request
 * costs one query instead of two. Every operator change (revoking a key, a plan, a feature, disabling an
 * organization) clears it at once in this process; another instance on the same database sees such a
 * change within the time-to-live (`VIGIL_AUTH_CACHE_MS`, default 2000; 0 turns the cache off).
 */
export class CredentialCache<T> {
  readonly #entries = new Map<string, { value: T; expires: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
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

  set(key: string, value: T): void {
    if (this.#ttlMs <= 0) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, expires: performance.now() + this.#ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}
