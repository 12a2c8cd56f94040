/** What the board tells the outside: a card's URL, its summary in outbound events, card.updated. */
import type { Services } from '../../engine/services.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import { cardEvent } from '../../outbound/events.ts';
import { publish } from '../../outbound/publish.ts';

type Json = Record<string, unknown>;

export const cardUrl = (services: Services, key: string) => `${services.config.publicUrl}/board/${key}`;

/** A card as outbound events (card.created, card.updated) carry it. */
export function cardSummary(services: Services, c: Json): Json & { id: string } {
  const key = String(c.key);
  return {
    id: String(c.id), key, url: cardUrl(services, key), title: String(c.title), status: String(c.status ?? 'triage'), priority: String(c.priority),
    labels: Array.isArray(c.labels) ? c.labels : [], service: c.service ?? null,
  };
}

/** card.updated for the card as it now is, naming the fields that changed; sent once the transaction commits. */
export function publishCardUpdated(services: Services, store: FamilyStore, orgId: string, card: Json, changed: string[], now: Date): Promise<void> {
  return publish(services, store, orgId, ['card.updated'], () => [cardEvent('card.updated', cardSummary(services, card), null, now, changed)]);
}
