/**
 * `events`: any sender that speaks PagerDuty's Events API v2 (Prometheus Alertmanager's `pagerduty_configs`,
 * Grafana's PagerDuty contact point, and every other tool whose PagerDuty address can be pointed elsewhere). One
 * event per request, served twice:
 *
 *   POST /webhooks/events/<token>   the token in the path, like every source (`routing_key` is then not read)
 *   POST /v2/enqueue                PagerDuty's own path, the webhook token sent as `routing_key`
 *
 *   { routing_key, event_action: trigger | acknowledge | resolve, dedup_key?, client?, client_url?,
 *     payload: { summary, source, severity, timestamp?, component?, group?, class?, custom_details? },
 *     links?: [{ href, text }], images?: [{ src, href?, alt? }] }
 *
 * Answers as PagerDuty answers: 202 `{ status: "success", message: "Event processed", dedup_key }`, and 400
 * `{ status: "invalid event", message: "Event object is invalid", errors: [...] }` naming every refused field
 * (nothing is recorded), with Vigil's `error: "invalid_event"` beside PagerDuty's fields. A trigger without `dedup_key` gets one generated (32 hex characters, as PagerDuty's) and
 * answered, so the sender can acknowledge and resolve it later.
 *
 * Status, from `event_action`: trigger → firing, acknowledge → acknowledged, resolve → resolved. An acknowledge or
 * resolve says only the new state: it needs `dedup_key`, changes an alert that exists and nothing else (its title,
 * labels and severity stay those of the trigger), and of a key never triggered records nothing (still 202, as
 * PagerDuty).
 *
 * Fingerprint: `events:<dedup_key>`.
 *
 * Severity, from `payload.severity` (PagerDuty's four words, exactly): critical → critical, error → high,
 * warning → warning, info → info.
 *
 * Title: `payload.summary` (PagerDuty allows 1024 characters; the title keeps the first 300, the summary all).
 * Summary: `custom_details` when it is text, else a `payload.summary` longer than the title.
 * Service: the `service` member of `custom_details`, else `payload.component`. URL: the first `links[].href`
 * (else `client_url`). Started at: `payload.timestamp`. External id: the dedup key.
 * Labels: `custom_details` flattened (nested members as `a.b`, at most three levels; deeper values and arrays as
 * JSON text; at most 64 labels, values of 1024 characters), then `source`, `component`, `group`, `class` and
 * `client`, which win over a custom detail of the same name. Images are not kept.
 */
import { randomBytes } from 'node:crypto';
import { field, isRecord, isoTime, record, str, text, type Json } from '../../engine/payload.ts';
import { unstorableText } from '../../engine/validation.ts';
import { ingestAlerts } from '../../domain/alerts/pipeline.ts';
import type { AlertEvent, AlertSeverity, EventStatus } from '../../domain/alerts/event.ts';
import type { WebhookAnswer, WebhookHandler } from '../../domain/webhook-contract.ts';
import { alerts, event, fingerprint, Labels, MAX_LABEL_VALUE, safe, unreadable } from './alert-parsing.ts';
import type { ParseResult } from './parser.ts';
import { KiB, type WebhookSource } from './source.ts';

const SOURCE = 'events' as const;

/** PagerDuty's limits: a summary of 1024 characters, a dedup key of 255. */
export const MAX_EVENT_SUMMARY = 1_024;
export const MAX_DEDUP_KEY = 255;

const ACTIONS: Readonly<Record<string, EventStatus>> = { trigger: 'firing', acknowledge: 'acknowledged', resolve: 'resolved' };

/** PagerDuty's four severities and the Vigil severity each becomes. */
export const SEVERITIES: Readonly<Record<string, AlertSeverity>> = { critical: 'critical', error: 'high', warning: 'warning', info: 'info' };

/** What one request reads as: the event and its dedup key (sent or generated), or PagerDuty's list of errors. */
export type EventRead = { kind: 'event'; event: AlertEvent; dedupKey: string } | { kind: 'invalid'; errors: string[] };

/** A dedup key as PagerDuty generates one: 32 hex characters. */
export function newDedupKey(): string {
  return randomBytes(16).toString('hex');
}

const own = (obj: Json, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);

/** `custom_details` as labels: scalars as they are, objects one level deeper as `a.b` (three at most), the rest as JSON. */
function flatten(labels: Labels, value: unknown, prefix: string, depth: number): void {
  if (isRecord(value) && depth < 3) {
    for (const key of Object.keys(value).slice(0, 64)) flatten(labels, own(value, key), prefix ? `${prefix}.${key}` : key, depth + 1);
    return;
  }
  if (!prefix) return;
  if (value !== null && typeof value === 'object') {
    labels.set(prefix, JSON.stringify(value)?.slice(0, MAX_LABEL_VALUE * 2));
    return;
  }
  labels.set(prefix, value);
}

/** The first `href` of `links` that is a string. */
function firstLink(body: Json): string | undefined {
  const links = own(body, 'links');
  if (!Array.isArray(links)) return undefined;
  for (const link of links.slice(0, 20)) {
    const href = isRecord(link) ? str(link, 'href', 4096) : undefined;
    if (href) return href;
  }
  return undefined;
}

/** Reads one Events API v2 event; `newKey` makes the dedup key of a trigger that sent none. Never throws on plain JSON. */
export function readEvent(body: unknown, newKey: () => string = newDedupKey): EventRead {
  if (!isRecord(body)) return { kind: 'invalid', errors: ['The body must be a JSON object (an Events API v2 event).'] };
  const errors: string[] = [];

  const actionRaw = own(body, 'event_action');
  const action = typeof actionRaw === 'string' ? actionRaw : undefined;
  if (action === undefined || action.trim() === '') errors.push("'event_action' is missing or blank.");
  else if (!Object.hasOwn(ACTIONS, action)) errors.push("'event_action' is invalid (must be one of 'trigger', 'acknowledge' or 'resolve').");

  const keyRaw = own(body, 'dedup_key');
  let dedupKey: string | undefined;
  let keyRefused = false;
  if (keyRaw !== undefined && keyRaw !== null && typeof keyRaw !== 'string') {
    errors.push("'dedup_key' must be a string.");
    keyRefused = true;
  } else if (typeof keyRaw === 'string' && keyRaw.length > MAX_DEDUP_KEY) {
    errors.push(`'dedup_key' is longer than ${MAX_DEDUP_KEY} characters.`);
    keyRefused = true;
  } else if (typeof keyRaw === 'string' && unstorableText(keyRaw)) {
    // the key is the alert's identity: refused rather than changed (dropping a NUL would merge two keys)
    errors.push(`'dedup_key' ${unstorableText(keyRaw)}.`);
    keyRefused = true;
  } else if (typeof keyRaw === 'string' && keyRaw.trim() !== '') dedupKey = keyRaw;
  const trigger = action === 'trigger';
  if ((action === 'acknowledge' || action === 'resolve') && dedupKey === undefined && !keyRefused) {
    errors.push(`'dedup_key' is missing or blank: it is required to ${action} an event.`);
  }

  const payload = record(body, 'payload');
  let summary: string | undefined;
  let severity: AlertSeverity | undefined;
  if (trigger) {
    if (!payload) errors.push("'payload' is missing or not an object: a trigger needs payload.summary, payload.source and payload.severity.");
    else {
      const rawSummary = own(payload, 'summary');
      if (typeof rawSummary !== 'string' || rawSummary.trim() === '') errors.push("'payload.summary' is missing or blank.");
      else if (rawSummary.length > MAX_EVENT_SUMMARY) errors.push(`'payload.summary' is longer than ${MAX_EVENT_SUMMARY} characters.`);
      else summary = rawSummary;
      const rawSource = own(payload, 'source');
      if (typeof rawSource !== 'string' || rawSource.trim() === '') errors.push("'payload.source' is missing or blank.");
      const rawSeverity = own(payload, 'severity');
      if (typeof rawSeverity !== 'string' || rawSeverity.trim() === '') errors.push("'payload.severity' is missing or blank.");
      else if (!Object.hasOwn(SEVERITIES, rawSeverity)) errors.push("'payload.severity' is invalid (must be one of 'critical', 'error', 'warning' or 'info').");
      else severity = SEVERITIES[rawSeverity];
    }
  }
  if (errors.length > 0) return { kind: 'invalid', errors };

  const status = ACTIONS[action!]!;
  const key = dedupKey ?? newKey();
  const p = payload ?? {};
  const labels = new Labels();
  const details = own(p, 'custom_details');
  flatten(labels, details, '', 0);
  for (const name of ['source', 'component', 'group', 'class']) labels.set(name, str(p, name));
  labels.set('client', str(body, 'client'));

  const e = event({
    fingerprint: fingerprint(SOURCE, key),
    status,
    title: summary ?? str(p, 'summary') ?? `Event ${key}`,
    source: SOURCE,
    severity: severity ?? 'warning',
    service: (isRecord(details) ? str(details, 'service') : undefined) ?? str(p, 'component'),
    // custom_details given as text (some senders do) is the alert's summary; else a summary too long for the title
    summary: (typeof details === 'string' ? details : undefined) ?? (summary && summary.length > 300 ? summary : undefined),
    labels: labels.map,
    url: firstLink(body) ?? str(body, 'client_url', 4096),
    started_at: trigger ? isoTime(field(p, 'timestamp')) : undefined,
    external_id: key,
  });
  // an acknowledge or resolve carries the new state only (the sender's payload, if any, is not the alert's)
  return { kind: 'event', event: trigger ? e : { ...e, state_only: true }, dedupKey: key };
}

/** readEvent that never throws (hostile JSON, such as custom details nested too deep to write back as text). */
function safeRead(body: unknown): EventRead {
  try {
    return readEvent(body);
  } catch {
    return { kind: 'invalid', errors: ['The event could not be read as an Events API v2 event.'] };
  }
}

/** The source's parser (an event, or why it cannot be read), for what reads every alert source alike. */
export const parse = safe(SOURCE, (body: unknown): ParseResult => {
  const read = safeRead(body);
  return read.kind === 'event' ? alerts([read.event]) : unreadable(read.errors.join(' '));
});

/** PagerDuty's 400: the event is refused, each reason in `errors`; `error` too, the code every Vigil refusal carries. */
export function invalidEvent(errors: string[]): { status: number; body: Record<string, unknown> } {
  return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors, error: 'invalid_event' } };
}

const ROUTING_KEY = Buffer.from('"routing_key"');

/**
 * The routing key read from the raw bytes, before (and, for an unknown key, instead of) parsing up to 512 KB of JSON:
 * only when `"routing_key"` occurs once and is followed by a plain string (no escapes); else undefined, and the
 * parsed body is read instead.
 */
export function scanRoutingKey(raw: Buffer): string | undefined {
  const at = raw.indexOf(ROUTING_KEY);
  if (at < 0 || raw.indexOf(ROUTING_KEY, at + ROUTING_KEY.length) >= 0) return undefined;
  const match = /^\s*:\s*"([^"\\\u0000-\u001f]{1,512})"/.exec(raw.toString('utf8', at + ROUTING_KEY.length, at + ROUTING_KEY.length + 600));
  return match ? text(match[1], 512) : undefined;
}

function eventsHandler(): WebhookHandler {
  return async (request): Promise<WebhookAnswer> => {
    const read = request.body === undefined
      ? { kind: 'invalid' as const, errors: ['The body is not JSON; expected an Events API v2 event.'] }
      : safeRead(request.body);
    if (read.kind === 'invalid') return { ...invalidEvent(read.errors), outcome: 'refused: invalid event', detail: read.errors.join(' ') };
    const [result] = await ingestAlerts(request.services, request.organization, [read.event], request.receivedAt);
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: read.dedupKey }, outcome: result!.outcome };
  };
}

export const events: WebhookSource = {
  segment: SOURCE,
  product: 'PagerDuty Events API v2 sender',
  // PagerDuty's own limit on one event is 512 KB (Alertmanager and Grafana drop custom_details to stay under it)
  bodyLimit: 512 * KiB,
  // the Events API has no request signature: the token (in the path, or as routing_key) is the credential
  signing: null,
  parser: parse,
  tokenInBody: {
    path: '/v2/enqueue',
    token: (body) => (isRecord(body) ? text(own(body, 'routing_key'), 512) : undefined),
    scan: scanRoutingKey,
    // one answer for a missing and an unknown key would hide a typo; neither says whether any token exists
    refusal: (sent) => invalidEvent([sent ? 'Invalid routing key' : "'routing_key' is missing or blank."]),
  },
  handler: () => eventsHandler(),
};
