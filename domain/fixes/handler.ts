/**
 * `POST /webhooks/fix-requests/<token>`: ask for a fix in plain words (requests.ts holds the rules).
 *
 *   202 { status: "analyzing", id }                    queued (new, or a repeat that replaced the request)
 *   200 { status: <current>, id, duplicate: true }     a repeat identical to a request still analysing or with its PR open
 *   403 plan_required                                   the plan lacks fix pull requests
 *   422 { error: "validation_failed", field, … }        a field to fix (`body` when the body is not a JSON object)
 *   422 { error: "validation_failed", reason, … }       code_host_app_not_installed, target_not_mapped, target_ambiguous,
 *                                                       target_required, fix_pull_requests_disabled, open_pull_request_limit
 *
 * The router has already done the shared work (User-Agent, the 64 KiB limit → 413, the token → 404, the rate
 * limit → 429). The `Idempotency-Key` header, when sent, is the request's `dedup_key` (it wins over the body's,
 * as on the tickets endpoints): a client that retries with the header gets the duplicate answer, not a second
 * analysis. Delivery-log outcomes: accepted, replaced, duplicate, refused: <field or reason>, refused: plan.
 */
import { ApiError } from '../../engine/errors.ts';
import type { WebhookAnswer, WebhookHandler } from '../webhook-contract.ts';
import { checkKey, fieldRefused, requestFix, requireFixPullRequests } from './requests.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function refusal(error: ApiError): WebhookAnswer {
  const field = typeof error.extra?.field === 'string' ? error.extra.field : undefined;
  const reason = typeof error.extra?.reason === 'string' ? error.extra.reason : undefined;
  const outcome = error.code === 'plan_required' ? 'refused: plan' : `refused: ${field ?? reason ?? error.code}`;
  return { status: error.status, body: error.toBody(), headers: error.headers, outcome, detail: error.message };
}

export const fixRequestHandler: WebhookHandler = async (request) => {
  const { services, organization, receivedAt, body } = request;
  try {
    // the plan is refused before the body is read, as on every endpoint
    requireFixPullRequests(organization);
    if (!isRecord(body)) throw fieldRefused('body', 'must be a JSON object');
    const fields: Record<string, unknown> = { ...body };
    const header = request.header('idempotency-key');
    if (header !== undefined) fields.dedup_key = checkKey(header, 'Idempotency-Key');
    const answer = await requestFix(services, organization, fields as { description: unknown }, receivedAt);
    return { status: answer.status, body: answer.body, outcome: answer.outcome, detail: `request ${answer.body.id}` };
  } catch (error) {
    if (error instanceof ApiError) return refusal(error);
    throw error;
  }
};
