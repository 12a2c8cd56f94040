/**
 * The handler of an alert source (each source names it: webhooks/sources/<segment>.ts): parse with the source's
 * parser, then the pipeline; answers 200 `{ status: "ok", processed, total }` (`total` events in the request,
 * `processed` those recorded: a resolve of an alert never seen is not), 400 `unreadable_alert` for a payload that
 * cannot be read as an alert.
 *
 * A source delivered through an SNS topic (the cloud sources) has its subscriptions confirmed and, when the operator
 * switched it on, signatures checked, as webhooks/sns-topic.ts describes.
 */
import type { WebhookAnswer, WebhookHandler } from '../domain/webhook-contract.ts';
import type { SnsHttp } from './sns-trust.ts';
import { snsTopic, type SnsTopic } from './sns-topic.ts';
import type { Parser } from './sources/parser.ts';
import { ingestAlerts } from '../domain/alerts/pipeline.ts';
import type { EventResult } from '../domain/alerts/outcomes.ts';

export interface AlertHandlerOptions {
  /** how SNS subscription addresses and signing certificates are fetched (tests inject one) */
  snsHttp?: SnsHttp;
  /** the SNS machinery shared by the sources a topic delivers to, so a signing certificate is fetched once for all */
  snsTopic?: SnsTopic;
}

/** What the handler needs of its source. */
export interface AlertSourceFacts {
  /** named in refusals: "expected a <product> payload" */
  product: string;
  parser: Parser;
  /** delivered through an SNS topic */
  topic?: boolean;
}

const refuse = (status: number, error: string, message: string, outcome: string): WebhookAnswer => ({ status, body: { error, message }, outcome, detail: message });

/** "created", or "created ×2, muted" for a delivery of several events. */
function summarize(results: EventResult[]): string {
  if (results.length === 0) return 'no alerts';
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => (n > 1 ? `${outcome} ×${n}` : outcome)).join(', ');
}

export function alertHandler(source: AlertSourceFacts, options: AlertHandlerOptions = {}): WebhookHandler {
  const topic = options.snsTopic ?? snsTopic(options.snsHttp);

  return async (request) => {
    if (source.topic) {
      const refusal = await topic.check(request, request.source);
      if (refusal) return refusal;
    }
    if (request.body === undefined) return refuse(400, 'unreadable_alert', `The body is not JSON; expected a ${source.product} payload.`, 'refused: unreadable');
    const parsed = source.parser(request.body);
    if (parsed.kind === 'unreadable') return refuse(400, 'unreadable_alert', `The payload cannot be read as a ${source.product} alert: ${parsed.reason}.`, 'refused: unreadable');
    if (parsed.kind === 'subscription') {
      if (parsed.type === 'UnsubscribeConfirmation') return { status: 200, body: { status: 'ok', processed: 0, total: 0 }, outcome: 'unsubscribed' };
      return topic.confirm(request.services, parsed.subscribeUrl, { status: 'ok', processed: 0, total: 0 });
    }
    const results = await ingestAlerts(request.services, request.organization, parsed.events, request.receivedAt);
    const processed = results.filter((r) => r.outcome !== 'unknown alert').length;
    return { status: 200, body: { status: 'ok', processed, total: results.length }, outcome: summarize(results) };
  };
}
