/**
 * Asking for a fix: the operation behind `POST /webhooks/fix-requests/<token>` and the tracker webhooks' fix
 * label. `requestFix` validates, picks the target repository (targets.ts), records the request and enqueues its
 * analysis in one transaction: a 202 means both committed.
 *
 * Fields (lengths are ours; the spec sets none):
 * - `description` required, 1..20,000 characters after trimming (room for a stack trace);
 * - `service` ≤ 200 (as repo_settings spells services), `repo` owner/name ≤ 140 (stored lowercased);
 *   empty or null means not sent;
 * - `dedup_key` 1..200 characters of letters, digits and `. _ - : / + = @` (the tickets endpoints' key rule);
 * - `ticket` 1..500 characters without control characters (a tracker key such as ENG-42, or an issue URL).
 * Wrong types and lengths are 422 `validation_failed` with `field`; unknown fields are ignored, as on the
 * tickets endpoints.
 *
 * Repeats (same `dedup_key` or same `ticket`): the earlier request is replaced in place — same id, its fields
 * rewritten, `revision` + 1, back to `analyzing`, analysed again — and its branch and pull request are reused:
 * a patch updates the one pull request, never a second. That holds after `pr_opened` too (the open pull
 * request gets the new commit and text); after a retarget to another repository, the earlier pull request is
 * left open where it is and the timeline says so. A repeat identical to the request (same description,
 * service, repo and keys) changes nothing while it is `analyzing` or `pr_opened` and answers 200
 * `{ status: <current>, id, duplicate: true }` (a retried delivery must not redo the work); after `declined`
 * or `failed` it asks again. A repeat naming both keys that match two requests merges them: the other one is
 * marked `replaced`.
 *
 * The five-open-PR limit counts, per repository, the requests whose pull request is open plus those still
 * `analyzing` (each may become a pull request; counting them is what keeps a burst of requests from opening
 * more than five). A repeat does not count itself. Five is refused, four is accepted (the fifth).
 *
 * Concurrency: every write takes one transaction-scoped lock per organization, so racing repeats see each
 * other's rows (one request, one job) and racing requests see each other in the count.
 */
import { randomUUID } from 'node:crypto';
import type { Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { hasFeature } from '../../engine/plans.ts';
import { appendEvent, COLUMNS } from './records.ts';
import { refusedFor, resolveTarget } from './targets.ts';

export const FIX_QUEUE = 'fix-requests';
export const OPEN_PULL_REQUEST_LIMIT = 5;
export const FIX_LIMITS = { description: 20_000, service: 200, repo: 140, key: 200, ticket: 500 } as const;

const KEY_PATTERN = /^[\p{L}\p{Nd}._\-:/+=@]+$/u;
const REPO_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9_.-]{1,100}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** What a caller sends; each value is checked here, whatever its type. */
export interface FixRequestInput {
  description: unknown;
  service?: unknown;
  repo?: unknown;
  dedup_key?: unknown;
  ticket?: unknown;
}

export interface FixRequestAnswer {
  /** 202 accepted (new, or a repeat that replaced the request); 200 an identical repeat that changed nothing */
  status: 202 | 200;
  body: { status: string; id: string; duplicate?: true };
  /** for the delivery log: accepted, replaced, duplicate */
  outcome: 'accepted' | 'replaced' | 'duplicate';
}

/** 422 naming the field: `{ error, message, field, errors: [{ field, message }] }`. */
export function fieldRefused(field: string, message: string): ApiError {
  return new ApiError('validation_failed', `${field} ${message}.`, { extra: { field }, errors: [{ field, message }] });
}

export function requireFixPullRequests(organization: Organization): void {
  if (hasFeature(organization.plan, organization.features, 'fix_pull_requests')) return;
  throw new ApiError('plan_required', `Fix pull requests are not included in the ${organization.plan} plan; they need the business plan.`, {
    extra: { feature: 'fix_pull_requests' },
  });
}

/** A string as PostgreSQL can hold it, trimmed; null when absent or empty (when `required` is false). */
function text(input: Record<string, unknown>, field: string, max: number, required: boolean): string | null {
  const value = input[field];
  if (value === undefined || value === null) {
    if (required) throw fieldRefused(field, 'is required');
    return null;
  }
  if (typeof value !== 'string') throw fieldRefused(field, 'must be a string');
  const s = value.toWellFormed().replaceAll('\u0000', '').trim();
  if (s === '') {
    if (required) throw fieldRefused(field, 'must not be blank');
    return null;
  }
  if ([...s].length > max) throw fieldRefused(field, `must be at most ${max} characters`);
  return s;
}

/** An idempotency key (`dedup_key`, or the Idempotency-Key header: `field` names where it came from). */
export function checkKey(value: unknown, field: string): string {
  if (typeof value !== 'string') throw fieldRefused(field, 'must be a string of letters, digits and . _ - : / + = @');
  if (value.trim() === '') throw fieldRefused(field, 'must not be blank');
  if ([...value].length > FIX_LIMITS.key) throw fieldRefused(field, `must be at most ${FIX_LIMITS.key} characters`);
  if (!KEY_PATTERN.test(value)) throw fieldRefused(field, 'may hold only letters, digits and . _ - : / + = @');
  return value;
}

export interface FixFields {
  description: string;
  service: string | null;
  repo: string | null;
  dedup_key: string | null;
  ticket: string | null;
}

export function checkFields(input: Record<string, unknown>): FixFields {
  const description = text(input, 'description', FIX_LIMITS.description, true)!;
  const service = text(input, 'service', FIX_LIMITS.service, false);
  const repo = text(input, 'repo', FIX_LIMITS.repo, false);
  if (repo !== null && !REPO_PATTERN.test(repo)) throw fieldRefused('repo', 'must be a repository written owner/name');
  const dedupKey = input.dedup_key === undefined || input.dedup_key === null ? null : checkKey(input.dedup_key, 'dedup_key');
  const ticket = text(input, 'ticket', FIX_LIMITS.ticket, false);
  if (ticket !== null && CONTROL.test(ticket)) throw fieldRefused('ticket', 'must not hold control characters');
  return { description, service, repo: repo?.toLowerCase() ?? null, dedup_key: dedupKey, ticket };
}

type Row = Record<string, unknown>;

const same = (row: Row, f: FixFields) =>
  row.description === f.description && (row.service ?? null) === f.service && (row.repo_requested ?? null) === f.repo &&
  (f.dedup_key === null || row.dedup_key === f.dedup_key) && (f.ticket === null || row.ticket === f.ticket);

/**
 * Records a fix request (or replaces the earlier one with the same key) and queues its analysis. Throws
 * ApiErrors: 403 `plan_required`; 422 `validation_failed` with `field`; 422 with `reason`
 * (`code_host_app_not_installed`, `target_not_mapped`, `target_ambiguous`, `target_required`,
 * `fix_pull_requests_disabled`, `open_pull_request_limit`).
 */
export async function requestFix(services: Services, organization: Organization, input: FixRequestInput, now: Date): Promise<FixRequestAnswer> {
  requireFixPullRequests(organization);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw fieldRefused('body', 'must be a JSON object');
  const fields = checkFields(input as unknown as Record<string, unknown>);
  const orgId = organization.id;

  return inTransaction(services, async (store) => {
    const sql = store.execute;
    await sql('select pg_advisory_xact_lock(hashtext(?))', [`${orgId}:fix_requests`]);
    const keys: string[] = [];
    const params: unknown[] = [orgId];
    if (fields.dedup_key !== null) (keys.push('dedup_key = ?'), params.push(fields.dedup_key));
    if (fields.ticket !== null) (keys.push('ticket = ?'), params.push(fields.ticket));
    const matches = keys.length
      ? await sql(`select ${COLUMNS} from fix_requests where organization_id = ? and status <> 'replaced' and (${keys.join(' or ')}) order by seq`, params)
      : [];
    const [existing, ...others] = matches;
    if (existing && others.length === 0 && same(existing, fields) && (existing.status === 'analyzing' || existing.status === 'pr_opened')) {
      return { status: 200 as const, body: { status: String(existing.status), id: String(existing.id), duplicate: true as const }, outcome: 'duplicate' as const };
    }

    const target = await resolveTarget(services, store, orgId, { service: fields.service, repo: fields.repo });
    const replacedIds = matches.map((m) => String(m.id));
    const [{ n } = { n: 0 }] = await sql(
      `select count(*)::int as n from fix_requests where organization_id = ? and repo = ? and (status = 'analyzing' or pr_state = 'open')
       ${replacedIds.length ? `and id not in (${replacedIds.map(() => '?').join(', ')})` : ''}`,
      [orgId, target.repo, ...replacedIds],
    );
    if (Number(n) >= OPEN_PULL_REQUEST_LIMIT) {
      throw refusedFor(
        'open_pull_request_limit',
        `The target repository already has ${OPEN_PULL_REQUEST_LIMIT} open fix pull requests (requests still analysing count too); merge or close one, then ask again.`,
        { repo: target.repo, limit: OPEN_PULL_REQUEST_LIMIT },
      );
    }

    let id: string;
    let revision: number;
    let outcome: FixRequestAnswer['outcome'];
    if (existing) {
      id = String(existing.id);
      revision = Number(existing.revision) + 1;
      outcome = 'replaced';
      // a request also named by the other key folds into this one; its keys move here
      for (const other of others) {
        await sql(`update fix_requests set status = 'replaced', dedup_key = null, ticket = null, worker_job = null, lease_until = null, updated_at = ?, completed_at = ? where id = ?`, [now, now, other.id]);
        await appendEvent(sql, orgId, String(other.id), Number(other.revision), now, 'replaced', { by: id, pull_request_left_open: other.pr_state === 'open' ? other.pr_url : null });
      }
      const retarget = existing.repo !== target.repo;
      const changed = (['description', 'service', 'repo', 'dedup_key', 'ticket'] as const).filter((f) => {
        const before = f === 'repo' ? existing.repo : existing[f];
        const after = f === 'repo' ? target.repo : (fields[f] ?? (f === 'dedup_key' || f === 'ticket' ? existing[f] : null));
        return (before ?? null) !== (after ?? null);
      });
      await sql(
        `update fix_requests set status = 'analyzing', description = ?, service = ?, repo_requested = ?, repo = ?, target_via = ?,
           dedup_key = coalesce(?, dedup_key), ticket = coalesce(?, ticket), revision = ?, reason = null, completed_at = null, updated_at = ?
           ${retarget ? ', branch = null, pr_url = null, pr_number = null, pr_state = null' : ''}
         where id = ?`,
        [fields.description, fields.service, fields.repo, target.repo, target.via, fields.dedup_key, fields.ticket, revision, now, id],
      );
      await appendEvent(sql, orgId, id, revision, now, 'replaced', {
        previous_status: String(existing.status), changed,
        ...(retarget && existing.pr_state === 'open' ? { pull_request_left_open: existing.pr_url } : {}),
        ...(others.length ? { merged: others.map((o) => String(o.id)) } : {}),
      });
    } else {
      id = randomUUID();
      revision = 1;
      outcome = 'accepted';
      await sql(
        `insert into fix_requests (id, organization_id, status, description, service, repo_requested, repo, target_via, dedup_key, ticket, revision, created_at, updated_at)
         values (?, ?, 'analyzing', ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        [id, orgId, fields.description, fields.service, fields.repo, target.repo, target.via, fields.dedup_key, fields.ticket, now, now],
      );
      await appendEvent(sql, orgId, id, revision, now, 'received', { repo: target.repo, target_via: target.via });
    }
    // one queued job per request: a repeat while one waits is picked up by it (it reads the latest revision)
    const job = await services.jobs.send(FIX_QUEUE, { request_id: id, organization_id: orgId }, { store, singletonKey: `fix-request:${id}` });
    await appendEvent(sql, orgId, id, revision, now, 'queued', job ? {} : { note: 'an analysis was already queued; it takes this revision' });
    return { status: 202 as const, body: { status: 'analyzing', id }, outcome };
  });
}
