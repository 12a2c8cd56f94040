/** The one JSON envelope of an event (its shape: events.ts), as every delivery, chat notice and email of it stores it. */
import type { OutboundEvent } from '../events.ts';

export const ENVELOPE_VERSION = 1;

/** The envelope as the JSON text every delivery of the event sends (and signs). */
export function envelope(event: OutboundEvent, organizationId: string): string {
  return JSON.stringify({ type: event.type, version: ENVELOPE_VERSION, id: event.id, occurred_at: event.occurredAt.toISOString(), organization_id: organizationId, data: event.data });
}
