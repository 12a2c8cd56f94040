/**
 * Reading and recording fix requests: the timeline of steps, the row as answers show it, the list and the one
 * request with its timeline (the agent tools), and the statuses.
 */
import type { Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { iso, type SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, type ListFilter, type RecordList } from '../../engine/operations/record-list.ts';

/** `analyzing` until the analysis completes; `replaced` only for a request merged into another by a repeat. */
export const FIX_STATUSES = ['analyzing', 'pr_opened', 'declined', 'failed', 'replaced'] as const;
export type FixStatus = (typeof FIX_STATUSES)[number];

type Json = Record<string, unknown>;

export const COLUMNS =
  'id, organization_id, status, description, service, repo_requested, repo, target_via, dedup_key, ticket, revision, reason, branch, pr_url, pr_number, pr_state, ' +
  'ai_provider, ai_model, worker_job, lease_until, created_at, updated_at, completed_at';

export async function appendEvent(sql: Sql, organizationId: string, requestId: string, revision: number, at: Date, step: string, detail: Json = {}): Promise<void> {
  await sql('insert into fix_request_events (organization_id, request_id, at, step, revision, detail) values (?, ?, ?, ?, ?, ?::jsonb)', [
    organizationId, requestId, at, step, revision, JSON.stringify(detail),
  ]);
}

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

export function fixRequestView(r: Json): Json {
  return {
    id: String(r.id),
    status: String(r.status),
    description: String(r.description),
    service: str(r.service),
    repo: String(r.repo),
    target_via: String(r.target_via),
    dedup_key: str(r.dedup_key),
    ticket: str(r.ticket),
    revision: Number(r.revision),
    reason: str(r.reason),
    pr_url: str(r.pr_url),
    pr_number: r.pr_number === null || r.pr_number === undefined ? null : Number(r.pr_number),
    pr_state: str(r.pr_state),
    branch: str(r.branch),
    ai_provider: str(r.ai_provider),
    ai_model: str(r.ai_model),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    completed_at: iso(r.completed_at),
  };
}

export const FIX_REQUEST_NOT_FOUND = 'No fix request with that id exists in this organization.';

export interface FixRequestFilters {
  status?: string;
  repo?: string;
  limit?: unknown;
  cursor?: unknown;
}

const FIX_REQUESTS: RecordList = { name: 'fix_requests', select: `seq, ${COLUMNS}`, from: 'fix_requests', keys: NEWEST_FIRST, limits: RECORD_LIST_LIMITS };

/** One page of fix requests, newest first; the repository filter in any case. */
export async function listFixRequests(services: Services, organization: Organization, input: FixRequestFilters) {
  const filters: ListFilter[] = equalTo({ status: input.status }, { status: 'status' });
  if (input.repo !== undefined) {
    const repo = input.repo.trim().toLowerCase();
    filters.push({ field: 'repo', value: repo, sql: 'repo = ?', params: [repo] });
  }
  return recordPage(services, FIX_REQUESTS, organization.id, filters, input, (rows) => rows.map(fixRequestView));
}

export async function getFixRequest(services: Services, organization: Organization, id: string): Promise<Json> {
  if (!isUuid(id)) throw new ApiError('not_found', FIX_REQUEST_NOT_FOUND);
  const store = readStore(services);
  const [row] = await store.execute(`select ${COLUMNS} from fix_requests where organization_id = ? and id = ?`, [organization.id, id.toLowerCase()]);
  if (!row) throw new ApiError('not_found', FIX_REQUEST_NOT_FOUND);
  const events = await store.execute('select at, step, revision, detail from fix_request_events where request_id = ? order by seq', [row.id]);
  return {
    ...fixRequestView(row),
    timeline: events.map((e) => ({
      at: iso(e.at), step: String(e.step), revision: Number(e.revision), detail: (typeof e.detail === 'string' ? JSON.parse(e.detail) : e.detail) ?? {},
    })),
  };
}
