/**
 * `rate_limit_rpm` per provider row, in this process (rate-limiter-flexible's memory store): every request sent
 * to the row, retries included, takes one point of a 60-second window. A row out of points is not waited for:
 * the router moves on to the next provider. A changed limit starts a fresh window.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';

const limiters = new Map<string, { rpm: number; limiter: RateLimiterMemory }>();

/** Whether one more request may go to this row now (and counts it). */
export async function takeRequest(rowId: string, rpm: number | null): Promise<boolean> {
  if (rpm === null) return true;
  let entry = limiters.get(rowId);
  if (!entry || entry.rpm !== rpm) {
    entry = { rpm, limiter: new RateLimiterMemory({ keyPrefix: 'vigil_ai', points: rpm, duration: 60 }) };
    limiters.set(rowId, entry);
  }
  try {
    await entry.limiter.consume(rowId);
    return true;
  } catch {
    // a refusal rejects with a RateLimiterRes, not an Error
    return false;
  }
}
