/**
 * `vigil apply`: carries out a plan as ONE batch of the configuration API (export/batch.ts): every create,
 * update and delete in one transaction, all or nothing. Updates and deletes carry the ETag the plan read as
 * If-Match, so a row that changed since stops the apply (412) and nothing at all changes; references to rows the
 * batch creates are resolved by the service as it goes. The audit entries of the apply share one change id.
 */
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { planFields } from '../engine/fields.ts';
import { canonical } from '../engine/operations/project.ts';
import { checkPlan, refusalOf, sendBatch } from './batch.ts';
import { referencesIn, type ConfigFile } from './config-file.ts';
import { computePlan, type Plan, type PlanOptions, type Refusal, type Skipped } from './plan.ts';
import type { ConfigApi } from './remote.ts';

export interface ApplyResult {
  /** "created vigil_slos.checkout" …, in the order done */
  done: string[];
  skipped: Skipped[];
  warnings: string[];
  /** the audit entries' change id, when the batch was applied */
  changeId?: string;
  /** set when the service refused the batch: nothing was applied */
  stopped?: { address: string; message: string; details: string[]; refusals: Refusal[] };
}

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

export async function applyPlan(api: ConfigApi, plan: Plan): Promise<ApplyResult> {
  const result: ApplyResult = { done: [], skipped: [], warnings: [] };
  const { answer, outcomes } = await sendBatch(api, plan, false);
  if (answer.status >= 200 && answer.status < 300 && answer.body?.committed === true) {
    result.changeId = answer.body.change_id;
    plan.actions.forEach((action, i) => {
      result.done.push(`${VERB[action.action]} ${action.address}`);
      const data = (outcomes[i]?.data ?? {}) as Row;
      const secrets = planFields(action.family).secrets;
      for (const [field, sent] of Object.entries(action.body ?? {})) {
        if (secrets.includes(field) || referencesIn(sent).length > 0) continue;
        if (field in data && canonical(data[field] ?? null) !== canonical(sent ?? null)) {
          result.warnings.push(`${action.address}: ${field} reads ${JSON.stringify(data[field])} after apply, not ${JSON.stringify(sent)} (the service merged or normalized it)`);
        }
      }
    });
    return result;
  }
  const refusals = plan.actions.flatMap((action, i) => (outcomes[i]?.error ? [refusalOf(action, outcomes[i]!)] : []));
  const first = refusals[0];
  const stale = refusals.filter((r) => r.status === 412).map((r) => r.address);
  const message = `the service refused ${refusals.length} of ${plan.actions.length} change${plan.actions.length === 1 ? '' : 's'}, so nothing was applied (the apply is one transaction).` +
    (stale.length ? ` ${stale.join(', ')} changed since the plan was made (412 precondition_failed): run \`vigil plan\` again.` : '');
  result.stopped = {
    address: first?.address ?? '',
    message,
    details: refusals.flatMap((r) => [`${r.address}${r.line ? ` (line ${r.line})` : ''}: ${r.reason}`, ...r.details.map((d) => `  ${d}`)]),
    refusals,
  };
  return result;
}

/**
 * `vigil apply`: the plan, then the batch sent to be applied at once, without a dry run first. The batch is one
 * transaction, so a refused one changes nothing and answers every refusal a dry run would have: they become the
 * plan's refusals, as `vigil plan` lists them. Only a plan holding a create that may be refused (its prerequisite is
 * skipped, `mayBeRefused`) is checked first (checkPlan drops such creates when refused), then applied.
 */
export async function planAndApply(api: ConfigApi, families: readonly FamilyDescriptor[], file: ConfigFile, options: PlanOptions = {}): Promise<{ plan: Plan; result?: ApplyResult }> {
  const plan = await computePlan(api, families, file, options);
  if (plan.actions.some((a) => a.mayBeRefused)) await checkPlan(api, plan);
  if (!plan.actions.length || plan.refusals.length) return { plan };
  const result = await applyPlan(api, plan);
  if (!result.stopped?.refusals.length) return { plan, result };
  plan.refusals = result.stopped.refusals;
  return { plan };
}
