/**
 * The request body each kind of outbound config receives, from the event's envelope (events.ts):
 *
 * - `webhook`: the envelope itself, byte for byte as stored (what the signature covers);
 * - `chat`: `{ "text": "<one line>" }`, the incoming-webhook message chat products accept, e.g.
 *   `[alert.fired] critical: Disk full on db-1 (service db) https://…`;
 * - `pager`: a PagerDuty Events API v2 style event: alert.fired and incident.opened trigger, alert.acknowledged
 *   acknowledges, alert.resolved and incident.closed resolve; `dedup_key` is `vigil-alert-<id>` or
 *   `vigil-incident-<id>`, so the pager keeps one incident per alert; `routing_key` is the config's (write-only).
 *   Other kinds never reach a pager (rules.ts).
 */
type Json = Record<string, any>;

const PAGER_SEVERITY: Record<string, string> = { critical: 'critical', high: 'error', warning: 'warning', info: 'info' };
const PAGER_ACTION: Record<string, string> = {
  'alert.fired': 'trigger', 'alert.acknowledged': 'acknowledge', 'alert.resolved': 'resolve', 'incident.opened': 'trigger', 'incident.closed': 'resolve',
};

/** One line a person reads in a chat channel. */
export function headline(envelope: Json): string {
  const d = envelope.data ?? {};
  const parts: (string | null | undefined)[] = [`[${envelope.type}]`];
  if (d.alert && !d.incident) parts.push(`${d.alert.severity}: ${d.alert.title}`, d.alert.service ? `(service ${d.alert.service})` : null, d.storm ? `(storm of ${d.storm.alerts} alerts)` : null, d.alert.url);
  else if (d.incident) parts.push(`${d.incident.severity}: ${d.incident.title}`);
  else if (d.card) parts.push(`${d.card.key ?? d.card.id}: ${d.card.title ?? ''}`, d.card.status ? `(${d.card.status})` : null, d.card.url);
  else if (d.deployment) parts.push([d.deployment.service, d.deployment.version, d.deployment.environment, d.deployment.status].filter(Boolean).join(' '));
  else if (d.fix_request) parts.push([d.fix_request.repo, d.fix_request.status, d.fix_request.pr_url].filter(Boolean).join(' '));
  else if (d.change) parts.push(`${d.change.family}${d.change.row_name ? ` "${d.change.row_name}"` : ''} ${d.change.action} by ${d.change.actor?.kind} via ${d.change.transport}: ${Object.keys(d.change.changes ?? {}).join(', ') || 'no fields'}`);
  return parts.filter((p) => p !== null && p !== undefined && p !== '').join(' ');
}

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
  return JSON.stringify(kind === 'pager' ? pagerEvent(envelope, routingKey) : { text: headline(envelope) });
}
