import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from '@mikro-orm/core';
import type { Caller } from '../auth/caller.ts';
import type { HookContext } from '../descriptor.ts';
import type { Database } from '../persistence/database.ts';
import { sqlExecutor } from '../persistence/sql.ts';
import { FamilyStore, InsertBuffer } from '../persistence/store.ts';
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
  /**
   * false in a batch's first pass, which expects every change to go through: operations then run on the batch's
   * transaction itself, with no savepoint each (thousands of subtransactions cost PostgreSQL more per statement the
   * more there are). The first refusal or error of that pass ends it: the batch rolls back and runs again with a
   * savepoint per change (`true`), which answers every change.
   */
  savepoints: boolean;
  /**
   * The first pass's held inserts: a create's row and audit entry wait there to be written with the next ones as
   * one multi-row statement, until a statement names their table (it sees them written) or the pass ends.
   */
  buffer?: InsertBuffer;
}

/** A store on the batch's transaction: in its first pass, through its insert buffer. */
const batchStore = (services: Services, batch: Batch, trx: Transaction = batch.trx): FamilyStore =>
  batch.buffer ? new FamilyStore(batch.buffer.executor(), batch.buffer) : new FamilyStore(sqlExecutor(services.db, trx));

/** Thrown inside a batch's first pass (no savepoints) when a change failed: the pass is rolled back and run again. */
export class BatchPassFailed extends Error {
  constructor() {
    super('a change of the batch failed without a savepoint: run the batch again with one per change');
  }
}

const batches = new AsyncLocalStorage<Batch>();

const batchOf = (services: Services): Batch | undefined => {
  const batch = batches.getStore();
  return batch?.db === services.db ? batch : undefined;
};

/** Whether a batch is running here: its operations' writes join its one transaction. */
export const inBatchNow = (services: Services): boolean => batchOf(services) !== undefined;

/**
 * Whether a batch's first pass runs here (no savepoint per operation): any failure reruns the whole batch with
 * savepoints, so a write may leave to a unique index what a query would check first (the second pass checks).
 */
export const inBatchFirstPass = (services: Services): boolean => batchOf(services)?.savepoints === false;

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
  if (!batch.savepoints) return work(batchStore(services, batch));
  return connection.transactional(
    (trx) => batches.run({ ...batch, trx }, () => work(batchStore(services, batch, trx))),
    { ctx: batch.trx },
  );
}

/**
 * Runs `work` as one batch: one transaction that the operations it runs join. It commits when `work` answers
 * `commit: true`, and rolls back otherwise (a refused change, a dry run); what the operations left for after the
 * commit runs only once it committed.
 *
 * `work` runs first without a savepoint per operation (`savepoints: false`), which is what a batch that goes
 * through needs and several times faster; when it throws BatchPassFailed (a change was refused or failed in that
 * pass, which leaves the transaction in no state to go on) that transaction is rolled back and `work` runs again in
 * a new one with a savepoint per operation, so each refusal rolls back alone and every change is answered.
 */
export async function inBatch<T>(services: Services, changeId: string, work: (savepoints: boolean) => Promise<{ commit: boolean; result: T }>): Promise<T> {
  if (batchOf(services)) throw new Error('a batch cannot run inside another batch');
  const connection = services.db.em.getConnection();
  for (const savepoints of [false, true]) {
    const committed: Batch['committed'] = [];
    let outcome: { commit: boolean; result: T } | undefined;
    const rollback = new Error('batch rolled back');
    try {
      await connection.transactional(async (trx) => {
        const buffer = savepoints ? undefined : new InsertBuffer(sqlExecutor(services.db, trx));
        outcome = await batches.run({ db: services.db, trx, changeId, committed, savepoints, buffer }, () => work(savepoints));
        // the rows still held are written before the commit (a dry run's too: a unique index may refuse them)
        if (buffer) await buffer.flush().catch(() => Promise.reject(new BatchPassFailed()));
        if (!outcome.commit) throw rollback;
      });
    } catch (error) {
      if (error instanceof BatchPassFailed && !savepoints) continue;
      if (error !== rollback) throw error;
      return outcome!.result;
    }
    for (const run of committed) await run();
    return outcome!.result;
  }
  throw new Error('unreachable: the second pass of a batch has savepoints');
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
  return batch ? batchStore(services, batch) : new FamilyStore(sqlExecutor(services.db));
}
