/**
 * The handlers of the six alert sources: parse (webhooks/sources/), then the pipeline; answers
 * 200 `{ status: "ok", processed, total }` (`total` events in the request, `processed` those recorded: a resolve
 * of an alert never seen is not), 400 `unreadable_alert` for a payload that cannot be read as an alert.
 *
 * The cloud sources come through an SNS topic: a SubscriptionConfirmation is confirmed by fetching its
 * SubscribeURL, only when that is an https URL on an SNS host (anything else: 400 `invalid_confirmation_address`,
 * never fetched; a failed confirmation: 502). When the operator switched signature checking on for the source
 * (organization flag `signing_enabled_sources` holding it, or true), every message must carry a valid SNS
 * signature, and a payload that did not come through SNS (no envelope) is refused: 401.
 */
import type { Organization } from '../../engine/auth/caller.ts';
import type { WebhookAnswer, WebhookHandler, WebhookHandlers, WebhookRequest } from '../handlers.ts';
import { confirmSubscription, createSnsVerifier, isSnsUrl, type SnsHttp } from '../sns-trust.ts';
import { isRecord } from '../sources/common.ts';
import { ALERT_PARSERS } from '../sources/index.ts';
import { ALERT_SOURCES, type AlertSource, type ParseResult } from '../sources/types.ts';
import { ingestAlerts, type EventResult } from './pipeline.ts';

export interface AlertHandlerOptions {
  /** how SNS subscription addresses and signing certificates are fetched (tests inject one) */
  snsHttp?: SnsHttp;
}

/** The organization flag the operator sets to check signatures; shared with request_signing's switch. */
const SIGNING_SWITCH_FLAG = 'signing_enabled_sources';
const TOPIC_SOURCES: readonly AlertSource[] = ['cloud-alarms', 'cloud-audit'];

const PRODUCTS: Record<AlertSource, string> = {
  'metric-dashboard': 'Grafana or Alertmanager',
  'incident-pager': 'PagerDuty v3 webhook',
  'monitoring-a': 'Datadog webhook',
  'monitoring-b': 'New Relic webhook',
  'cloud-alarms': 'CloudWatch alarm (SNS)',
  'cloud-audit': 'CloudTrail event (EventBridge/SNS)',
};

function signaturesChecked(organization: Organization, source: AlertSource): boolean {
  const flag = organization.flags[SIGNING_SWITCH_FLAG];
  return flag === true || (Array.isArray(flag) && flag.includes(source));
}

const refuse = (status: number, error: string, message: string, outcome: string): WebhookAnswer => ({ status, body: { error, message }, outcome, detail: message });

/** "created", or "created ×2, muted" for a delivery of several events. */
function summarize(results: EventResult[]): string {
  if (results.length === 0) return 'no alerts';
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => (n > 1 ? `${outcome} ×${n}` : outcome)).join(', ');
}

export function alertHandlers(options: AlertHandlerOptions = {}): WebhookHandlers {
  const http = options.snsHttp;
  const verifier = createSnsVerifier({ ...(http ? { http } : {}) });

  /** The SNS checks of a topic source, before anything is parsed; null when the request may go on. */
  const topicCheck = async (request: WebhookRequest, source: AlertSource): Promise<WebhookAnswer | null> => {
    if (!signaturesChecked(request.organization, source)) return null;
    const body = request.body;
    if (!isRecord(body) || typeof body.Type !== 'string') {
      return refuse(401, 'unauthorized', `SNS signature checking is on for ${source}: only messages delivered by an SNS topic subscription, with their signature, are accepted.`, 'refused: signature');
    }
    const verdict = await verifier.verify(body);
    if (verdict.valid) return null;
    return refuse(401, 'unauthorized', `The SNS message signature was not accepted: ${verdict.reason}.`, 'refused: signature');
  };

  const subscription = async (parsed: Extract<ParseResult, { kind: 'subscription' }>): Promise<WebhookAnswer> => {
    if (parsed.type === 'UnsubscribeConfirmation') return { status: 200, body: { status: 'ok', processed: 0, total: 0 }, outcome: 'unsubscribed' };
    const address = parsed.subscribeUrl;
    if (!address || !isSnsUrl(address)) {
      return refuse(400, 'invalid_confirmation_address', 'The SubscribeURL is not an https address on an SNS host (sns.<region>.amazonaws.com); it was not fetched.', 'refused: invalid confirmation address');
    }
    const confirmed = await confirmSubscription(address, http);
    if (!confirmed.ok) return refuse(502, 'confirmation_failed', `The SNS subscription could not be confirmed: ${confirmed.reason}. SNS sends the confirmation again; or confirm it in the SNS console.`, 'refused: confirmation failed');
    return { status: 200, body: { status: 'ok', processed: 0, total: 0 }, outcome: 'subscription confirmed' };
  };

  const handler = (source: AlertSource): WebhookHandler => async (request) => {
    if (TOPIC_SOURCES.includes(source)) {
      const refusal = await topicCheck(request, source);
      if (refusal) return refusal;
    }
    if (request.body === undefined) return refuse(400, 'unreadable_alert', `The body is not JSON; expected a ${PRODUCTS[source]} payload.`, 'refused: unreadable');
    const parsed = ALERT_PARSERS[source](request.body);
    if (parsed.kind === 'unreadable') return refuse(400, 'unreadable_alert', `The payload cannot be read as a ${PRODUCTS[source]} alert: ${parsed.reason}.`, 'refused: unreadable');
    if (parsed.kind === 'subscription') return subscription(parsed);
    const results = await ingestAlerts(request.services, request.organization, parsed.events, request.receivedAt);
    const processed = results.filter((r) => r.outcome !== 'unknown alert').length;
    return { status: 200, body: { status: 'ok', processed, total: results.length }, outcome: summarize(results) };
  };

  return Object.fromEntries(ALERT_SOURCES.map((source) => [source, handler(source)]));
}
