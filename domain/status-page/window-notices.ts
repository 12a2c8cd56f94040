/**
 * Subscribers are told when a maintenance window starts and when it ends, by a periodic pass (engine/jobs/periodic.ts:
 * one tick queued at a time however many instances share the database) that reads "now" from the injected clock. Each
 * notice is claimed by inserting `(window, kind)` into `status_page_window_notices` (its primary key) in the same
 * transaction as its mails, so two instances, a retried pass or a restart never send one twice, and a pass that missed
 * its minute (a restart) still sends it. Only windows that started or ended within the last day are told of (a new
 * deployment does not mail about old windows); a window that started and ended between two passes is told of once, ended.
 */
import { EntitySchema } from '@mikro-orm/core';
import { periodicPass } from '../../engine/jobs/periodic.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { text, time, uuid } from '../../engine/persistence/columns.ts';
import type { Services } from '../../engine/services.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import { canSendMail } from '../../outbound/mail.ts';
import { componentNames, mailSubscribers, publicPageOf } from './notices.ts';

export const WINDOW_NOTICE_QUEUE = 'status-page.windows';
const TICK_SECONDS = 60;
const DAY = 86_400_000;

export const WindowNoticeEntity = new EntitySchema<any>({
  name: 'StatusPageWindowNotice',
  tableName: 'status_page_window_notices',
  properties: {
    window_id: { ...text, primary: true },
    /** started or ended */
    kind: { ...text, primary: true },
    organization_id: uuid,
    sent_at: time,
  },
});

const utc = (value: unknown) => `${new Date(value as string).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One pass: every window that started or ended since the last day and whose notice is not yet claimed. */
export async function runWindowNotices(services: Services): Promise<number> {
  if (!canSendMail(services)) return 0;
  const family = services.registry.family(statusPageMaintenances);
  const now = services.clock.now();
  const since = new Date(now.getTime() - DAY);
  const due = await readStore(services).execute(
    `select w."organization_id", w."id", w."title", w."message", w."component_ids", w."starts_at", w."ends_at",
            case when w."ends_at" <= ? then 'ended' else 'started' end as kind
       from "${tableName(family)}" w
      where (w."ends_at" <= ? and w."ends_at" > ?) or (w."starts_at" <= ? and w."starts_at" > ? and w."ends_at" > ?)`,
    [now, now, since, now, since, now],
  );
  let sent = 0;
  for (const w of due) {
    await inTransaction(services, async (store) => {
      const claimed = await store.execute(
        'insert into status_page_window_notices (window_id, kind, organization_id, sent_at) values (?, ?, ?, ?) on conflict do nothing returning window_id',
        [String(w.id), String(w.kind), String(w.organization_id), now],
      );
      if (claimed.length === 0) return;
      const page = await publicPageOf(services, store.execute, String(w.organization_id));
      if (!page) return;
      const affects = await componentNames(services, store.execute, String(w.organization_id), w.component_ids);
      const started = w.kind === 'started';
      await mailSubscribers(services, store.execute, String(w.organization_id), page, {
        what: started ? 'Maintenance started' : 'Maintenance completed',
        title: String(w.title),
        lines: [started ? `In progress until ${utc(w.ends_at)}` : `Ended ${utc(w.ends_at)}`, affects.length ? `Affects: ${affects.join(', ')}` : '', started ? String(w.message ?? '') : ''].filter(Boolean),
      });
      sent++;
    });
  }
  return sent;
}

const pass = periodicPass(WINDOW_NOTICE_QUEUE, TICK_SECONDS, runWindowNotices);
export const windowNoticeJob = pass.job;
export const seedWindowNotices = (services: Services) => pass.seed(services, TICK_SECONDS);
