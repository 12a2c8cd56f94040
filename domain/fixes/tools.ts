/**
 * Fix requests for agents (the spec's operations console): `list_fix_requests` (also REST
 * `GET /api/v1/config/fix_requests`) and `get_fix_request` with its timeline (also
 * `GET /api/v1/config/fix_requests/{id}`). Reading needs no plan feature, so a plan that lost fix pull requests
 * still shows the requests it made.
 */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { FIX_STATUSES, getFixRequest, listFixRequests, type FixRequestFilters } from './records.ts';
import { FIX_LIMITS } from './requests.ts';
import { orNull, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { RECORD_LIST_LIMITS, recordPageSchema } from '../../engine/operations/record-list.ts';

const STATUS_WORDS =
  'analyzing (queued or being analysed), pr_opened (a draft pull request is open: pr_url), declined (the provider proposed no patch: reason), ' +
  'failed (the analysis could not finish: reason), replaced (merged into another request by a repeat naming both keys)';

const FIX_REQUEST = Type.Object({
  id: Type.String(),
  status: Type.String({ description: STATUS_WORDS }),
  description: Type.String(),
  service: orNull(Type.String()),
  repo: Type.String({ description: 'the target repository, owner/name' }),
  target_via: Type.String({ description: 'how the target was chosen: repo, service, only_mapped_repo' }),
  dedup_key: orNull(Type.String()),
  ticket: orNull(Type.String()),
  revision: Type.Integer({ description: '1, then +1 for each repeat that replaced the request' }),
  reason: orNull(Type.String({ description: 'declined: the provider\'s reason; failed: what went wrong' })),
  pr_url: orNull(Type.String()),
  pr_number: orNull(Type.Integer()),
  pr_state: orNull(Type.String({ description: 'open, or closed once the code host no longer lists it open' })),
  branch: orNull(Type.String()),
  ai_provider: orNull(Type.String({ description: 'the AI provider (its name, or platform) of the latest analysis' })),
  ai_model: orNull(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const listFixRequestsOperation: DomainOperation = {
  name: 'list_fix_requests',
  description: `Fix requests, newest first. Filters: status (${FIX_STATUSES.join(', ')}), repo (owner/name, any case). Paged: pass \`next_cursor\` back as \`cursor\`.`,
  input: Type.Object(
    {
      status: Type.Optional(Type.Union(FIX_STATUSES.map((s) => Type.Literal(s)), { description: STATUS_WORDS })),
      repo: Type.Optional(Type.String({ minLength: 3, maxLength: FIX_LIMITS.repo, description: 'only requests targeting this repository (owner/name)' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'fix_requests' },
  answer: { schema: recordPageSchema(FIX_REQUEST) },
  async run(services, caller, input) {
    return { json: await listFixRequests(services, caller.organization, input as FixRequestFilters) };
  },
};

export const getFixRequestOperation = {
  name: 'get_fix_request',
  description:
    `One fix request by id: status (${STATUS_WORDS}), reason, pull request URL, and its timeline of steps in order ` +
    '(received, replaced, queued, analysis_started, files_read, ai_answered, pull_request_opened or pull_request_updated, warning, superseded, ' +
    'then pr_opened, declined or failed).',
  input: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'the id the fix-requests webhook answered' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'fix_requests', param: 'id' },
  answer: {
    schema: Type.Object({
      data: Type.Intersect([
        FIX_REQUEST,
        Type.Object({
          timeline: Type.Array(Type.Object({ at: Type.String(), step: Type.String(), revision: Type.Integer(), detail: Type.Record(Type.String(), JSON_VALUE()) })),
        }),
      ]),
    }),
  },
  async run(services, caller, input) {
    return { json: { data: await getFixRequest(services, caller.organization, String(input.id)) } };
  },
} satisfies DomainOperation;

export const FIX_OPERATIONS: DomainOperation[] = [listFixRequestsOperation, getFixRequestOperation];
