/**
 * SLO arithmetic, pure: error budget and multi-window, multi-burn-rate alerting as the Google SRE workbook
 * ("Alerting on SLOs", table 5-8) describes it. A burn rate is the error rate over a window divided by the
 * error rate the objective allows (1 − target): 1× spends the budget exactly over the SLO window.
 */

/** Good and total events (synthetic runs) counted over one window. */
export interface Counts {
  good: number;
  total: number;
}

/** The counts an evaluation needs: the SLO's whole window, and the alerting windows. */
export interface WindowCounts {
  window: Counts;
  h1: Counts;
  m5: Counts;
  h6: Counts;
  m30: Counts;
}

/** The workbook's pairs for a 30-day objective: 2 % of the budget in 1 h (page), 5 % in 6 h (ticket). */
export const FAST_BURN = { long: 'h1', short: 'm5', threshold: 14.4 } as const;
export const SLOW_BURN = { long: 'h6', short: 'm30', threshold: 6 } as const;
/** Milliseconds of each alerting window. */
export const WINDOW_MS = { h1: 3_600_000, m5: 300_000, h6: 21_600_000, m30: 1_800_000 } as const;
/** Below this share of budget left (percent), an SLO that is not burning fast reads `at_risk`. */
export const LOW_BUDGET_PERCENT = 25;

export type SloStatus = 'ok' | 'at_risk' | 'breaching' | 'no_data';

export interface Evaluation {
  status: SloStatus;
  /** percent of the window's error budget not yet spent; negative once overspent; null without data */
  error_budget_remaining_percent: number | null;
  /** the burn rate over the last hour (the fast pair's long window); null without runs in it */
  burn_rate: number | null;
  fast_burn: boolean;
  slow_burn: boolean;
  /** burn rates per alerting window, null where the window holds no runs */
  burn_rates: Record<keyof typeof WINDOW_MS, number | null>;
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The error rate over `counts` as a multiple of the allowed one; null with no events. */
export function burnRate(counts: Counts, targetPercent: number): number | null {
  if (counts.total <= 0) return null;
  const allowed = 1 - targetPercent / 100;
  const errorRate = (counts.total - counts.good) / counts.total;
  return errorRate / allowed;
}

/** Percent of the budget left over the whole window: 100 with no bad event, 0 when spent, negative past it. */
export function budgetRemaining(counts: Counts, targetPercent: number): number | null {
  const spent = burnRate(counts, targetPercent);
  return spent === null ? null : 100 * (1 - spent);
}

/** An alert pair fires when both its windows burn at or above the threshold (the short one ends it quickly on recovery). */
export function pairFires(rates: Evaluation['burn_rates'], pair: typeof FAST_BURN | typeof SLOW_BURN): boolean {
  const long = rates[pair.long];
  const short = rates[pair.short];
  return long !== null && short !== null && long >= pair.threshold && short >= pair.threshold;
}

/**
 * no_data: no run in the window. breaching: the budget is spent (the SLI is below target over the window).
 * at_risk: a burn pair fires, or less than LOW_BUDGET_PERCENT of the budget is left. ok otherwise.
 */
export function evaluate(counts: WindowCounts, targetPercent: number): Evaluation {
  const burn_rates = {
    h1: burnRate(counts.h1, targetPercent),
    m5: burnRate(counts.m5, targetPercent),
    h6: burnRate(counts.h6, targetPercent),
    m30: burnRate(counts.m30, targetPercent),
  };
  const fast_burn = pairFires(burn_rates, FAST_BURN);
  const slow_burn = pairFires(burn_rates, SLOW_BURN);
  const remaining = budgetRemaining(counts.window, targetPercent);
  const burn_rate = burn_rates.h1 === null ? null : round(burn_rates.h1);
  if (remaining === null) return { status: 'no_data', error_budget_remaining_percent: null, burn_rate, fast_burn, slow_burn, burn_rates };
  const status: SloStatus = remaining <= 0 ? 'breaching' : fast_burn || slow_burn || remaining < LOW_BUDGET_PERCENT ? 'at_risk' : 'ok';
  return { status, error_budget_remaining_percent: round(remaining, 2), burn_rate, fast_burn, slow_burn, burn_rates };
}
