/**
 * The `pg` Client class of MikroORM's pool: a client whose connection ends while it is checked out gives itself
 * back to the pool (which then discards it). Kysely's transactions (under `em.transactional`) release their
 * connection only once COMMIT or ROLLBACK succeeded; when the connection is cut mid-transaction both fail and the
 * client stayed checked out for ever, dead: every database outage took some of the pool's connections for good,
 * and closing the database waited for them for ever. pg-pool's `release` throws when called twice, so the one it
 * hands out with each checkout is kept here made idempotent (a later release by Kysely does nothing).
 */
import pg from 'pg';

type Release = (error?: Error | boolean) => void;

export function releasingClient(base: typeof pg.Client = pg.Client): typeof pg.Client {
  return class ReleasingClient extends base {
    #release: Release | undefined;

    constructor(...args: ConstructorParameters<typeof pg.Client>) {
      super(...args);
      this.once('end', () => this.#release?.(new Error('Connection terminated')));
    }

    /** pg-pool assigns a new release function at every checkout */
    get release(): Release | undefined {
      return this.#release;
    }

    set release(release: Release | undefined) {
      let released = false;
      this.#release = release && ((error) => {
        if (released) return;
        released = true;
        release(error);
      });
    }
  };
}
