/**
 * The handlers of the six alert sources: parse (webhooks/sources/), then the pipeline; answers
 * 200 `{ status: "ok", processed, total }` (`total` events in the request, `processed` those recorded: a resolve
 * of an alert never seen is not), 400 `unreadable_alert` for a payload that cannot be read as an alert.
 *
 * The cloud sources come through an SNS topic: subscriptions are confirmed and, when the operator switched it on,
 * signatures checked, as webhooks/sns-topic.ts describes.
 */
import type { WebhookAnswer, WebhookHandler, WebhookHandlers } from '../../webhooks/handlers.ts';
import type { SnsHttp } from '../../webhooks/sns-trust.ts';
import { snsTopic } from '../../webhooks/sns-topic.ts';
import { ALERT_PARSERS } from '../../webhooks/sources/index.ts';
import { ALERT_SOURCES, type AlertSource } from '../../webhooks/sources/types.ts';
import { ingestAlerts } from './pipeline.ts';
import type { EventResult } from './outcomes.ts';

export interface AlertHandlerOptions {
  /** how SNS subscription addresses and signing certificates are fetched (tests inject one) */
  snsHttp?: SnsHttp;
}

const TOPIC_SOURCES: readonly AlertSource[] = ['cloud-alarms', 'cloud-audit'];

const PRODUCTS: Record<AlertSource, string> = {
  'metric-dashboard': 'Grafana or Alertmanager',
  'incident-pager': 'PagerDuty v3 webhook',
  'monitoring-a': 'Datadog webhook',
  'monitoring-b': 'New Relic webhook',
  'cloud-alarms': 'CloudWatch alarm (SNS)',
  'cloud-audit': 'CloudTrail event (EventBridge/SNS)',
};

const refuse = (status: number, error: string, message: string, outcome: string): WebhookAnswer => ({ status, body: { error, message }, outcome, detail: message });

/** "created", or "created ×2, muted" for a delivery of several events. */
function summarize(results: EventResult[]): string {
  if (results.length === 0) return 'no alerts';
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => (n > 1 ? `${outcome} ×${n}` : outcome)).join(', ');
}

export function alertHandlers(options: AlertHandlerOptions = {}): WebhookHandlers {
  const topic = snsTopic(options.snsHttp);

  const handler = (source: AlertSource): WebhookHandler => async (request) => {
    if (TOPIC_SOURCES.includes(source)) {
      const refusal = await topic.check(request, source);
      if (refusal) return refusal;
    }
    if (request.body === undefined) return refuse(400, 'unreadable_alert', `The body is not JSON; expected a ${PRODUCTS[source]} payload.`, 'refused: unreadable');
    const parsed = ALERT_PARSERS[source](request.body);
    if (parsed.kind === 'unreadable') return refuse(400, 'unreadable_alert', `The payload cannot be read as a ${PRODUCTS[source]} alert: ${parsed.reason}.`, 'refused: unreadable');
    if (parsed.kind === 'subscription') {
      if (parsed.type === 'UnsubscribeConfirmation') return { status: 200, body: { status: 'ok', processed: 0, total: 0 }, outcome: 'unsubscribed' };
      return topic.confirm(request.services, parsed.subscribeUrl, { status: 'ok', processed: 0, total: 0 });
    }
    const results = await ingestAlerts(request.services, request.organization, parsed.events, request.receivedAt);
    const processed = results.filter((r) => r.outcome !== 'unknown alert').length;
    return { status: 200, body: { status: 'ok', processed, total: results.length }, outcome: summarize(results) };
  };

  return Object.fromEntries(ALERT_SOURCES.map((source) => [source, handler(source)]));
}
