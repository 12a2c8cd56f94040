/**
 * The console's sign-in slowdown: failed sign-ins only are counted, and after a few free ones each further failure
 * makes the next attempt wait, twice as long each time up to a ceiling (docs/decisions.md has the numbers and why).
 *
 * - Per client address: every failure from that address, whatever the email. While it waits, nothing from that
 *   address is checked, a correct password included.
 * - Per account (the email): failures from every address. Its wait applies only to the addresses that failed for
 *   that account; from an address that did not, the password is checked and a correct one signs in — so guessing a
 *   person's email from elsewhere cannot keep them out.
 * - A successful sign-in forgets the account's failures (not the address's: a second account of one's own must
 *   not wash away an address's guesses).
 *
 * Times come from the injected clock; the counts live in the limits' store (memory, PostgreSQL or Redis), so every
 * instance sharing it counts together.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../engine/clock.ts';
import type { CountStore } from '../../engine/http/rate-limit.ts';

export interface Slowdown {
  /** failures without any wait */
  free: number;
  /** the wait after the first failure past the free ones; doubled by each further one */
  firstWaitSeconds: number;
  maxWaitSeconds: number;
}

export const SIGN_IN_SLOWDOWN = {
  // an office or a carrier's NAT shares one address: more free failures, a shorter ceiling
  address: { free: 20, firstWaitSeconds: 1, maxWaitSeconds: 300 },
  account: { free: 5, firstWaitSeconds: 1, maxWaitSeconds: 900 },
  /** failures are forgotten this long after the first one of a series */
  forgetSeconds: 24 * 3600,
} as const;

/** The wait after `failures` failures: none while free, then first·2^(n−free−1), at most the ceiling. */
export function waitAfter(failures: number, slowdown: Slowdown): number {
  const past = failures - slowdown.free;
  if (past <= 0) return 0;
  return Math.min(slowdown.maxWaitSeconds, slowdown.firstWaitSeconds * 2 ** Math.min(past - 1, 30));
}

// the store keeps 32-bit integers: an instant is kept as whole seconds since this epoch (good until 2093)
const EPOCH_MS = Date.UTC(2025, 0, 1);

export class SignInThrottle {
  readonly #store: CountStore;
  readonly #clock: Clock;

  constructor(store: CountStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Seconds to wait before this attempt may be checked, or null when it may be checked now. */
  async wait(address: string, email: string): Promise<number | null> {
    const keys = keysOf(address, email);
    const [addressUntil, accountUntil, pairFailures] = await Promise.all([
      this.#store.get(keys.addressUntil), this.#store.get(keys.accountUntil), this.#store.get(keys.pair),
    ]);
    const now = this.#now();
    const waits = [addressUntil - now, pairFailures > 0 ? accountUntil - now : 0].filter((w) => w > 0);
    return waits.length ? Math.max(...waits) : null;
  }

  /** A failed sign-in: counted for the address, the account and the pair; answers the wait it starts (0: none). */
  async failed(address: string, email: string): Promise<number> {
    const keys = keysOf(address, email);
    const [byAddress, byAccount] = await Promise.all([this.#store.add(keys.address), this.#store.add(keys.account), this.#store.add(keys.pair)]);
    const now = this.#now();
    const waits = [waitAfter(byAddress, SIGN_IN_SLOWDOWN.address), waitAfter(byAccount, SIGN_IN_SLOWDOWN.account)];
    await Promise.all([
      waits[0]! > 0 ? this.#store.set(keys.addressUntil, now + waits[0]!) : undefined,
      waits[1]! > 0 ? this.#store.set(keys.accountUntil, now + waits[1]!) : undefined,
    ]);
    return Math.max(...waits);
  }

  /** A successful sign-in: the account's failures are forgotten, from every address. */
  async succeeded(address: string, email: string): Promise<void> {
    const keys = keysOf(address, email);
    await Promise.all([this.#store.delete(keys.account), this.#store.delete(keys.accountUntil), this.#store.delete(keys.pair)]);
  }

  #now(): number {
    return Math.floor((this.#clock.now().getTime() - EPOCH_MS) / 1000);
  }
}

/** The store's keys: the email only as a hash (it is personal data), the address as the server saw it. */
function keysOf(address: string, email: string) {
  const account = createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);
  return {
    address: `address:${address}`,
    addressUntil: `address-until:${address}`,
    account: `account:${account}`,
    accountUntil: `account-until:${account}`,
    pair: `pair:${account}:${address}`,
  };
}
