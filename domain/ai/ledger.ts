/**
 * The spend ledger: one `ai_spend` row per answered provider call (tokens, model, provider label, cost from the
 * price table). The alert pipeline's monthly budget check sums the same rows (spend.ts `monthSpend`). After each
 * row, the month's spend is compared with `ai_budget_warn_percent` of `monthly_ai_budget_usd`: at or over it, one
 * `ai_budget_warning` notification is recorded for the organization's calendar month (its time zone), race-safe
 * through the notifications table's unique key; the next month warns again.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { readSettings } from '../organization/settings.ts';
import { monthSpend, monthStart } from './spend.ts';

export interface SpendEntry {
  organizationId: string;
  purpose: string;
  reference: string | null;
  /** the provider row's name, or `platform` */
  provider: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  cost_usd: number;
  note: string | null;
}

export const BUDGET_WARNING = 'ai_budget_warning';

/** `2026-03`: the calendar month of an instant in a time zone (UTC when the zone is unknown). */
export function monthKey(now: Date, timeZone: string): string {
  const format = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit' }).format(now);
  try {
    return format(timeZone);
  } catch {
    return format('UTC');
  }
}

export async function recordSpend(services: Services, entry: SpendEntry, now: Date): Promise<void> {
  await inTransaction(services, (store) =>
    store.execute(
      `insert into ai_spend (organization_id, occurred_at, cost_usd, purpose, reference, provider, model, prompt_tokens, completion_tokens, note)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [entry.organizationId, now, entry.cost_usd, entry.purpose, entry.reference, entry.provider, entry.model,
        entry.usage.prompt_tokens, entry.usage.completion_tokens, entry.note],
    ));
  if (entry.cost_usd > 0) await warnOnBudget(services, entry.organizationId, now);
}

/** Records this month's budget warning when the spend reached the warning level; true when this call recorded it. */
export async function warnOnBudget(services: Services, organizationId: string, now: Date): Promise<boolean> {
  const sql = readStore(services).execute;
  const settings = await readSettings(services, sql, organizationId);
  const budget = settings.monthly_ai_budget_usd;
  if (budget === null) return false;
  const spent = await monthSpend(sql, organizationId, monthStart(now, settings.timezone));
  const level = (budget * settings.ai_budget_warn_percent) / 100;
  if (spent < level) return false;
  const month = monthKey(now, settings.timezone);
  const message =
    `AI spend this month (${month}) reached ${spent.toFixed(2)} USD, ${Math.floor((spent / budget) * 100)}% of the monthly budget of ${budget} USD ` +
    `(the warning is set at ${settings.ai_budget_warn_percent}%). Automatic investigations stop when the budget is spent.`;
  const inserted = await inTransaction(services, (store) =>
    store.execute(
      `insert into notifications (id, organization_id, kind, dedup_key, message, detail, created_at) values (?, ?, ?, ?, ?, ?::jsonb, ?)
       on conflict (organization_id, kind, dedup_key) do nothing returning id`,
      [randomUUID(), organizationId, BUDGET_WARNING, month, message,
        JSON.stringify({ month, spent_usd: spent, budget_usd: budget, warn_percent: settings.ai_budget_warn_percent }), now],
    ));
  if (inserted.length) services.log.info({ organization: organizationId, month }, 'AI budget warning recorded');
  return inserted.length > 0;
}
