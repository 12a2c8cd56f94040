/**
 * Idempotent requests (the `Idempotency-Key` header; MCP: the `idempotency_key` argument), Stripe's semantics:
 * the first request with a key claims it for the caller's organization; a repeat within 24 hours with the same
 * operation, target and body replays the first answer (`replayed: true`) and does nothing else; with anything
 * else it is 422 naming the key; while the first still runs it is 409.
 *
 * The claim is a row (`idempotency_keys`, primary key organization + key). Engine creates and actions write it
 * with their answer, in the write's own statement (store.writeAlone: the write happens only if the claim did) or
 * as the last statement of its transaction, so claim, answer and write commit together or not at all (a crash
 * mid-way leaves nothing). A repeat that reaches this instance while the first runs is 409; on another instance
 * its claim waits for the first one's commit, then finds the key held and replays its answer. A repeat that a check refuses before it writes (the row it created now holds the natural
 * key, the row it changed has another ETag) answers from the key too, when the key holds an answer. Domain
 * writes, whose writes take any shape, claim the key before they run and store the answer after (409 to a repeat
 * in between). Only a success (2xx) is stored: a refusal wrote nothing (every operation refuses before writing),
 * so its claim is gone and a retry runs again and answers what holds then. A row older than 24 hours is ignored
 * (a new request takes the key over) and pruned by the periodic housekeeping (`pruneIdempotencyKeys`).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../auth/caller.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { prepared } from '../persistence/sql.ts';
import { readStore } from './context.ts';
import type { FamilyStore } from '../persistence/store.ts';
import type { Services } from '../services.ts';

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60_000;
export const IDEMPOTENCY_KEY_MAX = 255;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const PRUNE_BATCH = 5000;
/**
 * A condition that is always true and makes its statement's own transaction commit without waiting for the WAL
 * flush (`synchronous_commit` off until that commit): a domain write's claim and outcome cost no flush of their own. The
 * write they guard commits later and waits for its flush, which carries theirs (WAL is written in order): a claim
 * lost in a crash guarded nothing that committed, and a lost `done` leaves the claim running (409 until it
 * expires), never a second write.
 */
const UNFLUSHED = `set_config('synchronous_commit', 'off', true) is not null`;

/** The key as the transport received it (`undefined`: none sent) and what the operation is. */
export interface IdempotentCall {
  key: unknown;
  /** the operation's name (`teams.create`, `deploy_policies.set_deploy_freeze`, `redeliver`) */
  operation: string;
  /** the row an action names (id or natural key), when it names one */
  target?: unknown;
  body: unknown;
}

/** Where a refused key is named: the header on REST, the argument on the agent-tool endpoint. */
const keyField = (caller: Caller) => (caller.transport === 'mcp' ? 'idempotency_key' : 'Idempotency-Key');

function checkKey(caller: Caller, key: unknown): string {
  const refuse = (message: string) => validationFailed([{ field: keyField(caller), message }]);
  if (typeof key !== 'string') throw refuse('must be a string');
  if (key.length === 0) throw refuse('must not be empty');
  if (key.length > IDEMPOTENCY_KEY_MAX) throw refuse(`must be at most ${IDEMPOTENCY_KEY_MAX} characters`);
  if (!PRINTABLE_ASCII.test(key)) throw refuse('may hold only printable ASCII characters');
  return key;
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are one body. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  return value;
}

const fingerprintOf = (call: IdempotentCall) =>
  createHash('sha256').update(JSON.stringify(canonical([call.operation, call.target ?? null, call.body ?? {}]))).digest('hex');

/** The keys (organization and key) of the engine creates and actions running in this process. */
const inFlight = new Set<string>();

/** The key is held: by a request still running, or by a stored answer (replayed, or another request's: 422). */
export class KeyHeld extends Error {}

/** Claims the key (state and answer as given): a new row, or one past the window taken over; nothing when another holds it. */
const CLAIM = `insert into idempotency_keys (organization_id, key, fingerprint, claim, state, result, created_at)
  select ?, ?, ?, ?, %STATE% where %GUARD%
  on conflict (organization_id, key) do update set fingerprint = excluded.fingerprint, claim = excluded.claim, state = excluded.state, result = excluded.result, created_at = excluded.created_at
  where idempotency_keys.created_at <= ?
  returning 1`;
const CLAIM_RUNNING = CLAIM.replace('%STATE%', "'running', null, ?").replace('%GUARD%', UNFLUSHED);
/** No UNFLUSHED: it commits with the write, whose commit must wait for its flush. */
const CLAIM_DONE = CLAIM.replace('%STATE%', "'done', ?, ?").replace('%GUARD%', 'true');

/**
 * The key of an engine create or action, claimed with the answer it keeps: `claim(result)` is the statement,
 * run before the write in the write's own statement (store.writeAlone's gate) or alone in its transaction
 * (`takeKey`); either way it commits with the write.
 */
export interface KeyClaim {
  claim(result: object): { sql: string; params: unknown[] };
}

/** The claim as a statement of the write's transaction, before its commit: KeyHeld when another request holds the key. */
export async function takeKey(store: FamilyStore, key: KeyClaim, result: object): Promise<void> {
  const { sql, params } = key.claim(result);
  if (!(await store.execute(sql, params)).length) throw new KeyHeld();
}

/**
 * Runs `run` at most once per (organization, key) within the window. The result must be JSON (it is stored as
 * text, so a replay answers the same bytes in the same order). No key: `run` runs as it would without this step.
 *
 * `claimInTransaction`: `run` writes in one transaction and runs the `KeyClaim` it is handed there (engine creates
 * and actions): the claim and the stored answer commit with the write, a refusal rolls the claim back, and a crash
 * mid-way leaves nothing behind. Otherwise (domain operations, whose writes take any shape) the key is claimed in a
 * statement of its own before `run` (released if `run` fails) and given the answer in another after it.
 */
export async function idempotent<T extends object>(
  services: Services,
  caller: Caller,
  call: IdempotentCall,
  run: (claim?: KeyClaim) => Promise<T>,
  options: { claimInTransaction?: boolean } = {},
): Promise<T & { replayed?: true }> {
  if (call.key === undefined) return run();
  const key = checkKey(caller, call.key);
  const fingerprint = fingerprintOf(call);
  const orgId = caller.organization.id;
  const sql = readStore(services).execute;
  const claim = randomUUID();
  const window = () => {
    const now = services.clock.now();
    return { now, expired: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS) };
  };
  const heldRow = async () =>
    (await readStore(services).execute(prepared('select fingerprint, state, result from idempotency_keys where organization_id = ? and key = ? and created_at > ?'), [orgId, key, window().expired]))[0];
  /** What a request that did not get the key answers: the stored answer, or why not. */
  const answerHeld = (row: Record<string, unknown> | undefined): T & { replayed: true } => {
    if (!row || row.state === 'running') {
      throw new ApiError('conflict', 'A request with this idempotency key is still running; retry later to get its answer.', { headers: { 'Retry-After': '1' } });
    }
    if (row.fingerprint !== fingerprint) {
      throw validationFailed([{ field: keyField(caller), message: 'was used within the last 24 hours with another request (another operation, row or body); send a new key' }]);
    }
    return { ...(JSON.parse(String(row.result)) as T), replayed: true };
  };
  const DONE = `update idempotency_keys set state = 'done', result = ? where organization_id = ? and key = ? and claim = ?`;

  if (options.claimInTransaction) {
    // the claim is written with the answer, so a repeat cannot see the first one running in the database: this
    // instance answers its own repeats 409 while the first runs; one on another instance waits at the claim for
    // the first one's commit and replays its answer
    const flying = `${orgId}\n${key}`;
    if (inFlight.has(flying)) return answerHeld(undefined);
    inFlight.add(flying);
    const steps: KeyClaim = {
      claim(result) {
        const { now, expired } = window();
        return { sql: prepared(CLAIM_DONE), params: [orgId, key, fingerprint, claim, JSON.stringify(result), now, expired] };
      },
    };
    try {
      return await run(steps);
    } catch (error) {
      // any other failure rolled the claim back with its write, or came after the commit of a recorded answer
      if (error instanceof KeyHeld) return answerHeld(await heldRow());
      // a repeat refused by a check before its write: the key's answer, when it holds one, comes first
      if (error instanceof ApiError) {
        const held = await heldRow().catch(() => undefined);
        if (held) return answerHeld(held);
      }
      throw error;
    } finally {
      inFlight.delete(flying);
    }
  }

  for (let attempt = 0; ; attempt++) {
    const { now, expired } = window();
    if ((await sql(prepared(CLAIM_RUNNING), [orgId, key, fingerprint, claim, now, expired])).length) break;
    const row = await heldRow();
    // released between the insert and the read (the first one was refused): claim it again
    if (!row && attempt < 3) continue;
    return answerHeld(row);
  }
  // a failure to record the outcome must not turn a committed write into an error: the claim then stays running
  // (409 to repeats until it expires), which never repeats the write
  const settle = (sqlText: string, params: unknown[]) =>
    sql(sqlText, params).catch((error: Error) => services.log.error({ err: error.name, operation: call.operation }, 'idempotency key not settled'));
  let result: T;
  try {
    result = await run();
  } catch (error) {
    await settle(prepared('delete from idempotency_keys where organization_id = ? and key = ? and claim = ?'), [orgId, key, claim]);
    throw error;
  }
  await settle(prepared(`${DONE} and ${UNFLUSHED}`), [JSON.stringify(result), orgId, key, claim]);
  return result;
}

/** Forgets keys past the window, a batch at a time (the periodic housekeeping calls it). */
export async function pruneIdempotencyKeys(services: Services, now: Date): Promise<number> {
  const removed = await readStore(services).execute(
    `delete from idempotency_keys where (organization_id, key) in (select organization_id, key from idempotency_keys where created_at <= ? limit ${PRUNE_BATCH}) returning key`,
    [new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)],
  );
  return removed.length;
}
