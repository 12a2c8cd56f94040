/**
 * `POST /webhooks/deployments/<token>`: a deploy, rollback or other change on the timeline, as a CI/CD system
 * posts it. The body is a JSON object with the spec's fields; what the spec leaves open is decided here:
 *
 * - `service` is required (1..200 characters); every other field is optional;
 * - `event_type`: `deploy` (the default), `rollback`, `config_change`, `feature_flag`, `scale`, `restart`;
 *   `status`: `started`, `in_progress`, `succeeded` (the default), `failed`, `cancelled` — case and `-`/space
 *   do not matter, and CI synonyms are read (vocabulary.ts: success, failure, canceled, running, pending, …);
 *   any other value is refused;
 * - `started_at`, `completed_at`: ISO 8601 date-times with an offset or `Z` (`2026-03-01T12:00:00Z`,
 *   `2026-03-01T14:00:00.5+02:00`); without an offset, an epoch number or an impossible date is refused;
 *   `completed_at` earlier than `started_at` in the same delivery is refused;
 * - lengths: names, versions, commit and branch (`service`, `environment`, `version`, `previous_version`,
 *   `deployed_by`, `commit_sha`, `repo_full_name`, `branch`, `author`) at most 200 characters; `pr_url`,
 *   `compare_url`, `run_url` at most 2,000 and absolute http(s) URLs (user and password removed, credential-like
 *   query values replaced); `description` at most 4,000; longer is refused, never cut;
 * - strings are trimmed; NUL characters are dropped and lone surrogates replaced (PostgreSQL holds neither);
 *   numbers are taken as text (`"version": 42`); `null` or a blank string is "not sent"; a boolean, object or
 *   array is refused;
 * - `dedup_key`: 1..200 characters without control characters; blank is refused (a sender that sends a key
 *   means to deduplicate). Sending the same key again updates that entry (store.ts): fields not sent keep their
 *   earlier values (`service`, required on every delivery, takes the later one's);
 * - fields the table does not name are ignored (CI tools add their own), as are `id`, `source` and the like.
 *
 * Answers: 200 `{ status: "ok", id, action: "created" | "updated" }`; 422 `{ error: "validation_failed",
 * message, field, errors: [{ field, message }] }` with `field` the first refused one (`body` when the body is
 * not a JSON object). The delivery log's outcome: `created`, `updated` or `refused: <field>`.
 */
import { validationFailed, type FieldError } from '../../engine/errors.ts';
import type { WebhookAnswer, WebhookRequest } from '../webhook-contract.ts';
import { httpUrl, isRecord } from '../../engine/payload.ts';
import { deploymentEvent } from '../../outbound/events.ts';
import { writeAndPublish } from '../../outbound/publish.ts';
import { recordEntry, type EntryDraft, type TextColumn } from './store.ts';
import { readEntry } from './tools.ts';
import { clean, deploymentEventType, DEPLOYMENT_EVENT_TYPES, LIMITS, parseTimestamp, status, STATUSES } from './vocabulary.ts';

const NAME_FIELDS = ['environment', 'version', 'previous_version', 'deployed_by', 'commit_sha', 'repo_full_name', 'branch', 'author'] as const;
const URL_FIELDS = ['pr_url', 'compare_url', 'run_url'] as const;
const CONTROL = /[\u0000-\u001f\u007f]/;

type Parsed = { draft: EntryDraft; errors: FieldError[] };

/** A field's value as text: undefined when absent, null, blank; an error message when not text. */
function textOf(body: Record<string, unknown>, field: string): { value?: string; error?: string } {
  const raw = Object.hasOwn(body, field) ? body[field] : undefined;
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'number' && Number.isFinite(raw)) return { value: String(raw) };
  if (typeof raw !== 'string') return { error: 'must be a string' };
  const value = clean(raw);
  return value === undefined ? {} : { value };
}

/** Reads and checks a deployments body: every refused field is named. */
export function parseDeployment(body: unknown): Parsed {
  const draft: EntryDraft = { source: 'deployments', service: '', fields: {} };
  const errors: FieldError[] = [];
  if (!isRecord(body)) return { draft, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const refuse = (field: string, message: string) => errors.push({ field, message });
  const bounded = (field: string, max: number): string | undefined => {
    const { value, error } = textOf(body, field);
    if (error) return void refuse(field, error);
    if (value !== undefined && value.length > max) return void refuse(field, `must be at most ${max} characters`);
    return value;
  };

  const service = bounded('service', LIMITS.name);
  if (service === undefined && !errors.some((e) => e.field === 'service')) refuse('service', 'is required');
  draft.service = service ?? '';

  const eventType = bounded('event_type', LIMITS.name);
  if (eventType !== undefined) {
    draft.event_type = deploymentEventType(eventType);
    if (!draft.event_type) refuse('event_type', `must be one of ${DEPLOYMENT_EVENT_TYPES.join(', ')}`);
  }
  const state = bounded('status', LIMITS.name);
  if (state !== undefined) {
    draft.status = status(state);
    if (!draft.status) refuse('status', `must be one of ${STATUSES.join(', ')}`);
  }

  for (const field of NAME_FIELDS) {
    const value = bounded(field, LIMITS.name);
    if (value !== undefined) draft.fields[field as TextColumn] = value;
  }
  const description = bounded('description', LIMITS.description);
  if (description !== undefined) draft.fields.description = description;
  for (const field of URL_FIELDS) {
    const value = bounded(field, LIMITS.url);
    if (value === undefined) continue;
    const url = /^https?:\/\//i.test(value) ? httpUrl(value) : undefined;
    if (url === undefined) refuse(field, 'must be an absolute http or https URL');
    else if (url.length > LIMITS.url) refuse(field, `must be at most ${LIMITS.url} characters`);
    else draft.fields[field] = url;
  }

  for (const field of ['started_at', 'completed_at'] as const) {
    const { value } = textOf(body, field);
    if (value === undefined && (body[field] === undefined || body[field] === null || typeof body[field] === 'string')) continue;
    const at = typeof body[field] === 'string' && value !== undefined && value.length <= 64 ? parseTimestamp(value) : undefined;
    if (!at) refuse(field, 'must be an ISO 8601 date-time with an offset or Z, such as 2026-03-01T12:00:00Z');
    else draft[field] = at;
  }
  if (draft.started_at && draft.completed_at && draft.completed_at < draft.started_at) refuse('completed_at', 'must not be earlier than started_at');

  const key = Object.hasOwn(body, 'dedup_key') ? body.dedup_key : undefined;
  if (key !== undefined && key !== null) {
    if (typeof key !== 'string' && !(typeof key === 'number' && Number.isFinite(key))) refuse('dedup_key', 'must be a string');
    else {
      const text = String(key);
      if (text.trim() === '') refuse('dedup_key', 'must not be blank');
      else if (text.length > LIMITS.dedupKey) refuse('dedup_key', `must be at most ${LIMITS.dedupKey} characters`);
      else if (CONTROL.test(text) || text.toWellFormed() !== text) refuse('dedup_key', 'must not contain control characters or unpaired surrogates');
      else draft.dedup_key = text;
    }
  }
  return { draft, errors };
}

export async function deploymentsHandler(request: WebhookRequest): Promise<WebhookAnswer> {
  const { draft, errors } = parseDeployment(request.body);
  if (errors.length) {
    const error = validationFailed(errors);
    const field = errors[0]!.field;
    return {
      status: 422,
      body: { ...error.toBody(), field },
      outcome: `refused: ${field}`,
      detail: errors.map((e) => `${e.field} ${e.message}`).join('; '),
    };
  }
  const { services, organization, receivedAt } = request;
  // deployment.recorded goes out with the entry (in its transaction) when an outbound rule takes it
  const recorded = await writeAndPublish(services, organization.id, ['deployment.recorded'], (sql) => recordEntry(sql, organization.id, draft, receivedAt),
    async (r, sql) => [deploymentEvent(await readEntry(sql, r.id), r.action, receivedAt)]);
  return { status: 200, body: { status: 'ok', id: recorded.id, action: recorded.action }, outcome: recorded.action };
}
