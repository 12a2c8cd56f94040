/**
 * `list_deployments` and `get_deployment`: the deployments timeline, for agents (and REST:
 * `GET /api/v1/config/deployments`, `GET /api/v1/config/deployments/{id}`). What an investigation reads to answer
 * "what changed on this service before the alert fired": deploys, rollbacks and other changes posted to the
 * deployments webhook, and pushes, merges, workflow runs, GitHub deployments and releases from the code-host
 * webhook.
 */
import Type, { type Static } from 'typebox';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';
import { iso, type SqlExecutor } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { TEXT_COLUMNS } from './store.ts';
import { DEPLOYMENT_EVENT_TYPES, EVENT_TYPES, STATUSES, TIMELINE_SOURCES } from './vocabulary.ts';
import { literals, time, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { recordPage, recordPageSchema, equalTo, RECORD_LIST_LIMITS, type ListFilter, type RecordList } from '../../engine/operations/record-list.ts';

const optionalText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const EVENT_TYPE_TEXT =
  `${DEPLOYMENT_EVENT_TYPES.join(', ')} (sent to the deployments webhook; a GitHub deployment status is a deploy too), ` +
  'or code_push, pull_request_merged, workflow_run, release (written by the code-host webhook)';
const STATUS_TEXT = 'started, in_progress, succeeded, failed or cancelled (the last three are final)';

const ENTRY = Type.Object({
  id: Type.String(),
  source: literals(TIMELINE_SOURCES, 'the webhook it came from: deployments (a CI/CD system) or code-host (GitHub)'),
  dedup_key: optionalText('deliveries with this key update this entry; code-host entries: github:<event>:<repository id>:<id>:<service>'),
  event_type: literals(EVENT_TYPES, EVENT_TYPE_TEXT),
  status: literals(STATUSES, STATUS_TEXT),
  service: Type.String(),
  environment: optionalText('such as production or staging'),
  version: optionalText('the version deployed (a GitHub push: the new commit; a release: its tag)'),
  previous_version: optionalText('the version it replaced'),
  deployed_by: optionalText('who deployed, merged, pushed or started it'),
  description: optionalText('what changed, in the sender\'s words'),
  commit_sha: optionalText('the commit'),
  repo_full_name: optionalText('owner/name'),
  pr_url: optionalText('the pull request'),
  compare_url: optionalText('the diff from the previous version'),
  run_url: optionalText('the CI run or deployment log'),
  branch: optionalText('the branch'),
  author: optionalText('who wrote the change'),
  started_at: time('when it started, as the sender said'),
  completed_at: time('when it finished, as the sender said'),
  occurred_at: Type.String({ format: 'date-time', description: 'its time on the timeline: completed_at, else started_at, else when it was first received' }),
  details: Type.Record(Type.String(), JSON_VALUE(), { description: 'code-host extras: github_event, delivery_id, html_url (the event\'s page), run number, conclusion, …; {} for deployments' }),
  created_at: Type.String({ format: 'date-time', description: 'when the first delivery arrived' }),
  updated_at: Type.String({ format: 'date-time', description: 'when a delivery last changed it' }),
});
export type TimelineEntry = Static<typeof ENTRY>;

const COLUMNS = `id, source, dedup_key, event_type, status, service, ${TEXT_COLUMNS.join(', ')}, started_at, completed_at, occurred_at, details,
  created_at, updated_at`;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** One entry as the agent tools and outbound events show it. */
export async function readEntry(sql: SqlExecutor, id: string): Promise<TimelineEntry> {
  const [row] = await sql(`select ${COLUMNS} from timeline_entries where id = ?`, [id]);
  return toEntry(row!);
}

function toEntry(r: Record<string, unknown>): TimelineEntry {
  const entry: Record<string, unknown> = {
    id: String(r.id), source: r.source, dedup_key: textOrNull(r.dedup_key), event_type: r.event_type, status: r.status, service: String(r.service),
  };
  for (const column of TEXT_COLUMNS) entry[column] = textOrNull(r[column]);
  return {
    ...entry,
    started_at: iso(r.started_at), completed_at: iso(r.completed_at), occurred_at: iso(r.occurred_at)!, details: json(r.details) ?? {},
    created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)!,
  } as TimelineEntry;
}

const name = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));
const dateTime = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));

/** By occurred_at, newest first; entries of one instant in insertion order, newest first. */
const DEPLOYMENTS: RecordList = {
  name: 'deployments',
  select: `seq, ${COLUMNS}`,
  from: 'timeline_entries',
  keys: [{ column: 'occurred_at', direction: 'desc' }, { column: 'seq', direction: 'desc' }],
  limits: RECORD_LIST_LIMITS,
};

export const listDeployments = {
  name: 'list_deployments',
  description:
    'The deployments timeline, newest first (by occurred_at: completed_at, else started_at, else when received): deploys, rollbacks, config ' +
    'changes, feature flags, scaling and restarts posted to the deployments webhook, and pushes to the default branch, merged pull requests, ' +
    'workflow runs, GitHub deployments and published releases from the code-host webhook. Use it to see what changed on a service before an ' +
    'alert fired (service and until = the alert\'s start). get_deployment gives one entry. Paged: pass `next_cursor` back as `cursor`.',
  input: Type.Object(
    {
      service: name('only entries of this service (exact)'),
      environment: name('only entries of this environment (exact)'),
      event_type: Type.Optional(literals(EVENT_TYPES, `only this kind: ${EVENT_TYPE_TEXT}`)),
      status: Type.Optional(literals(STATUSES, `only entries in this status: ${STATUS_TEXT}`)),
      source: Type.Optional(literals(TIMELINE_SOURCES, 'only entries from this webhook: deployments or code-host')),
      since: dateTime('only entries that occurred at or after this time (ISO 8601)'),
      until: dateTime('only entries that occurred at or before this time (ISO 8601)'),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'deployments' },
  answer: { schema: recordPageSchema(ENTRY) },
  async run(services, caller, input) {
    const filters: ListFilter[] = equalTo(input, { service: 'service', environment: 'environment', event_type: 'event_type', status: 'status', source: 'source' });
    for (const [field, operator] of [['since', '>='], ['until', '<=']] as const) {
      if (typeof input[field] !== 'string') continue;
      const at = new Date(input[field]);
      if (Number.isNaN(at.getTime())) throw validationFailed([{ field, message: 'must be an ISO 8601 date-time' }]);
      filters.push({ field, value: at.toISOString(), sql: `occurred_at ${operator} ?`, params: [at] });
    }
    return { json: await recordPage(services, DEPLOYMENTS, caller.organization.id, filters, input, (rows) => rows.map(toEntry)) };
  },
} satisfies DomainOperation;

export const getDeployment: DomainOperation = {
  name: 'get_deployment',
  description:
    'One entry of the deployments timeline by id (from list_deployments or the webhook\'s answer): service, environment, versions, commit, ' +
    'repository, pull request, compare and run URLs, who deployed it, when it started and finished, and for code-host entries the GitHub details.',
  input: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'the entry id' }) }, { additionalProperties: false }),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'deployments', param: 'id' },
  answer: { schema: Type.Object({ data: ENTRY }) },
  async run(services, caller, input) {
    const missing = new ApiError('not_found', 'No timeline entry with that id exists in this organization.');
    if (!isUuid(input.id)) throw missing;
    const [row] = await readStore(services).execute(`select ${COLUMNS} from timeline_entries where organization_id = ? and id = ?`, [caller.organization.id, input.id]);
    if (!row) throw missing;
    return { json: { data: toEntry(row) } };
  },
};

export const TIMELINE_OPERATIONS: DomainOperation[] = [listDeployments, getDeployment];
