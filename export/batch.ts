/**
 * A plan as one batch of the configuration API (POST /api/v1/config/batch): `vigil plan` sends it with
 * `dry_run: true`, so every change goes through the service's real pipeline (validation, rules, natural keys
 * including deployment-wide ones, plan features, roles, If-Match) and every refusal the apply would meet is in the
 * plan, with its reason, before anything moves; `vigil apply` sends the same batch to be applied in one
 * transaction, all or nothing.
 *
 * A reference to a row the batch itself creates is sent as `{ "$ref": "<address>" }`, the create's `ref` being
 * its address. A create the plan expected might be refused (its prerequisite is skipped) is moved to the plan's
 * skipped list when the dry run refuses it, with the changes that refer to it, and the rest is checked again.
 */
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { mapReferences, referencesIn, type ConfigFile } from './config-file.ts';
import { computePlan, type Plan, type PlannedAction, type PlanOptions, type Refusal } from './plan.ts';
import { CONFIG_PREFIX, PlanError, refusal, type Answer, type ConfigApi } from './remote.ts';

export const BATCH_PATH = `${CONFIG_PREFIX}/batch`;


interface Outcome {
  index: number;
  status: number;
  id: string | null;
  data: Row | null;
  error: { error?: string; message?: string; errors?: { field: string; message: string }[] } | null;
}

function wire(value: unknown, ids: Map<string, string>): unknown {
  return mapReferences(value, (r) => ids.get(r.address) ?? { $ref: r.address });
}

/** The batch's changes, one per action, in the plan's order. */
export function batchChanges(plan: Plan): Row[] {
  return plan.actions.map((a) => {
    const op = a.action === 'create' && a.id !== undefined ? 'update' : a.action;
    const body = a.body ? Object.fromEntries(Object.entries(a.body).map(([f, v]) => [f, wire(v, plan.ids)])) : undefined;
    return { family: a.family.name, op, ref: a.address, ...(a.id !== undefined ? { id: a.id } : {}), ...(a.etag ? { if_match: a.etag } : {}), ...(body && a.action !== 'delete' ? { body } : {}) };
  });
}

const refersTo = (action: PlannedAction, addresses: Set<string>) =>
  referencesIn(action.body ?? {}).find((v) => addresses.has(v.address))?.address;

/** The batch's answer: every change's outcome, or the failure to report (not a refusal of changes: a broken call). */
export async function sendBatch(api: ConfigApi, plan: Plan, dryRun: boolean): Promise<{ answer: Answer; outcomes: Outcome[] }> {
  const answer = await api.call('POST', BATCH_PATH, { changes: batchChanges(plan), ...(dryRun ? { dry_run: true } : {}) });
  const outcomes = answer.body?.changes;
  if (!Array.isArray(outcomes)) {
    const { message, details } = refusal(answer);
    throw new PlanError(`the service did not ${dryRun ? 'check' : 'apply'} the plan: ${message}`, details, answer.body?.error);
  }
  return { answer, outcomes: outcomes as Outcome[] };
}

export function refusalOf(action: PlannedAction, outcome: Outcome): Refusal {
  const error = outcome.error ?? {};
  const reason = `${error.message ?? `answered HTTP ${outcome.status}`}${error.error ? ` (${error.error})` : ''}`;
  return { address: action.address, line: action.line, action: action.action, status: outcome.status, reason, details: (error.errors ?? []).map((e) => `${e.field}: ${e.message}`) };
}

/**
 * Asks the service to check the whole plan without committing it, and records what it would refuse in
 * `plan.refusals`. Creates marked `mayBeRefused` that it refuses are skipped instead, with what refers to them.
 */
export async function checkPlan(api: ConfigApi, plan: Plan): Promise<void> {
  plan.refusals = [];
  for (;;) {
    if (plan.actions.length === 0) return;
    const checked = await sendBatch(api, plan, true).catch((error: unknown) => {
      // a read-only key (api:config_read) may plan, but the service checks nothing for it: the batch needs a writer
      if (error instanceof PlanError && error.code === 'read_only_key') return null;
      throw error;
    });
    if (!checked) {
      plan.warnings.push(`this key is read-only, so the service could not check the ${plan.actions.length} change${plan.actions.length === 1 ? '' : 's'} (an apply needs a key with api:admin); plan with such a key to have every change checked`);
      return;
    }
    const refused = plan.actions.map((action, i) => ({ action, outcome: checked.outcomes[i]! })).filter(({ outcome }) => outcome?.error);
    const expected = refused.filter(({ action }) => action.mayBeRefused);
    if (expected.length === 0) {
      plan.refusals = refused.map(({ action, outcome }) => refusalOf(action, outcome));
      return;
    }
    const gone = new Set<string>();
    for (const { action, outcome } of expected) {
      const { reason, details } = refusalOf(action, outcome);
      plan.skipped.push({ address: action.address, reason: `refused because ${action.mayBeRefused}: ${[reason, ...details].join('; ')}`, line: action.line });
      gone.add(action.address);
    }
    // what refers to a skipped create is skipped too, until nothing left does
    for (let more = true; more; ) {
      more = false;
      for (const action of plan.actions) {
        const blocked = gone.has(action.address) ? undefined : refersTo(action, gone);
        if (!blocked) continue;
        plan.skipped.push({ address: action.address, reason: `refers to ${blocked}, which is skipped`, line: action.line });
        gone.add(action.address);
        more = true;
      }
    }
    plan.actions = plan.actions.filter((a) => !gone.has(a.address));
  }
}

/** `vigil plan`: the plan computed from the file and the organization, then checked by the service's dry run. */
export async function checkedPlan(api: ConfigApi, families: readonly FamilyDescriptor[], file: ConfigFile, options: PlanOptions = {}): Promise<Plan> {
  const plan = await computePlan(api, families, file, options);
  await checkPlan(api, plan);
  return plan;
}
