/**
 * `list_outbound_deliveries` (viewer; also `GET /api/v1/config/outbound_deliveries`) and `redeliver` (member): what
 * was sent to the organization's outbound configs, each attempt with its answer, and one more try on demand.
 */
import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import { ApiError } from '../../engine/errors.ts';
import { recordAudit } from '../../engine/operations/audit.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { iso, jsonValue, type SqlExecutor } from '../../engine/persistence/store.ts';
import { isUuid } from '../../engine/validation.ts';
import { EVENT_KINDS } from '../../resources/outbound_rules.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './queue.ts';
import { literals, orNull, time, JSON_VALUE } from '../../engine/operations/tool-schemas.ts';
import { pageFields } from '../../engine/operations/page.ts';
import { equalTo, NEWEST_FIRST, RECORD_LIST_LIMITS, recordPage, recordPageSchema, type RecordList } from '../../engine/operations/record-list.ts';

const STATUSES = ['pending', 'sending', 'retrying', 'delivered', 'dead', 'cancelled'] as const;

const ATTEMPT = Type.Object({
  attempt: Type.Integer({ description: '1 for the first try; a redelivery continues the count' }),
  started_at: Type.String({ format: 'date-time' }),
  status_code: orNull(Type.Integer(), 'the receiver\'s HTTP status; null when no answer came'),
  latency_ms: orNull(Type.Integer(), 'how long the attempt took'),
  error: orNull(Type.String(), 'why it failed: the status answered, a timeout, a connection failure, or a refusal (a private address, a redirect to another host)'),
  response: orNull(Type.String(), 'the start of the receiver\'s answer to a failed attempt (at most 500 characters)'),
  outcome: literals(['delivered', 'failed', 'dead', 'cancelled'], 'delivered; failed (tried again at next_attempt_at); dead (the last try); cancelled (config disabled or deleted)'),
  next_attempt_at: time('when the next try is due, after a failed attempt'),
});

const DELIVERY = Type.Object({
  id: Type.String({ description: 'the delivery id, sent as the webhook-id header: the same on every attempt, so receivers de-duplicate by it' }),
  event_id: Type.String({ description: 'the event\'s id (the envelope\'s id), shared by its deliveries to several configs' }),
  event_type: literals([...EVENT_KINDS, 'config.changed'], 'the event kind (config.changed: a change notification)'),
  subject_id: orNull(Type.String(), 'what the event is about: an alert, incident, card, deployment or fix request id'),
  outbound_config_id: Type.String(),
  rule_ids: Type.Array(Type.String(), { description: 'the outbound rules that chose this config for the event' }),
  status: literals(STATUSES, 'pending (queued), sending, retrying (waiting for next_attempt_at), delivered, dead (every attempt failed) or cancelled'),
  attempts: Type.Integer(),
  next_attempt_at: time('when the next attempt is due'),
  last_status_code: orNull(Type.Integer(), 'the last attempt\'s HTTP status'),
  last_error: orNull(Type.String(), 'the last attempt\'s error'),
  last_latency_ms: orNull(Type.Integer(), 'the last attempt\'s duration'),
  created_at: Type.String({ format: 'date-time' }),
  delivered_at: time('when a receiver accepted it'),
  payload: JSON_VALUE('the event envelope { type, version, id, occurred_at, organization_id, data }'),
  attempt_log: Type.Array(ATTEMPT, { description: 'every attempt, first first' }),
});

const int = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const COLUMNS = `id, event_id, event_type, subject_id, config_id, rule_ids, status, attempts, next_attempt_at, last_status_code, last_error,
  last_latency_ms, created_at, delivered_at, payload`;

const DELIVERIES: RecordList = { name: 'outbound_deliveries', select: `seq, ${COLUMNS}`, from: 'outbound_deliveries', keys: NEWEST_FIRST, limits: RECORD_LIST_LIMITS };

export const listOutboundDeliveries: DomainOperation = {
  name: 'list_outbound_deliveries',
  description:
    'What Vigil sent to the organization\'s outbound configs, newest first: one delivery per event and config, its status (pending, sending, ' +
    'retrying, delivered, dead, cancelled), the envelope sent, and every attempt with its HTTP status, latency, error and when the next try is due. ' +
    'A failed delivery is tried 8 times over about an hour (waits of 30 s, 1, 2, 4, 8, 16, 32 min, ±20 % jitter), then it is dead; redeliver tries again.',
  input: Type.Object(
    {
      status: Type.Optional(literals(STATUSES, 'only deliveries in this state')),
      outbound_config_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only deliveries to this outbound config' })),
      event_type: Type.Optional(literals([...EVENT_KINDS, 'config.changed'], 'only events of this kind')),
      subject_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only events about this alert, incident, card, deployment or fix request' })),
      ...pageFields(RECORD_LIST_LIMITS),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'outbound_deliveries' },
  answer: { schema: recordPageSchema(DELIVERY) },
  async run(services, caller, input) {
    const filters = equalTo(input, { status: 'status', outbound_config_id: 'config_id', event_type: 'event_type', subject_id: 'subject_id' });
    return { json: await recordPage(services, DELIVERIES, caller.organization.id, filters, input, (rows) => withAttempts(readStore(services).execute, caller.organization.id, rows)) };
  },
};

/** The deliveries answered, each with its attempts in order (one query for the page). */
async function withAttempts(sql: SqlExecutor, organizationId: string, shown: Record<string, unknown>[]): Promise<unknown[]> {
  const attempts = shown.length
    ? await sql(
      `select delivery_id, attempt, started_at, status_code, latency_ms, error, response, outcome, next_attempt_at from outbound_delivery_attempts
        where organization_id = ? and delivery_id in (${shown.map(() => '?').join(', ')}) order by seq`,
      [organizationId, ...shown.map((r) => r.id)],
    )
    : [];
  const log = new Map<string, unknown[]>();
  for (const a of attempts) {
    log.set(String(a.delivery_id), [...(log.get(String(a.delivery_id)) ?? []), {
      attempt: Number(a.attempt), started_at: iso(a.started_at), status_code: int(a.status_code), latency_ms: int(a.latency_ms),
      error: a.error ?? null, response: a.response ?? null, outcome: a.outcome, next_attempt_at: iso(a.next_attempt_at),
    }]);
  }
  return shown.map((r) => ({
    id: String(r.id), event_id: String(r.event_id), event_type: r.event_type, subject_id: r.subject_id ?? null, outbound_config_id: String(r.config_id),
    rule_ids: jsonValue(r.rule_ids) ?? [], status: r.status, attempts: Number(r.attempts), next_attempt_at: iso(r.next_attempt_at),
    last_status_code: int(r.last_status_code), last_error: r.last_error ?? null, last_latency_ms: int(r.last_latency_ms),
    created_at: iso(r.created_at), delivered_at: iso(r.delivered_at), payload: JSON.parse(String(r.payload)), attempt_log: log.get(String(r.id)) ?? [],
  }));
}

export const redeliver: DomainOperation = {
  name: 'redeliver',
  description:
    'Sends an outbound delivery again now, whatever its state (delivered, dead, cancelled, retrying or pending), with the same webhook-id, so a ' +
    'receiver that already has it can recognise the repeat. It starts a new round of the retry schedule (8 attempts over about an hour). ' +
    'Refused with 409 while an attempt is in flight. Answers the delivery\'s id and its new status (pending).',
  input: Type.Object({ delivery_id: Type.String({ minLength: 1, maxLength: 100, description: 'the delivery to send again (list_outbound_deliveries)' }) }, { additionalProperties: false }),
  role: 'member',
  kind: 'write',
  // the delivery goes to the receiver's URL again
  reachesOutside: true,
  answer: {
    schema: Type.Object({
      data: Type.Object({
        id: Type.String(),
        status: Type.Literal('pending', { description: 'queued to be sent again' }),
        previous_status: Type.String({ description: 'its status before: delivered, dead, cancelled, retrying or pending' }),
        attempts: Type.Integer({ description: 'attempts made before this round' }),
      }),
    }),
  },
  async run(services, caller, input) {
    const id = String(input.delivery_id);
    const missing = new ApiError('not_found', 'No outbound delivery with that id exists in this organization.');
    if (!isUuid(id)) throw missing;
    const now = services.clock.now();
    return inTransaction(services, async (store) => {
      const [row] = await store.execute('select status, attempts, config_id from outbound_deliveries where id = ? and organization_id = ? for update', [id, caller.organization.id]);
      if (!row) throw missing;
      if (row.status === 'sending') throw new ApiError('conflict', 'An attempt of this delivery is in flight; redeliver it once it has finished (list_outbound_deliveries shows when).');
      const jobId = randomUUID();
      // the old job (if one is queued) no longer matches job_id and does nothing
      await store.execute(
        `update outbound_deliveries set status = 'pending', job_id = ?, round_offset = attempts, next_attempt_at = ?, updated_at = ? where id = ?`,
        [jobId, now, now, id],
      );
      await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: id }, { store, id: jobId, group: destinationGroup(caller.organization.id, String(row.config_id)) });
      await recordAudit(services, store, { caller, family: 'outbound_deliveries', rowId: id, action: 'action:redeliver', changes: { status: { before: row.status, after: 'pending' } }, at: now });
      return { json: { data: { id, status: 'pending', previous_status: row.status, attempts: Number(row.attempts) } } };
    });
  },
};

export const OUTBOUND_OPERATIONS: DomainOperation[] = [listOutboundDeliveries, redeliver];
