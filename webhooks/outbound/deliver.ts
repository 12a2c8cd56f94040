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
 *    2xx → `delivered`; a refusal (an address that may not be reached, a redirect to another host) → `dead` at
 *    once, since trying again cannot help; any other failure (non-2xx, timeout, connection) → `retrying` with a
 *    new job `startAfter` the schedule's wait, or `dead` after the last attempt.
 *
 * Concurrency: `CONCURRENCY` attempts at once per instance; at most `DESTINATION_CONCURRENCY` attempts to one
 * config at once across every instance (pg-boss group concurrency: the config is the job's group), so a slow
 * receiver holds a few workers, never all of them.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/operations/types.ts';
import type { Row } from '../../engine/descriptor.ts';
import { requestBody } from './formats.ts';
import { OutboundFailed, OutboundRefused, outboundHttp } from './http.ts';
import { destinationGroup, OUTBOUND_QUEUE } from './publish.ts';
import { attemptsAllowed, RETRY_DELAYS_SECONDS, retryDelay } from './schedule.ts';

export const CONCURRENCY = 16;
export const DESTINATION_CONCURRENCY = 4;
const RESPONSE_KEPT = 500;
const MAX_RESPONSE_READ = 4096;

export type DeliveryStatus = 'pending' | 'sending' | 'retrying' | 'delivered' | 'dead' | 'cancelled';

interface Claimed {
  organization_id: string;
  config_id: string;
  payload: string;
  attempts: number;
  /** attempts made before the current round (a redelivery starts a new round of the schedule) */
  round_offset: number;
}

interface AttemptResult {
  outcome: 'delivered' | 'failed' | 'cancelled';
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  response: string | null;
  /** a failure no retry can mend */
  permanent: boolean;
}

async function claim(services: Services, deliveryId: string, jobId: string, now: Date): Promise<Claimed | null> {
  const [row] = await readStore(services).execute(
    `update outbound_deliveries set status = 'sending', updated_at = ?
      where id = ? and job_id = ? and status in ('pending', 'retrying', 'sending')
      returning organization_id, config_id, payload, attempts, round_offset`,
    [now, deliveryId, jobId],
  );
  if (!row) return null;
  return { organization_id: String(row.organization_id), config_id: String(row.config_id), payload: String(row.payload), attempts: Number(row.attempts), round_offset: Number(row.round_offset) };
}

async function readConfig(services: Services, organizationId: string, configId: string): Promise<Row | null> {
  const family = services.registry.get('outbound_configs');
  return family ? readStore(services).get(family, organizationId, configId) : null;
}

/** Standard Webhooks keys: a `whsec_` secret is base64 after the prefix; any other is used as its UTF-8 bytes. */
function signer(secret: string): Webhook {
  if (secret.startsWith('whsec_')) {
    try {
      return new Webhook(secret);
    } catch {
      // not base64 after all: its bytes, as with any other secret
    }
  }
  return new Webhook(new Uint8Array(Buffer.from(secret, 'utf8')), { format: 'raw' });
}

/** The headers of one attempt: the config's own, then the delivery's (which a config cannot override). */
export function deliveryHeaders(services: Services, config: Row, deliveryId: string, body: string, now: Date): Record<string, string> {
  const own = typeof config.headers === 'string' ? (JSON.parse(services.secrets.open(config.headers)) as Record<string, string>) : {};
  const headers: Record<string, string> = { ...own, 'content-type': 'application/json', 'user-agent': 'Vigil-Webhooks/1', 'webhook-id': deliveryId };
  headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
  if (typeof config.signing_secret === 'string') headers['webhook-signature'] = signer(services.secrets.open(config.signing_secret)).sign(deliveryId, now, body);
  return headers;
}

async function attempt(services: Services, deliveryId: string, claimed: Claimed, now: Date): Promise<AttemptResult> {
  const config = await readConfig(services, claimed.organization_id, claimed.config_id);
  if (!config || config.enabled === false) {
    const error = config ? 'the outbound config is disabled' : 'the outbound config was deleted';
    return { outcome: 'cancelled', statusCode: null, latencyMs: null, error, response: null, permanent: true };
  }
  const body = requestBody(String(config.kind), claimed.payload);
  const started = performance.now();
  try {
    const answer = await outboundHttp(services).request({
      url: String(config.url),
      method: 'POST',
      headers: deliveryHeaders(services, config, deliveryId, body, now),
      body,
      timeoutMs: Number(config.timeout_ms ?? 5000),
      maxResponseBytes: MAX_RESPONSE_READ,
    });
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      outcome: ok ? 'delivered' : 'failed',
      statusCode: answer.status,
      latencyMs: answer.latencyMs,
      error: ok ? null : `the receiver answered ${answer.status}`,
      response: ok ? null : answer.body.toString('utf8').toWellFormed().replaceAll('\u0000', '').slice(0, RESPONSE_KEPT) || null,
      permanent: false,
    };
  } catch (error) {
    const latencyMs = Math.round(performance.now() - started);
    if (error instanceof OutboundRefused) return { outcome: 'failed', statusCode: null, latencyMs, error: error.message, response: null, permanent: true };
    const message = error instanceof OutboundFailed ? error.message : 'the request failed';
    return { outcome: 'failed', statusCode: null, latencyMs, error: message, response: null, permanent: false };
  }
}

/** Records the attempt and the delivery's next state; schedules the next attempt when there is one. */
async function record(services: Services, deliveryId: string, jobId: string, claimed: Claimed, result: AttemptResult, now: Date): Promise<DeliveryStatus> {
  const number = claimed.attempts + 1;
  const inRound = number - claimed.round_offset;
  const delays = services.config.outbound?.retryDelaysSeconds ?? RETRY_DELAYS_SECONDS;
  const wait = result.outcome === 'failed' && !result.permanent && inRound < attemptsAllowed(delays) ? retryDelay(delays, inRound) : null;
  const status: DeliveryStatus = result.outcome === 'delivered' ? 'delivered' : result.outcome === 'cancelled' ? 'cancelled' : wait !== null ? 'retrying' : 'dead';
  const next = wait !== null ? new Date(now.getTime() + Math.round(wait * 1000)) : null;
  const nextJob = wait !== null ? randomUUID() : null;
  const outcome = status === 'retrying' ? 'failed' : status;
  await inTransaction(services, async (store) => {
    const updated = await store.execute(
      `update outbound_deliveries set status = ?, attempts = ?, job_id = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, last_latency_ms = ?,
              updated_at = ?, delivered_at = case when ? then ? else delivered_at end
        where id = ? and job_id = ? returning id`,
      [status, number, nextJob, next, result.statusCode, result.error, result.latencyMs, now, status === 'delivered', now, deliveryId, jobId],
    );
    // superseded meanwhile (redeliver): the attempt is history, the state is the new job's
    const current = updated.length > 0;
    await store.execute(
      `insert into outbound_delivery_attempts (organization_id, delivery_id, attempt, started_at, status_code, latency_ms, error, response, outcome, next_attempt_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [claimed.organization_id, deliveryId, number, now, result.statusCode, result.latencyMs, result.error, result.response, outcome, current ? next : null],
    );
    if (current && nextJob !== null) {
      await services.jobs.send(OUTBOUND_QUEUE, { delivery_id: deliveryId }, { store, id: nextJob, startAfter: wait!, group: destinationGroup(claimed.organization_id, claimed.config_id) });
    }
  });
  return status;
}

/** Makes the attempt a job stands for, if it still stands for one. */
export async function runDelivery(services: Services, deliveryId: string, jobId: string): Promise<DeliveryStatus | 'superseded'> {
  const now = services.clock.now();
  const claimed = await claim(services, deliveryId, jobId, now);
  if (!claimed) return 'superseded';
  const result = await attempt(services, deliveryId, claimed, now);
  return record(services, deliveryId, jobId, claimed, result, now);
}

function deliveryId(job: Job): string {
  const id = (job.data as { delivery_id?: unknown } | null)?.delivery_id;
  if (typeof id !== 'string') throw new Error('an outbound delivery job needs delivery_id');
  return id;
}

export const outboundDeliveryJob: JobHandler = {
  queue: OUTBOUND_QUEUE,
  concurrency: CONCURRENCY,
  groupConcurrency: DESTINATION_CONCURRENCY,
  // a job whose instance died mid-attempt is tried again once it expires (the longest attempt is 30 s)
  retryLimit: 3,
  retryDelay: 5,
  expireInSeconds: 60,
  async handle(job, services) {
    await runDelivery(services, deliveryId(job), job.id);
  },
};
