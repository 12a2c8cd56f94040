import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from '@mikro-orm/core';
import type { Caller } from '../auth/caller.ts';
import type { HookContext } from '../descriptor.ts';
import type { Database } from '../persistence/database.ts';
import { sqlExecutor } from '../persistence/sql.ts';
import { FamilyStore } from '../persistence/store.ts';
import type { Services } from '../services.ts';

/** A user's email, lowercased (null for no user: a key, the service itself). */
export async function userEmail(store: FamilyStore, userId: string | undefined): Promise<string | null> {
  if (!userId) return null;
  const [user] = await store.execute('select email from users where id = ?', [userId]);
  return user ? String(user.email).toLowerCase() : null;
}

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
    targets: services.targets,
    lookup: {
      rows: (name, where) => store.list(family(name), caller.organization.id, { where }),
      singleton: (name) => store.get(family(name), caller.organization.id, caller.organization.id),
      userByEmail: async (email) => {
        const [user] = await store.execute('select id, email from users where email = ?', [email.trim().toLowerCase()]);
        return user ? { id: String(user.id), email: String(user.email) } : null;
      },
      callerEmail: () => userEmail(store, caller.credential.userId),
    },
  };
}

/**
 * A batch (engine/operations/batch.ts) runs many operations in one outer transaction. While it runs, the
 * operations inside it join it: each one's own transaction becomes a savepoint of it (so a refused operation
 * rolls back alone and the batch goes on), reads go through it (they see the batch's earlier writes, and PGlite's
 * one connection is not asked twice), audit entries carry its change id, and `afterCommit` work waits for the
 * outer commit (and is dropped when it rolls back).
 */
interface Batch {
  db: Database;
  trx: Transaction;
  changeId: string;
  committed: (() => Promise<void>)[];
}

const batches = new AsyncLocalStorage<Batch>();

const batchOf = (services: Services): Batch | undefined => {
  const batch = batches.getStore();
  return batch?.db === services.db ? batch : undefined;
};

/** Whether a batch is running here: its operations' writes join its one transaction. */
export const inBatchNow = (services: Services): boolean => batchOf(services) !== undefined;

/** The change id audit entries written now carry: the batch's, or null for a single write. */
export const currentChangeId = (services: Services): string | null => batchOf(services)?.changeId ?? null;

/**
 * Runs `work` in one transaction on MikroORM's connection (plain SQL needs no EntityManager); nothing else
 * touches the database from inside it (PGlite has one connection). Inside a batch it is a savepoint of the batch's.
 */
export function inTransaction<T>(services: Services, work: (store: FamilyStore) => Promise<T>): Promise<T> {
  const connection = services.db.em.getConnection();
  const batch = batchOf(services);
  if (!batch) return connection.transactional((trx) => work(new FamilyStore(sqlExecutor(services.db, trx))));
  return connection.transactional(
    (trx) => batches.run({ ...batch, trx }, () => work(new FamilyStore(sqlExecutor(services.db, trx)))),
    { ctx: batch.trx },
  );
}

/**
 * Runs `work` as one batch: one transaction that the operations it runs join. It commits when `work` answers
 * `commit: true`, and rolls back otherwise (a refused change, a dry run); what the operations left for after the
 * commit runs only once it committed.
 */
export async function inBatch<T>(services: Services, changeId: string, work: () => Promise<{ commit: boolean; result: T }>): Promise<T> {
  if (batchOf(services)) throw new Error('a batch cannot run inside another batch');
  const connection = services.db.em.getConnection();
  const committed: Batch['committed'] = [];
  let outcome: { commit: boolean; result: T } | undefined;
  const rollback = new Error('batch rolled back');
  try {
    await connection.transactional(async (trx) => {
      outcome = await batches.run({ db: services.db, trx, changeId, committed }, work);
      if (!outcome.commit) throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
    return outcome!.result;
  }
  for (const run of committed) await run();
  return outcome!.result;
}

/** Runs `work` now, or, inside a batch, once the batch has committed. */
export async function whenCommitted(services: Services, work: () => Promise<void>): Promise<void> {
  const batch = batchOf(services);
  if (batch) batch.committed.push(work);
  else await work();
}

/**
 * Reads outside a transaction go straight to the connection: no EntityManager is needed for plain SQL. Inside a
 * batch they go through the batch's transaction.
 */
export function readStore(services: Services): FamilyStore {
  const batch = batchOf(services);
  return new FamilyStore(sqlExecutor(services.db, batch?.trx));
}
