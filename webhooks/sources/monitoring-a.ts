/**
 * `monitoring-a`: Datadog's Webhooks integration. Datadog posts whatever JSON payload the webhook is given,
 * with `$VARIABLES` filled in; one notification per request. Vigil documents this payload (paste it into the
 * webhook's Payload field):
 *
 *   {
 *     "alert_id": "$ALERT_ID",
 *     "alert_cycle_key": "$ALERT_CYCLE_KEY",
 *     "aggregation_key": "$AGGREG_KEY",
 *     "event_id": "$ID",
 *     "title": "$ALERT_TITLE",
 *     "transition": "$ALERT_TRANSITION",
 *     "alert_type": "$ALERT_TYPE",
 *     "priority": "$ALERT_PRIORITY",
 *     "scope": "$ALERT_SCOPE",
 *     "status_summary": "$ALERT_STATUS",
 *     "metric": "$ALERT_METRIC",
 *     "hostname": "$HOSTNAME",
 *     "tags": "$TAGS",
 *     "message": "$EVENT_MSG",
 *     "link": "$LINK",
 *     "date": "$DATE",
 *     "last_updated": "$LAST_UPDATED",
 *     "org": { "id": "$ORG_ID", "name": "$ORG_NAME" }
 *   }
 *
 * The webhook's default payload (`body`, `last_updated`, `event_type`, `title`, `date`, `org`, `id`) is also
 * read: its transition comes from the `[Triggered]`/`[Recovered]`… prefix of the title and, having no monitor
 * id, its fingerprint is a digest of the bare title and the `{scope}` of that prefix. Variables Datadog left unfilled (empty, or
 * still `$NAME`) count as absent.
 *
 * Status, from `$ALERT_TRANSITION`: Triggered, Re-Triggered, Warn, Re-Warn, No Data, Re-No Data, Renotify
 * (and Null / none, for event alerts) → firing; Recovered → resolved. Datadog has no acknowledged state.
 *
 * Fingerprint: `monitoring-a:<$ALERT_ID>:<$ALERT_SCOPE>` with the scope's tags sorted (one alert per monitor and
 * group, the same in the Triggered and the Recovered notification); without an alert id,
 * `monitoring-a:agg:<$AGGREG_KEY>`; without either, `monitoring-a:title:<digest of the bare title and scope>`.
 *
 * Severity: Warn / Re-Warn and No Data / Re-No Data → warning. Otherwise `$ALERT_PRIORITY`: P1 → critical,
 * P2 → high, P3 → warning, P4 / P5 → info; without a priority, `$ALERT_TYPE`: error → high, warning → warning,
 * info / success → info; else high.
 *
 * Title: `$ALERT_TITLE` without its `[Triggered on {host:…}]` prefix. Summary: `$ALERT_STATUS`, else the
 * event message. Service: the `service:` tag (scope first, then `$TAGS`). URL: `$LINK`. Labels: the scope's
 * and the tags' `key:value` pairs, host, metric, priority, transition, alert_id, org.
 */
import { field, isoTime, record, text, type Json } from '../../engine/payload.ts';
import {
  alerts,
  digest,
  event,
  fingerprint,
  id,
  Labels,
  objectBody,
  safe,
  severityFromWord,
  unreadable,
} from './alert-parsing.ts';
import type { AlertSeverity, EventStatus } from '../../domain/alerts/event.ts';
import type { ParseResult } from './parser.ts';
import { alertHandler } from '../alert-handler.ts';
import { signedWith } from '../signing.ts';
import { MiB, type WebhookSource } from './source.ts';

const SOURCE = 'monitoring-a' as const;

/** A filled-in template variable, else undefined (empty, or left as `$NAME`). */
function v(obj: Json, key: string, max?: number): string | undefined {
  const s = text(field(obj, key), max);
  if (s === undefined || /^\$[A-Z_]+$/.test(s)) return undefined;
  return s;
}

const TRANSITIONS: Record<string, EventStatus> = {
  triggered: 'firing',
  're-triggered': 'firing',
  warn: 'firing',
  're-warn': 'firing',
  'no data': 'firing',
  're-no data': 'firing',
  renotify: 'firing',
  null: 'firing',
  recovered: 'resolved',
};

/** `[Triggered on {host:web-1}] High CPU` → { transition: 'Triggered', scope: 'host:web-1', title: 'High CPU' }. */
function splitTitle(raw: string, depth = 0): { transition?: string; scope?: string; title: string } {
  const m = /^\s*\[(Re-Triggered|Triggered|Recovered|Re-Warn|Warn|Re-No Data|No Data|Renotify|P[1-5])\b(?:\s+on\s+\{([^}\]]*)\})?[^\]]*\]\s*(.*)$/is.exec(raw);
  if (!m || depth > 3) return { title: raw };
  const rest = splitTitle(m[3], depth + 1);
  const first = /^P[1-5]$/i.test(m[1]) ? undefined : m[1];
  return { transition: first ?? rest.transition, scope: m[2] ?? rest.scope, title: rest.title };
}

/** `env:prod, service:checkout,host:web-1` → [['env','prod'], …]; a bare tag becomes [tag, 'true']. */
function tagPairs(tags: string | undefined): [string, string][] {
  if (!tags) return [];
  const out: [string, string][] = [];
  for (const part of tags.split(',').slice(0, 100)) {
    const t = part.trim();
    if (!t || t === '*') continue;
    const i = t.indexOf(':');
    out.push(i > 0 ? [t.slice(0, i), t.slice(i + 1)] : [t, 'true']);
  }
  return out;
}

function severityOf(transition: string, priority: string | undefined, alertType: string | undefined): AlertSeverity {
  if (/warn|no data/i.test(transition)) return 'warning';
  const p = severityFromWord(priority);
  if (p) return p;
  switch (alertType?.toLowerCase()) {
    case 'error':
      return 'high';
    case 'warning':
      return 'warning';
    case 'info':
    case 'success':
      return 'info';
    default:
      return 'high';
  }
}

function parseBody(body: unknown): ParseResult {
  const obj = objectBody(body, 'Datadog');
  if (typeof obj === 'string') return unreadable(obj);

  const rawTitle = v(obj, 'title', 2000) ?? v(obj, 'alert_title', 2000) ?? v(obj, 'event_title', 2000);
  if (!rawTitle) return unreadable('title is missing: expected the Datadog payload Vigil documents ("title": "$ALERT_TITLE", "transition": "$ALERT_TRANSITION", …)');
  const split = splitTitle(rawTitle);
  const transition = v(obj, 'transition', 40) ?? v(obj, 'alert_transition', 40) ?? split.transition;
  if (!transition) return unreadable('transition is missing: expected "transition": "$ALERT_TRANSITION" (Triggered, Recovered, Warn, No Data, …)');
  const status = TRANSITIONS[transition.toLowerCase()];
  if (!status || !Object.hasOwn(TRANSITIONS, transition.toLowerCase())) {
    return unreadable(`transition is not a Datadog alert transition (Triggered, Re-Triggered, Recovered, Warn, Re-Warn, No Data, Re-No Data, Renotify)`);
  }

  const alertId = id(v(obj, 'alert_id'));
  const scope = v(obj, 'scope', 4000) ?? v(obj, 'alert_scope', 4000) ?? split.scope;
  const aggKey = id(v(obj, 'aggregation_key') ?? v(obj, 'aggreg_key'));
  const scopePairs = tagPairs(scope);
  const tagList = tagPairs(v(obj, 'tags', 8000));
  const normScope = scopePairs.map(([k, val]) => `${k}:${val}`).sort().join(',');
  const fp = alertId
    ? fingerprint(SOURCE, alertId, normScope)
    : aggKey
      ? fingerprint(SOURCE, 'agg', aggKey)
      : fingerprint(SOURCE, 'title', digest([split.title.toLowerCase(), normScope]));

  const priority = v(obj, 'priority', 20);
  const labels = new Labels();
  for (const [k, val] of [...scopePairs, ...tagList]) labels.set(k, val);
  const org = record(obj, 'org');
  labels
    .set('host', v(obj, 'hostname'))
    .set('metric', v(obj, 'metric'))
    .set('priority', priority)
    .set('transition', transition)
    .set('alert_id', alertId)
    .set('org', org ? v(org, 'name') : undefined);
  const service = scopePairs.find(([k]) => k === 'service')?.[1] ?? tagList.find(([k]) => k === 'service')?.[1];

  const date = isoTime(v(obj, 'date')) ?? isoTime(v(obj, 'last_updated'));
  return alerts([
    event({
      fingerprint: fp,
      status,
      title: split.title || rawTitle,
      source: SOURCE,
      severity: severityOf(transition, priority, v(obj, 'alert_type')),
      service,
      summary: v(obj, 'status_summary', 4000) ?? v(obj, 'message', 4000) ?? v(obj, 'body', 4000),
      labels: labels.map,
      url: v(obj, 'link', 4096),
      started_at: status === 'firing' ? date : undefined,
      ended_at: status === 'resolved' ? date : undefined,
      external_id: alertId ?? aggKey,
    }),
  ]);
}

export const parse = safe(SOURCE, parseBody);

const product = 'Datadog webhook';

export const monitoringA: WebhookSource = {
  segment: SOURCE,
  product,
  // one monitor event per delivery, with its tags and message: far below 1 MiB
  bodyLimit: MiB,
  signing: signedWith('shared-secret-header', {
    notes: 'the secret itself as Authorization: Bearer <secret> or X-Vigil-Signature-Secret: <secret> (custom headers of the Datadog webhook)',
    operatorSwitch: true,
    runbookSigned: true,
  }),
  parser: parse,
  handler: (options) => alertHandler({ product, parser: parse }, options),
};
