/**
 * The AI spend of an organization's month, summed from the ledger's `ai_spend` rows (ledger.ts): the alert
 * pipeline's budget check stops automatic investigations at the budget, and the ledger warns near it.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { offsetAt, wallClock } from '../../engine/wall-clock.ts';

/** The first instant of the current month in the organization's time zone (UTC when the zone is unknown). */
export function monthStart(now: Date, timeZone: string): Date {
  const zone = safeZone(timeZone);
  const { year, month } = wallClock(now, zone);
  const guess = Date.UTC(year, month - 1, 1);
  // the zone's offset at the guess, then again at the corrected instant (a DST change can fall in between)
  let start = guess - offsetAt(guess, zone);
  start = guess - offsetAt(start, zone);
  return new Date(start);
}

function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** The AI spend recorded in the ledger since the start of the organization's month, in USD. */
export async function monthSpend(sql: Sql, organizationId: string, since: Date): Promise<number> {
  const [row] = await sql('select coalesce(sum(cost_usd), 0)::float8 as spent from ai_spend where organization_id = ? and occurred_at >= ?', [organizationId, since]);
  return Number(row?.spent ?? 0);
}
