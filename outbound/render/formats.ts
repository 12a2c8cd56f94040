/**
 * The request body each kind of outbound config receives, from the event's envelope (events.ts):
 *
 * - `webhook`: the envelope itself, byte for byte as stored (what the signature covers);
 * - `chat`: `{ "text": "<one line>", "blocks": [...] }`, the incoming-webhook message Slack-compatible chat products
 *   accept: the line as the notification text (e.g. `Alert: Disk full on db-1 · Severity: critical · …`) and Block
 *   Kit sections (headline, fields, link) as chat delivery posts them (chat-messages.ts);
 * - `pager`: a PagerDuty Events API v2 style event: alert.fired and incident.opened trigger, alert.acknowledged
 *   acknowledges, alert.resolved and incident.closed resolve; `dedup_key` is `vigil-alert-<id>` or
 *   `vigil-incident-<id>`, so the pager keeps one incident per alert; `routing_key` is the config's (write-only).
 *   Other kinds never reach a pager (rules.ts).
 */
import { envelopeContent } from './chat-messages.ts';

type Json = Record<string, any>;

const PAGER_SEVERITY: Record<string, string> = { critical: 'critical', high: 'error', warning: 'warning', info: 'info' };
const PAGER_ACTION: Record<string, string> = {
  'alert.fired': 'trigger', 'alert.acknowledged': 'acknowledge', 'alert.resolved': 'resolve', 'incident.opened': 'trigger', 'incident.closed': 'resolve',
};

function pagerEvent(envelope: Json, routingKey: string | null): Json {
  const d = envelope.data ?? {};
  const subject = d.incident ? `vigil-incident-${d.incident.id}` : `vigil-alert-${d.alert?.id}`;
  const action = PAGER_ACTION[envelope.type] ?? 'trigger';
  const event: Json = { ...(routingKey ? { routing_key: routingKey } : {}), event_action: action, dedup_key: subject, client: 'Vigil' };
  if (action === 'trigger') {
    const severity = d.incident?.severity ?? d.alert?.severity;
    event.payload = {
      summary: (d.incident?.title ?? d.alert?.title ?? envelope.type).slice(0, 1024),
      source: d.alert?.service ?? d.alert?.source ?? 'vigil',
      severity: PAGER_SEVERITY[severity] ?? 'error',
      timestamp: envelope.occurred_at,
      custom_details: d,
    };
    if (d.alert?.url) event.links = [{ href: d.alert.url, text: 'alert' }];
  }
  return event;
}

/** The body a config of `kind` receives for the stored envelope (`routingKey`: a pager config's). */
export function requestBody(kind: string, payload: string, routingKey: string | null = null): string {
  if (kind === 'webhook') return payload;
  const envelope = JSON.parse(payload) as Json;
  return JSON.stringify(kind === 'pager' ? pagerEvent(envelope, routingKey) : envelopeContent(envelope));
}
