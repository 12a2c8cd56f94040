import type { Caller } from '../auth/caller.ts';
import type { HookContext } from '../descriptor.ts';
import { sqlExecutor } from '../persistence/sql.ts';
import { FamilyStore } from '../persistence/store.ts';
import type { Services } from '../services.ts';

export function hookContext(services: Services, caller: Caller, store: FamilyStore, now: Date): HookContext {
  const family = (name: string) => {
    const d = services.registry.get(name);
    if (!d) throw new Error(`lookup of unregistered family ${name}`);
    return d;
  };
  return {
    caller,
    now,
    config: services.config,
    lookup: {
      rows: (name, where) => store.list(family(name), caller.organization.id, { where }),
      singleton: (name) => store.get(family(name), caller.organization.id, caller.organization.id),
      userByEmail: async (email) => {
        const [user] = await store.execute('select id, email from users where email = ?', [email.trim().toLowerCase()]);
        return user ? { id: String(user.id), email: String(user.email) } : null;
      },
    },
  };
}

/**
 * Runs `work` in one transaction on MikroORM's connection (plain SQL needs no EntityManager); nothing else
 * touches the database from inside it (PGlite has one connection).
 */
export function inTransaction<T>(services: Services, work: (store: FamilyStore) => Promise<T>): Promise<T> {
  const connection = services.db.em.getConnection();
  return connection.transactional((trx) => work(new FamilyStore(sqlExecutor(services.db, trx))));
}

/** Reads outside a transaction go straight to the connection: no EntityManager is needed for plain SQL. */
export function readStore(services: Services): FamilyStore {
  return new FamilyStore(sqlExecutor(services.db));
}
