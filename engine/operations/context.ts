import type { Caller } from '../auth/caller.ts';
import type { HookContext } from '../descriptor.ts';
import { FamilyStore } from '../persistence/store.ts';
import type { EntityManager } from '@mikro-orm/sql';
import type { Services } from './types.ts';

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
    },
  };
}

/** Runs `work` in one transaction on a fresh EntityManager; nothing else touches the database meanwhile. */
export function inTransaction<T>(services: Services, work: (store: FamilyStore) => Promise<T>): Promise<T> {
  return services.db.em.fork().transactional((em) => work(new FamilyStore((sql, params) => (em as EntityManager).execute(sql, params))));
}

/** Reads outside a transaction go straight to the connection: no EntityManager is needed for plain SQL. */
export function readStore(services: Services): FamilyStore {
  const connection = services.db.em.getConnection();
  return new FamilyStore((sql, params) => connection.execute(sql, params));
}
