/**
 * `get_investigation` (also REST `GET /api/v1/config/investigations/{id}`): one investigation by its id, or the
 * latest of an alert by `alert_id`, with its status, findings or failure reason, and what its provider calls cost.
 * `list_investigations` (also `GET /api/v1/config/investigations`): every investigation, newest first, paged.
 * `list_notifications` (also `GET /api/v1/config/notifications`): what the service raised for the organization's
 * people, newest first (the monthly AI budget warning). Another organization's rows answer 404 like unknown ids.
 */
import Type from 'typebox';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';
import { iso, jsonValue } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { time, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';

const STATUSES = ['requested', 'running', 'completed', 'failed'] as const;

const FINDINGS = Type.Object({
  summary: Type.String(),
  likely_cause: Type.Union([Type.String(), Type.Null()]),
  evidence: Type.Array(Type.String()),
  next_steps: Type.Array(Type.String()),
  confidence: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Null()]),
  mode: Type.Union([Type.Literal('single_agent'), Type.Literal('multi_agent')]),
  redacted: Type.Boolean({ description: 'whether the prompts were anonymized first' }),
  agents: Type.Array(Type.Object({ role: Type.String(), provider: Type.String(), model: Type.String(), output: Type.String() }), {
    description: 'each agent\'s answer: investigator; or triager, change_analyst and summariser',
  }),
});

const INVESTIGATION = Type.Object({
  id: Type.String(),
  alert_id: Type.Union([Type.String(), Type.Null()]),
  storm_id: Type.Union([Type.String(), Type.Null()]),
  trigger: Type.String({ description: 'automatic (the alert pipeline)' }),
  status: Type.Union(STATUSES.map((s) => Type.Literal(s)), { description: 'requested → running → completed | failed' }),
  requested_at: Type.String({ format: 'date-time' }),
  started_at: time('when a worker took it up'),
  finished_at: time('when it completed or failed'),
  findings: Type.Union([FINDINGS, Type.Null()], { description: 'when completed' }),
  failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'when failed: why, in a sentence' }),
  cost_usd: Type.Number({ description: 'what its provider calls cost (the spend ledger)' }),
});

const INVESTIGATION_COLUMNS = `i.id, i.alert_id, i.storm_id, i.trigger, i.status, i.requested_at, i.started_at, i.finished_at, i.findings, i.failure_reason,
  (select coalesce(sum(s.cost_usd), 0)::float8 from ai_spend s where s.organization_id = i.organization_id and s.reference = i.id::text) as cost_usd`;

function investigationView(row: Record<string, unknown>) {
  return {
    id: String(row.id), alert_id: (row.alert_id as string | null) ?? null, storm_id: (row.storm_id as string | null) ?? null, trigger: String(row.trigger),
    status: row.status, requested_at: iso(row.requested_at), started_at: iso(row.started_at), finished_at: iso(row.finished_at),
    findings: jsonValue(row.findings) ?? null, failure_reason: (row.failure_reason as string | null) ?? null, cost_usd: Number(row.cost_usd ?? 0),
  };
}

export const getInvestigation = {
  name: 'get_investigation',
  description:
    'One AI investigation of an alert: by its id, or the latest one of an alert by alert_id (get_alert\'s investigation_requested effect names the id). ' +
    'status requested → running → completed (findings: summary, likely cause, evidence, next steps, confidence, and each agent\'s answer) or failed (failure_reason, ' +
    'e.g. no AI provider answered). cost_usd sums its provider calls.',
  input: Type.Object(
    {
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the investigation id' })),
      alert_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'or an alert id: its latest investigation' })),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'investigations', param: 'id' },
  answer: { schema: Type.Object({ data: INVESTIGATION }) },
  async run(services, caller, input) {
    const { id, alert_id: alertId } = input as { id?: string; alert_id?: string };
    if ((id === undefined) === (alertId === undefined)) throw validationFailed([{ field: 'id', message: 'give either id or alert_id' }]);
    const missing = new ApiError('not_found', id !== undefined ? 'No investigation with that id exists in this organization.' : 'No investigation of that alert exists in this organization.');
    if (!isUuid(id ?? alertId!)) throw missing;
    const [row] = await readStore(services).execute(
      `select ${INVESTIGATION_COLUMNS} from investigations i where i.organization_id = ? and ${id !== undefined ? 'i.id = ?' : 'i.alert_id = ?'}
        order by i.requested_at desc, i.seq desc limit 1`,
      [caller.organization.id, id ?? alertId],
    );
    if (!row) throw missing;
    return { json: { data: investigationView(row) } };
  },
} satisfies DomainOperation;

const INVESTIGATIONS: RecordList = {
  name: 'investigations',
  select: `i.seq, ${INVESTIGATION_COLUMNS}`,
  from: 'investigations i',
  organizationColumn: 'i.organization_id',
  keys: NEWEST_FIRST,
  limits: RECORD_LIST_LIMITS,
};

export const listInvestigations: DomainOperation = {
  name: 'list_investigations',
  description:
    'The organization\'s AI investigations, newest first (by when they were requested), with status, findings or failure reason and cost. ' +
    'Filters: alert_id (the investigations of one alert), status. get_investigation gives one. Paged: pass `next_cursor` back as `cursor`.',
  input: Type.Object(
    {
      alert_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only investigations of this alert' })),
      status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)), { description: 'only investigations in this state' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'investigations' },
  answer: { schema: recordPageSchema(INVESTIGATION) },
  async run(services, caller, input) {
    // the column is a uuid: anything else matches no alert, and is refused rather than compared
    if (typeof input.alert_id === 'string' && !isUuid(input.alert_id)) throw validationFailed([{ field: 'alert_id', message: 'must be an alert id (a UUID)' }]);
    const filters = equalTo({ ...input, alert_id: typeof input.alert_id === 'string' ? input.alert_id.toLowerCase() : undefined }, { alert_id: 'i.alert_id', status: 'i.status' });
    return { json: await recordPage(services, INVESTIGATIONS, caller.organization.id, filters, input, (rows) => rows.map(investigationView)) };
  },
};

const NOTIFICATIONS: RecordList = { name: 'notifications', select: 'seq, id, kind, message, detail, created_at', from: 'notifications', keys: NEWEST_FIRST, limits: RECORD_LIST_LIMITS };

export const listNotifications: DomainOperation = {
  name: 'list_notifications',
  description:
    'Notifications the service raised for the organization, newest first. kind ai_budget_warning: this calendar month\'s AI spend reached ' +
    'ai_budget_warn_percent of monthly_ai_budget_usd (organization_settings); recorded once per month (the organization\'s time zone).',
  input: Type.Object(
    {
      kind: Type.Optional(Type.Literal('ai_budget_warning', { description: 'only notifications of this kind' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'notifications' },
  answer: {
    schema: recordPageSchema(Type.Object({
      id: Type.String(),
      kind: Type.String(),
      message: Type.String(),
      detail: Type.Record(Type.String(), JSON_VALUE(), { description: 'ai_budget_warning: month, spent_usd, budget_usd, warn_percent' }),
      created_at: Type.String({ format: 'date-time' }),
    })),
  },
  async run(services, caller, input) {
    return {
      json: await recordPage(services, NOTIFICATIONS, caller.organization.id, equalTo(input, { kind: 'kind' }), input, (rows) =>
        rows.map((r) => ({ id: String(r.id), kind: String(r.kind), message: String(r.message), detail: jsonValue(r.detail) ?? {}, created_at: iso(r.created_at) }))),
    };
  },
};

export const AI_OPERATIONS: DomainOperation[] = [getInvestigation, listInvestigations, listNotifications];
