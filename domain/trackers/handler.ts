/**
 * The tracker webhooks, after the router's shared work (User-Agent, 1 MiB body limit → 413, token → 404, rate
 * limit → 429, and the signature of a saved `signing_secret` → 401: signatures.ts):
 *
 *   POST /webhooks/issue-tracker/<token>    Linear webhook deliveries (linear.ts)
 *   POST /webhooks/sprint-tracker/<token>   Jira Cloud webhook deliveries (jira.ts)
 *
 * Then, in order: the plan (403 `plan_required` without `ticket_systems`; also 403 when the ops board the cards
 * live on is switched off), the body (400 `bad_request` when it is not a JSON object: no tracker sends that, a
 * hand-made request gets told), then the sync (sync.ts). Answers:
 *
 * - 200 `{ status: "ok", action: created | updated | unchanged | archived, card: { id, key, url, status }, changed?, fix? }`
 * - 200 `{ status: "ignored", reason, card? }` — another event type, no enabled import rule, an item the rule does
 *   not name, an already-finished item, an older state than the one applied;
 * - 503 `{ error: "unavailable", message }` with `Retry-After` when the sync could not be written (the database
 *   failed): both trackers redeliver a failed delivery (Linear after 1 minute, 1 hour and 6 hours; Jira Cloud
 *   retries 5xx answers), and the sync is idempotent, so a redelivery finishes the job.
 *
 * Every decision is a 2xx, so neither tracker counts the hook as failing; refusals are the router's and the plan's.
 */
import { loggedError } from '../../engine/logger.ts';
import { ApiError } from '../../engine/errors.ts';
import { FEATURES, hasFeature } from '../../engine/plans.ts';
import type { WebhookAnswer, WebhookHandler, WebhookRequest } from '../webhook-contract.ts';
import { readGitHubIssues } from './github-issues.ts';
import type { ReadResult } from './item.ts';
import { readJira } from './jira.ts';
import { readLinear } from './linear.ts';
import { syncItem, type SyncEvent, type SyncResult } from './sync.ts';

const RETRY_AFTER_SECONDS = 60;

/** 403 unless the organization's plan (or the operator's override) includes ticket systems. */
export function requireTicketSystems(request: WebhookRequest): void {
  const { organization } = request;
  if (hasFeature(organization.plan, organization.features, 'ticket_systems')) return;
  throw new ApiError('plan_required', `Ticket systems are not included in the ${organization.plan} plan; upgrade to team or above to sync tracker items.`, {
    extra: { feature: 'ticket_systems' satisfies keyof typeof FEATURES },
  });
}

/** The answer of a sync, for the tracker and the delivery log. */
export function syncAnswer(result: SyncResult, extra: Record<string, unknown> = {}): WebhookAnswer {
  const body: Record<string, unknown> = { status: result.status, ...extra };
  if (result.status === 'ignored') body.reason = result.reason;
  else body.action = result.action;
  if (result.card) body.card = result.card;
  if (result.changed?.length) body.changed = result.changed;
  if (result.fix) body.fix = result.fix;
  const outcome = result.status === 'ignored' ? 'ignored' : result.fix ? `${result.action}, fix ${result.fix.outcome}` : result.action!;
  return { status: 200, body, outcome, ...(result.reason ? { detail: result.reason } : {}) };
}

const unavailable = (what: string): WebhookAnswer => {
  const message = `The ${what} could not be recorded; it will be applied when the tracker redelivers it.`;
  return { status: 503, body: { error: 'unavailable', message }, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, outcome: 'error', detail: message };
};

function trackerHandler(read: (body: unknown) => ReadResult, event: (request: WebhookRequest) => SyncEvent, what: string): WebhookHandler {
  return async (request) => {
    requireTicketSystems(request);
    if (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body)) {
      throw new ApiError('bad_request', `The body must be a JSON object, as ${what} sends it.`, { extra: { field: 'body' } });
    }
    const result = read(request.body);
    if (result.kind === 'ignored') return { status: 200, body: { status: 'ignored', reason: result.reason }, outcome: 'ignored', detail: result.reason };
    try {
      return syncAnswer(await syncItem(request.services, request.organization, result.item, event(request), request.receivedAt));
    } catch (error) {
      // a database outage is the router's to answer (503, logged once)
      if (error instanceof ApiError || request.services.outage.noted(error)) throw error;
      request.services.log.error({ err: loggedError(error), source: request.source }, 'tracker delivery not synced');
      return unavailable(`${what} delivery`);
    }
  };
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export const issueTrackerHandler = trackerHandler(
  readLinear,
  (request) => {
    const body = request.body as Record<string, unknown>;
    return { name: `${str(body.type)}.${str(body.action)}`.slice(0, 100), deliveryId: request.header('linear-delivery')?.slice(0, 200) ?? null };
  },
  'Linear',
);

export const sprintTrackerHandler = trackerHandler(
  readJira,
  (request) => ({
    name: str((request.body as Record<string, unknown>).webhookEvent).slice(0, 100),
    deliveryId: request.header('x-atlassian-webhook-identifier')?.slice(0, 200) ?? null,
  }),
  'Jira',
);

/**
 * The code-host endpoint's GitHub `issues` events (timeline/code-host.ts routes them here): the `code_host` rule,
 * the same sync. The code-host endpoint answers 200 whatever happens (GitHub's convention there): `ok` with the
 * card, `ignored` with the reason (no ticket systems in the plan, no enabled rule, an issue it does not name), or
 * `error` when the sync could not be written (redeliver it from the hook's Recent Deliveries).
 */
export async function codeHostIssues(request: WebhookRequest, payload: unknown): Promise<WebhookAnswer> {
  const extra = { event: 'issues' };
  const { organization } = request;
  if (!hasFeature(organization.plan, organization.features, 'ticket_systems')) {
    const reason = `Ticket systems are not included in the ${organization.plan} plan, so issues are not imported.`;
    return { status: 200, body: { status: 'ignored', ...extra, reason }, outcome: 'ignored', detail: reason };
  }
  const result = readGitHubIssues(payload);
  if (result.kind === 'ignored') return { status: 200, body: { status: 'ignored', ...extra, reason: result.reason }, outcome: 'ignored', detail: result.reason };
  const action = typeof (payload as Record<string, unknown>).action === 'string' ? String((payload as Record<string, unknown>).action).slice(0, 40) : '';
  try {
    const synced = await syncItem(request.services, organization, result.item, { name: `issues.${action}`, deliveryId: request.header('x-github-delivery')?.slice(0, 200) ?? null }, request.receivedAt);
    return syncAnswer(synced, extra);
  } catch (error) {
    if (error instanceof ApiError) {
      return { status: 200, body: { status: 'ignored', ...extra, reason: error.message }, outcome: `ignored: ${error.code}`, detail: error.message };
    }
    if (request.services.outage.noted(error)) throw error;
    request.services.log.error({ err: loggedError(error) }, 'code-host issue not synced');
    const message = 'The issue could not be synced; redeliver it from the hook\'s Recent Deliveries.';
    return { status: 200, body: { status: 'error', ...extra, message }, outcome: 'error', detail: message };
  }
}
