/** A PageMessage as the escalation engine hands a channel (domain/paging/channels/channel.ts), for channel tests. */
import { randomUUID } from 'node:crypto';
import type { PageMessage, PagedAlert } from '../../domain/paging/channels/channel.ts';

export function pageMessage(organizationId: string, overrides: Partial<PageMessage> & { alerts?: PagedAlert[] } = {}): PageMessage {
  const alerts = overrides.alerts ?? [{ id: randomUUID(), title: 'DiskFull on db-1', severity: 'critical', incidentId: null, url: 'https://vigil.example.com/console/alerts/1' }];
  return {
    organizationId,
    bundleId: randomUUID(),
    userId: null,
    email: 'ann@example.com',
    urgency: 'high',
    subject: `[Vigil] ${alerts[0]!.title}`,
    text: alerts.map((a) => `[${a.severity}] ${a.title}`).join('\n'),
    acknowledgeUrl: 'https://vigil.example.com/page/ack-token-1/acknowledge',
    resolveUrl: 'https://vigil.example.com/page/ack-token-1/resolve',
    ...overrides,
    alerts,
  };
}
