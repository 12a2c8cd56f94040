/**
 * `vigil apply`: carries out a plan, one API call per action, in the plan's order (creates and updates in
 * dependency order, then deletes). Updates and deletes send the ETag the plan read as If-Match, so a row that
 * changed since stops the apply (412) with what was done before it; nothing after it runs. References are
 * resolved to ids as the rows they name are found or created.
 */
import type { Row } from '../engine/descriptor.ts';
import { planFields } from '../engine/fields.ts';
import { canonical } from '../engine/operations/project.ts';
import { Reference } from './config-file.ts';
import type { Plan, PlannedAction, Skipped } from './plan.ts';
import { refusal, rowPath, type Answer, type ConfigApi } from './remote.ts';

export interface ApplyResult {
  /** "created vigil_slos.checkout" …, in the order done */
  done: string[];
  skipped: Skipped[];
  warnings: string[];
  /** set when the apply stopped before the end */
  stopped?: { address: string; message: string; details: string[] };
}

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

function resolve(value: unknown, ids: Map<string, string>, missing: string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => resolve(v, ids, missing));
  if (!(value instanceof Reference)) return value;
  const id = ids.get(value.address);
  if (id === undefined) missing.push(value.address);
  return id;
}

function request(action: PlannedAction, body: Row | undefined): { method: string; path: string; body?: Row; headers: Record<string, string> } {
  const headers: Record<string, string> = action.etag ? { 'if-match': action.etag } : {};
  const family = action.family.name;
  if (action.action === 'delete') return { method: 'DELETE', path: rowPath(family, action.id), headers };
  if (action.action === 'create' && action.id === undefined) return { method: 'POST', path: rowPath(family), body, headers };
  return { method: 'PUT', path: rowPath(family, action.id), body, headers };
}

function stopReason(action: PlannedAction, answer: Answer, appliedBefore: number): { message: string; details: string[] } {
  const { message, details } = refusal(answer);
  const done = `${appliedBefore} change${appliedBefore === 1 ? ' was' : 's were'} applied before it; nothing after it was. Run \`vigil plan\` again to see where the organization stands.`;
  if (answer.status === 412) return { message: `${action.address} changed since the plan was made, so it was not ${VERB[action.action]} (412 precondition_failed). ${done}`, details };
  if (answer.status === 409) return { message: `${action.address} could not be ${VERB[action.action]}: ${message} Someone may have created it since the plan was made. ${done}`, details };
  if (answer.status === 404) return { message: `${action.address} no longer exists, so it was not ${VERB[action.action]}: ${message} ${done}`, details };
  return { message: `${action.address} could not be ${VERB[action.action]}: ${message} ${done}`, details };
}

export async function applyPlan(api: ConfigApi, plan: Plan): Promise<ApplyResult> {
  const ids = new Map(plan.ids);
  const result: ApplyResult = { done: [], skipped: [], warnings: [] };
  const skipped = new Set<string>();
  for (const action of plan.actions) {
    const missing: string[] = [];
    const body = action.body ? (Object.fromEntries(Object.entries(action.body).map(([f, v]) => [f, resolve(v, ids, missing)])) as Row) : undefined;
    if (missing.length) {
      const reason = `refers to ${missing.join(', ')}, which ${missing.some((a) => skipped.has(a)) ? 'was skipped' : 'does not exist'}`;
      result.skipped.push({ address: action.address, reason, line: action.line });
      skipped.add(action.address);
      continue;
    }
    const call = request(action, body);
    const answer = await api.call(call.method, call.path, call.body, call.headers);
    if (answer.status >= 200 && answer.status < 300) {
      result.done.push(`${VERB[action.action]} ${action.address}`);
      const data = (answer.body?.data ?? {}) as Row;
      if (action.action === 'create' && typeof data.id === 'string') ids.set(action.address, data.id);
      const secrets = planFields(action.family).secrets;
      for (const [field, sent] of Object.entries(body ?? {})) {
        if (secrets.includes(field)) continue;
        if (field in data && canonical(data[field] ?? null) !== canonical(sent ?? null)) {
          result.warnings.push(`${action.address}: ${field} reads ${JSON.stringify(data[field])} after apply, not ${JSON.stringify(sent)} (the service merged or normalized it)`);
        }
      }
      continue;
    }
    if (answer.status === 422 && action.mayBeRefused) {
      const { message, details } = refusal(answer);
      result.skipped.push({ address: action.address, reason: `refused because ${action.mayBeRefused}: ${[message, ...details].join('; ')}`, line: action.line });
      skipped.add(action.address);
      continue;
    }
    result.stopped = { address: action.address, ...stopReason(action, answer, result.done.length) };
    break;
  }
  return result;
}
