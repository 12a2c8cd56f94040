/**
 * SLO evaluation against the database: which synthetic checks feed an SLI, the run counts per window, and the
 * computed fields written back on the SLO row. `status`, `error_budget_remaining_percent` and `burn_rate` are
 * read-only fields outside the ETag, and the write leaves `updated_at` and the row version alone: evaluation
 * is routine activity, not a configuration change (the spec's generic rule 4).
 *
 * Which runs feed an SLI (the spec is silent; documented on the gate and in the README):
 * - `query` = `synthetic:<check name>`: that synthetic check of the organization;
 * - `query` null: every synthetic check whose `service` is the SLI's service;
 * - any other query is a metrics-backend expression Vigil does not evaluate: the SLO stays `no_data`.
 */
import type { Row } from '../../engine/descriptor.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import { evaluate, WINDOW_MS, type Evaluation, type WindowCounts } from './math.ts';
import slisDescriptor from '../../resources/slis.ts';
import slosDescriptor from '../../resources/slos.ts';
import syntheticChecks from '../../resources/synthetic_checks.ts';

export const SYNTHETIC_QUERY_PREFIX = 'synthetic:';

export interface SloEvaluation {
  slo: Row;
  sli: Row | null;
  /** ids of the synthetic checks whose runs feed the SLI */
  checkIds: string[];
  evaluation: Evaluation;
}

const DAY_MS = 86_400_000;
const NO_COUNTS = { good: 0, total: 0 };

/** The checks that feed an SLI, by the rule above. */
export function feedingChecks(sli: Row, checks: Row[]): string[] {
  const query = typeof sli.query === 'string' ? sli.query.trim() : null;
  if (query === null) return checks.filter((c) => c.service === sli.service).map((c) => String(c.id));
  if (!query.startsWith(SYNTHETIC_QUERY_PREFIX)) return [];
  const name = query.slice(SYNTHETIC_QUERY_PREFIX.length).trim();
  return checks.filter((c) => c.name === name).map((c) => String(c.id));
}

/** The SQL condition for a good run: an ok run (availability), or an answer within the threshold (latency). */
function goodRun(sli: Row): string {
  if (sli.indicator !== 'latency') return 'ok';
  const threshold = Number(sli.latency_threshold_ms);
  // an integer the descriptor validated; inlined so each window's filter needs no parameter of its own
  return Number.isInteger(threshold) ? `(latency_ms is not null and latency_ms <= ${threshold})` : 'false';
}

async function countRuns(store: FamilyStore, organizationId: string, sli: Row, checkIds: string[], windowDays: number, now: Date): Promise<WindowCounts> {
  if (checkIds.length === 0) return { window: NO_COUNTS, h1: NO_COUNTS, m5: NO_COUNTS, h6: NO_COUNTS, m30: NO_COUNTS };
  const good = goodRun(sli);
  const windows = Object.keys(WINDOW_MS) as (keyof typeof WINDOW_MS)[];
  const columns = windows.map((w) => `count(*) filter (where at > ?) as ${w}_total, count(*) filter (where at > ? and ${good}) as ${w}_good`).join(', ');
  const since = (ms: number) => new Date(now.getTime() - ms);
  const params = [...windows.flatMap((w) => [since(WINDOW_MS[w]), since(WINDOW_MS[w])]), organizationId, ...checkIds, since(windowDays * DAY_MS), now];
  const [r] = await store.execute(
    `select count(*) as total, count(*) filter (where ${good}) as good, ${columns} from synthetic_results
     where organization_id = ? and check_id in (${checkIds.map(() => '?').join(', ')}) and at > ? and at <= ?`,
    params,
  );
  const n = (key: string) => Number(r?.[key] ?? 0);
  const counts = { window: { good: n('good'), total: n('total') } } as WindowCounts;
  for (const w of windows) counts[w] = { good: n(`${w}_good`), total: n(`${w}_total`) };
  return counts;
}

const same = (a: unknown, b: unknown) => (a === null || a === undefined ? null : Number.isNaN(Number(a)) ? a : Number(a)) === b;

/**
 * Evaluates every SLO of the organization (or those whose SLI names `service`) at `now`, and writes the
 * computed fields that changed on the SLO rows.
 */
export async function refreshSlos(services: Services, organizationId: string, options: { service?: string } = {}): Promise<SloEvaluation[]> {
  const now = services.clock.now();
  const store = readStore(services);
  const slis = await store.list(services.registry.family(slisDescriptor), organizationId, options.service ? { where: { service: options.service } } : {});
  if (slis.length === 0) return [];
  const slosFamily = services.registry.family(slosDescriptor);
  const slos = await store.list(slosFamily, organizationId, { where: { sli_id: { $in: slis.map((s) => s.id) } } });
  if (slos.length === 0) return [];
  const checks = await store.list(services.registry.family(syntheticChecks), organizationId);
  const byId = new Map(slis.map((s) => [s.id, s]));
  const out: SloEvaluation[] = [];
  for (const slo of slos) {
    const sli = byId.get(slo.sli_id) ?? null;
    const checkIds = sli ? feedingChecks(sli, checks) : [];
    const counts = sli ? await countRuns(store, organizationId, sli, checkIds, Number(slo.window_days ?? 30), now) : undefined;
    const evaluation = evaluate(counts ?? { window: NO_COUNTS, h1: NO_COUNTS, m5: NO_COUNTS, h6: NO_COUNTS, m30: NO_COUNTS }, Number(slo.target_percent));
    const { status, error_budget_remaining_percent, burn_rate } = evaluation;
    if (slo.status !== status || !same(slo.error_budget_remaining_percent, error_budget_remaining_percent) || !same(slo.burn_rate, burn_rate)) {
      await store.execute(
        `update ${tableName(slosFamily)} set status = ?, error_budget_remaining_percent = ?, burn_rate = ? where organization_id = ? and id = ?`,
        [status, error_budget_remaining_percent, burn_rate, organizationId, slo.id],
      );
    }
    out.push({ slo: { ...slo, status, error_budget_remaining_percent, burn_rate }, sli, checkIds, evaluation });
  }
  return out;
}

/**
 * Re-evaluates every organization's SLOs: for a periodic pass (the check scheduler's), so windows that slide
 * past old runs (or runs that stopped) move the status without a new result.
 */
export async function refreshAllSlos(services: Services): Promise<number> {
  const table = tableName(services.registry.family(slosDescriptor));
  const organizations = await readStore(services).execute(`select distinct organization_id from ${table}`, []);
  let evaluated = 0;
  for (const { organization_id } of organizations) evaluated += (await refreshSlos(services, String(organization_id))).length;
  return evaluated;
}
