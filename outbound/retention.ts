/**
 * What the periodic pass (tick.ts) forgets: chat messages and email notices settled more than `RETENTION_DAYS`
 * ago, at most `BATCH` of each per pass. A chat thread is forgotten once its alert resolved that long ago (a quiet
 * re-fire comes within the re-fire cooldown, at most a day); a thread's first post is kept while its thread is, and
 * a message is kept while an unsettled one still waits for it or replies under it.
 */
import { readStore } from '../engine/operations/context.ts';
import type { Services } from '../engine/services.ts';

export const RETENTION_DAYS = 30;
const BATCH = 5000;
const DAY = 24 * 60 * 60_000;
const CHAT_SETTLED = `('sent', 'failed', 'not_posted', 'cancelled')`;

export async function pruneNotices(services: Services, now: Date): Promise<{ chat: number; email: number }> {
  const sql = readStore(services).execute;
  const before = new Date(now.getTime() - RETENTION_DAYS * DAY);
  await sql('delete from chat_threads where closed_at < ?', [before]);
  const chat = await sql(
    `delete from chat_messages where id in (
       select m.id from chat_messages m
        where m.status in ${CHAT_SETTLED} and m.updated_at < ?
          and not exists (select 1 from chat_threads t where t.message_id = m.id)
          and not exists (select 1 from chat_messages n where (n.thread_of = m.id or n.after_id = m.id) and n.status not in ${CHAT_SETTLED})
        limit ${BATCH})
     returning id`,
    [before],
  );
  const email = await sql(
    `delete from email_notices where id in (
       select id from email_notices where status in ('sent', 'failed', 'cancelled') and coalesce(sent_at, claimed_at, created_at) < ? limit ${BATCH})
     returning id`,
    [before],
  );
  return { chat: chat.length, email: email.length };
}
