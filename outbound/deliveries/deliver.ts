/**
 * Delivering: the `outbound-deliveries` queue works one job per attempt of one delivery. A delivery is
 * at-least-once: it is tried until a receiver answers 2xx, at most `attemptsAllowed` times (schedule.ts), then
 * `dead`. A job:
 *
 * 1. claims its delivery with a compare-and-set on `job_id` (the row names the one job allowed to make its next
 *    attempt, so a job superseded by `redeliver`, or a repeat of a job that already recorded its attempt, does
 *    nothing; a job whose instance died mid-attempt finds its own id still there and tries again);
 * 2. reads the config: deleted or disabled → `cancelled`;
 * 3. sends the body its kind takes (formats.ts) with the config's headers, signed Standard Webhooks style when
 *    it has a signing secret (`webhook-id` = the delivery id, the same on every attempt, so receivers de-duplicate
 *    by it), through the SSRF-safe client (http.ts) with the config's `timeout_ms`;
 * 4. records the attempt (status code, latency, error, next try) and the delivery's state in one transaction:
 *    2xx → `delivered`; a redirect to another host → `dead` at once, since trying again cannot help; any other
 *    failure (non-2xx, an unreachable receiver) → `retrying` with a new job `startAfter` the schedule's wait, or
 *    `dead` after the last attempt. A receiver the address policy refuses is unreachable like one that timed out
 *    or refused the connection: the same error and the same retries, so a delivery log cannot map a network.
 *
 * Concurrency: `CONCURRENCY` (32) attempts at once per instance: 4 workers, each fetching up to 8 jobs and running
 * them together, and fetching again at once while its fetches come back full (a backlog drains at the
 * receivers' pace, not the poll's); at most `DESTINATION_CONCURRENCY` (8) attempts to one config at once across
 * every instance (pg-boss group concurrency, counted in the database: the config is the job's group), so one
 * receiver is never flooded and cannot take every slot. A batch settles together: a slow receiver delays the
 * other jobs of the batches its deliveries are in by at most its own timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { FamilyDescriptor, Row } from '../../engine/descriptor.ts';
import { planFields } from '../../engine/fields.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { standardWebhookHeaders } from '../../engine/standard-webhooks.ts';
import { prepared } from '../../engine/persistence/sql.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { requestBody } from '../render/formats.ts';
import { OutboundError, outboundHttp } from '../net/http.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './queue.ts';
import { attemptsAllowed, RETRY_DELAYS_SECONDS, retryDelay } from './schedule.ts';
import outboundConfigs from '../../resources/outbound_configs.ts';

/** attempts at once per instance: WORKERS workers, each running a batch of up to BATCH */
const WORKERS = 4;
const BATCH = 8;
export const CONCURRENCY = WORKERS * BATCH;
export const DESTINATION_CONCURRENCY = 8;
const RESPONSE_KEPT = 500;
const MAX_RESPONSE_READ = 4096;
/** what a delivery records for a receiver that gave no answer, whatever the reason (the operator's log has it) */
const UNREACHABLE = 'the receiver could not be reached';

export type DeliveryStatus = 'pending' | 'sending' | 'retrying' | 'delivered' | 'dead' | 'cancelled';

interface Claimed {
  organization_id: string;
  config_id: string;
  payload: string;
  attempts: number;
  /** attempts made before the current round (a redelivery starts a new round of the schedule) */
  round_offset: number;
  /** the config as it is now; null when it was deleted */
  config: Row | null;
}

export interface AttemptResult {
  outcome: 'delivered' | 'failed' | 'cancelled';
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  response: string | null;
  /** a failure no retry can mend */
  permanent: boolean;
}

/** A row's stored fields as one JSON object, listed from the descriptor so a field it adds or renames is read here too. */
function storedAsJson(family: FamilyDescriptor, alias: string): string {
  return `json_build_object(${planFields(family).stored.map((field) => `'${field}', ${alias}."${field}"`).join(', ')})`;
}

/** The claim and the config it sends to, in one statement. */
export async function claimDelivery(services: Services, deliveryId: string, jobId: string, now: Date): Promise<Claimed | null> {
  const family = services.registry.family(outboundConfigs);
  const config = `(select ${storedAsJson(family, 'c')} from "${tableName(family)}" c where c.organization_id = d.organization_id and c.id = d.config_id)`;
  const [row] = await readStore(services).execute(
    prepared(`update outbound_deliveries d set status = 'sending', updated_at = ?
      where d.id = ? and d.job_id = ? and d.status in ('pending', 'retrying', 'sending')
      returning d.organization_id, d.config_id, d.payload, d.attempts, d.round_offset, ${config} as config`),
    [now, deliveryId, jobId],
  );
  if (!row) return null;
  return {
    organization_id: String(row.organization_id), config_id: String(row.config_id), payload: String(row.payload), attempts: Number(row.attempts),
    round_offset: Number(row.round_offset), config: ((typeof row.config === 'string' ? JSON.parse(row.config) : row.config) ?? null) as Row | null,
  };
}

/** The config's write-only values, opened: its extra headers, its signing secret and a pager's routing key. */
function secretsOf(services: Services, config: Row): { headers: Record<string, string>; signingSecret: string | null; routingKey: string | null } {
  return {
    headers: typeof config.headers === 'string' ? (JSON.parse(services.secrets.open(config.headers)) as Record<string, string>) : {},
    signingSecret: typeof config.signing_secret === 'string' ? services.secrets.open(config.signing_secret) : null,
    routingKey: typeof config.routing_key === 'string' ? services.secrets.open(config.routing_key) : null,
  };
}

/** The headers of one attempt: the config's own, then the delivery's (which a config cannot override). */
function deliveryHeaders(secrets: ReturnType<typeof secretsOf>, deliveryId: string, body: string, now: Date): Record<string, string> {
  return { ...secrets.headers, 'content-type': 'application/json', 'user-agent': 'Vigil-Webhooks/1', ...standardWebhookHeaders(secrets.signingSecret, deliveryId, now, body) };
}

/** The start of a receiver's answer as kept, with any of the config's secrets it echoed removed. */
function excerpt(body: Buffer, secrets: ReturnType<typeof secretsOf>): string | null {
  let text = body.toString('utf8').toWellFormed().replaceAll('\u0000', '');
  for (const value of [...Object.values(secrets.headers), secrets.signingSecret, secrets.routingKey]) if (value && value.length >= 4) text = text.replaceAll(value, '(removed)');
  return text.slice(0, RESPONSE_KEPT) || null;
}

async function attempt(services: Services, deliveryId: string, claimed: Claimed, now: Date): Promise<AttemptResult> {
  const { config } = claimed;
  if (!config || config.enabled === false) {
    const error = config ? 'the outbound config is disabled' : 'the outbound config was deleted';
    return { outcome: 'cancelled', statusCode: null, latencyMs: null, error, response: null, permanent: true };
  }
  const secrets = secretsOf(services, config);
  const body = requestBody(String(config.kind), claimed.payload, secrets.routingKey);
  const started = performance.now();
  try {
    const answer = await outboundHttp(services).request({
      url: String(config.url),
      method: 'POST',
      headers: deliveryHeaders(secrets, deliveryId, body, now),
      body,
      timeoutMs: Number(config.timeout_ms ?? 5000),
      maxResponseBytes: MAX_RESPONSE_READ,
      purpose: 'outbound delivery',
    });
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      outcome: ok ? 'delivered' : 'failed',
      statusCode: answer.status,
      latencyMs: answer.latencyMs,
      error: ok ? null : `the receiver answered ${answer.status}`,
      response: ok ? null : excerpt(answer.body, secrets),
      permanent: false,
    };
  } catch (error) {
    const latencyMs = Math.round(performance.now() - started);
    const redirect = error instanceof OutboundError && error.kind === 'redirect';
    const message = redirect ? `the receiver ${error.message}` : UNREACHABLE;
    return { outcome: 'failed', statusCode: null, latencyMs, error: message, response: null, permanent: redirect };
  }
}

/** Records the attempt and the delivery's next state; schedules the next attempt when there is one. */
export async function recordAttempt(services: Services, deliveryId: string, jobId: string, claimed: Claimed, result: AttemptResult, now: Date): Promise<DeliveryStatus> {
  const number = claimed.attempts + 1;
  const inRound = number - claimed.round_offset;
  const delays = services.config.outbound?.retryDelaysSeconds ?? RETRY_DELAYS_SECONDS;
  const wait = result.outcome === 'failed' && !result.permanent && inRound < attemptsAllowed(delays) ? retryDelay(delays, inRound) : null;
  const status: DeliveryStatus = result.outcome === 'delivered' ? 'delivered' : result.outcome === 'cancelled' ? 'cancelled' : wait !== null ? 'retrying' : 'dead';
  const next = wait !== null ? new Date(now.getTime() + Math.round(wait * 1000)) : null;
  const nextJob = wait !== null ? randomUUID() : null;
  const outcome = status === 'retrying' ? 'failed' : status;
  // one statement: the delivery's state (unless a redelivery superseded this job meanwhile: then the attempt is
  // history and the state is the new job's) and the attempt
  const write = async (sql: Sql) => {
    const [row] = await sql(
      prepared(`with d as (
         update outbound_deliveries set status = ?, attempts = ?, job_id = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, last_latency_ms = ?,
                updated_at = ?, delivered_at = case when ? then ? else delivered_at end
          where id = ? and job_id = ? returning id),
       a as (
         insert into outbound_delivery_attempts (organization_id, delivery_id, attempt, started_at, status_code, latency_ms, error, response, outcome, next_attempt_at)
         select ?, ?, ?, ?, ?, ?, ?, ?, ?, case when exists (select 1 from d) then ?::timestamptz end)
       select exists (select 1 from d) as current`),
      [status, number, nextJob, next, result.statusCode, result.error, result.latencyMs, now, status === 'delivered', now, deliveryId, jobId,
        claimed.organization_id, deliveryId, number, now, result.statusCode, result.latencyMs, result.error, result.response, outcome, next],
    );
    return row?.current === true || row?.current === 't';
  };
  services.metrics.attempt('outbound', status);
  if (nextJob === null) {
    await write(readStore(services).execute);
    return status;
  }
  // a retry: its job commits with the state that names it
  await inTransaction(services, async (store) => {
    if (await write(store.execute)) {
      await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: deliveryId }, { store, id: nextJob, startAfter: wait!, group: destinationGroup(claimed.organization_id, claimed.config_id) });
    }
  });
  return status;
}

/** Makes the attempt a job stands for, if it still stands for one. */
export async function runDelivery(services: Services, deliveryId: string, jobId: string): Promise<DeliveryStatus | 'superseded'> {
  const now = services.clock.now();
  const claimed = await claimDelivery(services, deliveryId, jobId, now);
  if (!claimed) return 'superseded';
  const result = await attempt(services, deliveryId, claimed, now);
  return recordAttempt(services, deliveryId, jobId, claimed, result, now);
}

function deliveryId(job: Job): string {
  const id = (job.data as { delivery_id?: unknown } | null)?.delivery_id;
  if (typeof id !== 'string') throw new Error('an outbound delivery job needs delivery_id');
  return id;
}

export const outboundDeliveryJob: JobHandler = {
  queue: OUTBOUND_QUEUE,
  concurrency: WORKERS,
  batchSize: BATCH,
  groupConcurrency: DESTINATION_CONCURRENCY,
  // a job whose instance died mid-attempt is tried again once it expires (the longest attempt is 30 s)
  retryLimit: 3,
  retryDelay: 5,
  expireInSeconds: 60,
  async handle(job, services) {
    await runDelivery(services, deliveryId(job), job.id);
  },
};
