/** SKELETON — to be replaced by the email work: mails the events to notification_settings.email_recipients. */
import type { Services } from '../../engine/operations/types.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import type { OutboundEvent } from '../outbound/events.ts';

export async function enqueueEmailNotices(_services: Services, _store: { execute: Sql }, _organizationId: string, _events: OutboundEvent[], _now: Date): Promise<void> {}
