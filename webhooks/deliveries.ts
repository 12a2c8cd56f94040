/**
 * The delivery log: every request to a valid webhook token is recorded (source, time, the status answered, an
 * outcome such as `created`, `muted`, `refused: signature`, the size), so a user can see why an alert did or did
 * not page. Kept bounded: the payload for 7 days, the row for 30 days (old rows are pruned while writing, at
 * most once every 10 minutes per process). The payload is kept only up to 256 KiB of JSON and with every member
 * whose name suggests a credential replaced by "(removed)"; of the headers only an allow-list is kept, so
 * `Authorization`, signature headers and anything unknown are never stored. The URL (which holds the token)
 * is never stored.
 */
import { loggedError } from '../engine/logger.ts';
import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { prepared, sqlExecutor } from '../engine/persistence/sql.ts';
import Type from 'typebox';
import type { DomainOperation } from '../engine/operations/domain.ts';
import type { Services } from '../engine/operations/types.ts';
import { SEGMENTS } from './sources/index.ts';
import { LIST_LIMIT } from '../engine/operations/tool-schemas.ts';

export const PAYLOAD_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const ROW_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
export const PAYLOAD_KEPT_BYTES = 256 * 1024;

export const WebhookDeliveryEntity = new EntitySchema<any>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: { type: 'string', columnType: 'uuid', primary: true },
    // insertion order, so deliveries received in the same millisecond still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: { type: 'string', columnType: 'uuid' },
    source: { type: 'string', columnType: 'text' },
    received_at: { type: 'Date', columnType: 'timestamptz' },
    status: { type: 'integer' },
    outcome: { type: 'string', columnType: 'text' },
    detail: { type: 'string', columnType: 'text', nullable: true },
    size: { type: 'integer' },
    headers: { type: 'json', columnType: 'jsonb' },
    // json, not jsonb: kept as written, never queried into, and cheaper to store on every delivery
    payload: { type: 'json', columnType: 'json', nullable: true },
  },
  indexes: [{ properties: ['organization_id', 'seq'] }, { properties: ['received_at'] }],
});

/** Request headers worth keeping to explain a delivery; nothing that can authenticate is in this list. */
export const KEPT_HEADERS = [
  'user-agent', 'content-type', 'content-length', 'idempotency-key',
  'x-github-event', 'x-github-delivery', 'x-github-hook-id',
  'x-pagerduty-webhook-id', 'x-webhook-id',
  'x-amz-sns-message-type', 'x-amz-sns-message-id', 'x-amz-sns-topic-arn',
  'x-request-id', 'x-grafana-alerting-timestamp',
] as const;

const CREDENTIAL_NAME = /secret|password|passwd|token|signature|authorization|api[-_]?key|credential|private[-_]?key/i;

/** A URL query parameter whose name suggests a credential (an SNS SubscribeURL's `Token`, `?api_key=`, …). */
const CREDENTIAL_PARAM = /([?&](?:[\w.-]*(?:secret|password|token|signature|api[-_]?key|credential)[\w.-]*)=)[^&#\s"]*/gi;

/** jsonb holds neither NUL (`\u0000`, dropped) nor a lone UTF-16 surrogate (made U+FFFD). */
const withoutNul = (s: string) => s.toWellFormed().replaceAll('\u0000', '');

/** A copy of a parsed payload with credential-like members (and credential-like URL parameters) replaced. */
export function scrub(value: unknown, depth = 0): unknown {
  if (depth > 32) return '(too deep)';
  if (typeof value === 'string') return withoutNul(value.includes('=') ? value.replace(CREDENTIAL_PARAM, '$1(removed)') : value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), CREDENTIAL_NAME.test(k) ? '(removed)' : scrub(v, depth + 1)]));
  }
  return value;
}

export function keptHeaders(get: (name: string) => string | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = get(name);
    if (value !== undefined && value !== '') kept[name] = value.slice(0, 500);
  }
  return kept;
}

/** What is stored of a body: its scrubbed JSON, a note when it was not JSON, or nothing when too large. */
export function keptPayload(raw: Buffer | null, parsed: unknown): unknown {
  if (raw === null) return null;
  if (raw.length > PAYLOAD_KEPT_BYTES) return { '(not kept)': `the body is larger than ${PAYLOAD_KEPT_BYTES} bytes` };
  if (parsed === undefined) return raw.length === 0 ? null : { '(not kept)': 'the body is not JSON' };
  return scrub(parsed);
}

export interface Delivery {
  organizationId: string;
  source: string;
  receivedAt: Date;
  status: number;
  outcome: string;
  detail?: string;
  size: number;
  headers: Record<string, string>;
  payload: unknown;
}

const COLUMNS = '(id, organization_id, source, received_at, status, outcome, detail, size, headers, payload)';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::json)';

const rowParams = (d: Delivery) => [
  randomUUID(), d.organizationId, d.source, d.receivedAt, d.status, d.outcome, d.detail ?? null, d.size,
  JSON.stringify(d.headers), d.payload === null || d.payload === undefined ? null : JSON.stringify(d.payload),
];

export interface DeliveryLog {
  /** resolves once the row is committed */
  record(delivery: Delivery): Promise<void>;
}

/**
 * The delivery log's writer, one per router. Rows that arrive while a write is in flight are written together
 * by the next one (one multi-row insert, one commit): no delay when traffic is light, far fewer commits under
 * load. A batch that fails is retried row by row, so one bad row costs only its own entry.
 */
export function deliveryLog(services: Services): DeliveryLog {
  const sql = sqlExecutor(services.db);
  let queue: { delivery: Delivery; done: (error?: unknown) => void }[] = [];
  let writing = false;
  let lastPrune = 0;

  /** Writes a batch; answers each row's failure (undefined when written). */
  const write = async (batch: typeof queue): Promise<unknown[]> => {
    try {
      await sql(prepared(`insert into webhook_deliveries ${COLUMNS} values ${batch.map(() => ROW).join(', ')}`), batch.flatMap((b) => rowParams(b.delivery)));
      return batch.map(() => undefined);
    } catch (error) {
      if (batch.length === 1) return [error];
      const failures: unknown[] = [];
      for (const b of batch) failures.push(...(await write([b])));
      return failures;
    }
  };

  const drain = async () => {
    writing = true;
    while (queue.length) {
      const batch = queue;
      queue = [];
      const failures = await write(batch);
      // pruned before the writers hear back, so what a writer reads next is already pruned
      const now = batch.at(-1)!.delivery.receivedAt;
      if (Math.abs(now.getTime() - lastPrune) >= PRUNE_EVERY_MS) {
        lastPrune = now.getTime();
        await pruneDeliveries(services, now).catch((error: unknown) => services.outage.noted(error) || services.log.error({ err: loggedError(error) }, 'webhook deliveries not pruned'));
      }
      batch.forEach((b, i) => b.done(failures[i]));
    }
    writing = false;
  };

  return {
    record(delivery) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ delivery, done: (error) => (error ? reject(error) : resolve()) });
        if (!writing) void drain();
      });
    },
  };
}

/** Drops payloads older than 7 days and rows older than 30 days. */
export async function pruneDeliveries(services: Services, now: Date): Promise<void> {
  const sql = sqlExecutor(services.db);
  await sql('delete from webhook_deliveries where received_at < ?', [new Date(now.getTime() - ROW_RETENTION_MS)]);
  await sql('update webhook_deliveries set payload = null where payload is not null and received_at < ?', [new Date(now.getTime() - PAYLOAD_RETENTION_MS)]);
}

const DELIVERY = Type.Object({
  id: Type.String(),
  source: Type.String(),
  received_at: Type.String({ format: 'date-time' }),
  status: Type.Integer({ description: 'the HTTP status answered' }),
  outcome: Type.String({ description: 'what became of it: created, resolved, muted, cooldown, duplicate, refused: signature, refused: rate limit, no handler yet, …' }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'the refusal\'s message, when refused' }),
  size: Type.Integer({ description: 'body size in bytes' }),
  headers: Type.Record(Type.String(), Type.String(), { description: 'the allow-listed request headers (never Authorization or signatures)' }),
  payload: Type.Unknown({ description: 'the JSON body with credential-like members removed; null after 7 days' }),
});

export const listWebhookDeliveries: DomainOperation = {
  name: 'list_webhook_deliveries',
  description:
    'The organization\'s recent inbound webhook deliveries, newest first: source, time, the status answered and the outcome ' +
    '(created, resolved, muted, cooldown, duplicate, refused: signature, refused: rate limit, refused: too large, no handler yet, …), ' +
    'so you can see why an alert did or did not page. Payloads are kept 7 days with credentials removed; rows 30 days.',
  input: Type.Object(
    {
      source: Type.Optional(Type.Union(SEGMENTS.map((s) => Type.Literal(s)), { description: 'only this source' })),
      outcome: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only this outcome (exact)' })),
      limit: LIST_LIMIT,
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'webhook_deliveries' },
  answer: { schema: Type.Object({ data: Type.Array(DELIVERY), truncated: Type.Boolean() }) },
  async run(services, caller, input) {
    const limit = Number(input.limit ?? 50);
    const where: string[] = ['organization_id = ?'];
    const params: unknown[] = [caller.organization.id];
    if (typeof input.source === 'string') (where.push('source = ?'), params.push(input.source));
    if (typeof input.outcome === 'string') (where.push('outcome = ?'), params.push(input.outcome));
    const rows = await sqlExecutor(services.db)(
      // as text, parsed here: a driver may or may not have parsed json already, and a JSON string body is a string either way
      `select id, source, received_at, status, outcome, detail, size, headers::text as headers, payload::text as payload from webhook_deliveries
        where ${where.join(' and ')} order by seq desc limit ${limit + 1}`,
      params,
    );
    const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : null);
    const data = rows.slice(0, limit).map((r: Record<string, unknown>) => ({
      id: String(r.id),
      source: String(r.source),
      received_at: new Date(r.received_at as string).toISOString(),
      status: Number(r.status),
      outcome: String(r.outcome),
      detail: (r.detail as string | null) ?? null,
      size: Number(r.size),
      headers: parse(r.headers) ?? {},
      payload: parse(r.payload) ?? null,
    }));
    return { json: { data, truncated: rows.length > limit } };
  },
};
