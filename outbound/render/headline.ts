/** The one line that says what an event is about, from its envelope: chat fallbacks, email subjects and digests. */
type Json = Record<string, any>;

/** One line a person reads, e.g. `[alert.fired] critical: Disk full on db-1 (service db) https://…`. */
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
