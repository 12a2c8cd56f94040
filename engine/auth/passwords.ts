/**
 * Console passwords: scrypt from node:crypto with a random 16-byte salt per password, the parameters stored with
 * the hash (`scrypt$<N>$<r>$<p>$<salt>$<hash>`, base64url), so they can be raised later without breaking the
 * hashes already stored. Verification is constant-time and never throws on a malformed stored value.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** At least this many characters (the operator API's rule); at most MAX so hashing cannot be made to work hard. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** OWASP's scrypt floor is N=2^17 with r=8, p=1; 2^15 keeps a sign-in near 50 ms on a small machine and is stored per hash. */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem above 128·N·r, which node's 32 MiB default only just equals
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** A field error for a password the operator API or the sign-in link page refuses, or null. */
export function passwordProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if ([...value].length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (value.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (value.includes('\u0000')) return 'must not hold a NUL character';
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash of nothing anyone knows: checked against when no user matches, so a sign-in takes as long either way. */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, Buffer.alloc(16), PARAMS.N, PARAMS.r, PARAMS.p);
    return false;
  }
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // parameters within what this service writes or may raise to (N a power of two): a stored value cannot make a check costly
  const sane = Number.isInteger(N) && N >= 2 && N <= 2 ** 17 && (N & (N - 1)) === 0 && Number.isInteger(r) && r >= 1 && r <= 16 && Number.isInteger(p) && p >= 1 && p <= 4;
  if (!sane) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  let got: Buffer;
  try {
    got = await derive(password, Buffer.from(parts[4]!, 'base64url'), N, r, p);
  } catch {
    return false;
  }
  return expected.length === KEY_LENGTH && timingSafeEqual(expected, got);
}
