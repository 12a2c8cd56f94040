/**
 * Events that notify people rather than systems: posted to chat (outbound/chat) and mailed (outbound/email/notices.ts),
 * for the event kinds whose `notification_settings.channels` name those channels. Enqueued through the caller's open
 * transaction with the change that caused them (OutboundBatch.enqueue), like outbound deliveries.
 */
import type { Services } from '../engine/services.ts';
import type { SqlExecutor as Sql } from '../engine/persistence/store.ts';
import { enqueueChatNotices } from './chat/notices.ts';
import type { OutboundEvent } from './events.ts';
import { enqueueEmailNotices } from './email/notices.ts';

export interface Notices {
  chat: OutboundEvent[];
  email: OutboundEvent[];
}

export async function enqueueNotices(services: Services, store: { execute: Sql }, organizationId: string, notices: Notices, now: Date): Promise<void> {
  if (notices.chat.length > 0) await enqueueChatNotices(services, store, organizationId, notices.chat, now);
  if (notices.email.length > 0) await enqueueEmailNotices(services, store, organizationId, notices.email, now);
}
