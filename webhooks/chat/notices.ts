/** SKELETON — to be replaced by the chat delivery work: posts the events to the organization's chat workspace. */
import type { Services } from '../../engine/operations/types.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { OutboundEvent } from '../outbound/events.ts';

export async function enqueueChatNotices(_services: Services, _store: { execute: Sql }, _organizationId: string, _events: OutboundEvent[], _now: Date): Promise<void> {}

/** SKELETON — one plain post to a named channel (change notifications). */
export async function enqueueChatPost(_services: Services, _store: { execute: Sql }, _organizationId: string, _post: { channel: string; text: string; blocks?: unknown[] }, _now: Date): Promise<void> {}
