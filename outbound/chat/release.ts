/**
 * Sends the chat posts held by quiet hours once they are due: every `held` message whose `send_after` has passed
 * is queued, oldest first, in batches. Each batch is claimed with FOR UPDATE SKIP LOCKED and turned `pending` in
 * the transaction that queues its jobs, so two instances running a pass at once never release one message twice.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { CHAT_QUEUE, chatGroup } from './queue.ts';

const BATCH = 200;

export async function releaseHeldChat(services: Services, now: Date): Promise<void> {
  if (!services.jobs?.queues.includes(CHAT_QUEUE)) return;
  for (;;) {
    const released = await inTransaction(services, async (store) => {
      const due = await store.execute(
        `select id, organization_id from chat_messages where status = 'held' and send_after <= ? order by seq limit ${BATCH} for update skip locked`,
        [now],
      );
      if (due.length === 0) return 0;
      const jobs = due.map((row) => ({ id: String(row.id), organization: String(row.organization_id), job: randomUUID() }));
      await store.execute(
        `update chat_messages m set status = 'pending', job_id = v.job_id, updated_at = ?
           from jsonb_to_recordset(?::jsonb) as v(id uuid, job_id uuid) where m.id = v.id and m.status = 'held'`,
        [now, JSON.stringify(jobs.map((j) => ({ id: j.id, job_id: j.job })))],
      );
      for (const j of jobs) await services.jobs.send(CHAT_QUEUE, { message_id: j.id }, { store, id: j.job, group: chatGroup(j.organization) });
      return due.length;
    });
    if (released < BATCH) return;
  }
}
