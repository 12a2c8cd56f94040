/**
 * The periodic pass: releases held notifications, sweeps outbound deliveries (webhooks/outbound/sweep.ts:
 * orphaned ones get a new job, old settled ones are pruned) and forgets old chat messages and email notices
 * (retention.ts). Held notifications: chat posts and emails held by quiet hours or waiting for their
 * email digest are rows with a `send_after` decided with the injected clock; a pass sends those that are due.
 * Passes run as a job on the durable queue that re-sends itself `tickSeconds` later under one singleton key (as
 * the check scheduler does), so one tick is queued at a time however many instances share the database; each
 * channel's release claims its rows, which is what keeps a notice from going out twice. Tests run passes by hand.
 */
import type { JobHandler } from '../../engine/jobs/types.ts';
import type { Services } from '../../engine/operations/types.ts';
import { releaseHeldChat } from '../chat/release.ts';
import { CHAT_ORPHANS } from '../chat/send.ts';
import { rescueOrphans } from '../orphans.ts';
import { sweepDeliveries } from '../outbound/sweep.ts';
import { releaseDueEmail } from './email-release.ts';
import { pruneNotices } from './retention.ts';

export const NOTIFY_TICK_QUEUE = 'notify.tick';

export interface NotifyOptions {
  /** seconds between release passes (wall time: a poll cadence; what is due is decided with the injected clock). 0: no passes. Default 30. */
  tickSeconds?: number;
}

const tickOf = new WeakMap<Services, number>();
const DEFAULT_TICK_SECONDS = 30;

/** One release pass with the injected clock's "now": every channel sends what is due. */
export async function runNoticePass(services: Services): Promise<void> {
  const now = services.clock.now();
  await releaseHeldChat(services, now);
  await releaseDueEmail(services, now);
}

/** Orphaned deliveries and chat messages get new jobs; what is past its retention goes. */
export async function runHousekeeping(services: Services): Promise<void> {
  const now = services.clock.now();
  await sweepDeliveries(services, now);
  await rescueOrphans(services, CHAT_ORPHANS, now);
  await pruneNotices(services, now);
}

async function sendTick(services: Services, seconds: number): Promise<void> {
  await services.jobs.send(NOTIFY_TICK_QUEUE, {}, { singletonKey: 'tick', startAfter: seconds });
}

/** The tick: queue the next one first (a failing pass must not end the chain), then run a pass. */
export const notifyTickJob: JobHandler = {
  queue: NOTIFY_TICK_QUEUE,
  retryLimit: 0,
  expireInSeconds: 300,
  async handle(_job, services) {
    const seconds = tickOf.get(services) ?? DEFAULT_TICK_SECONDS;
    if (seconds <= 0) return;
    await sendTick(services, seconds);
    await runNoticePass(services);
    await runHousekeeping(services);
  },
};

/** The start-up hook (`serve({ onStart })`): records this instance's cadence and seeds the tick chain. */
export function noticeReleaser(options: NotifyOptions = {}): (services: Services) => Promise<void> {
  return async (services) => {
    const seconds = options.tickSeconds ?? DEFAULT_TICK_SECONDS;
    tickOf.set(services, seconds);
    if (seconds > 0) await sendTick(services, 0);
  };
}
