/**
 * The periodic pass: releases held notifications, sweeps outbound deliveries (outbound/deliveries/sweep.ts:
 * orphaned ones get a new job, old settled ones are pruned) and forgets old chat messages and email notices
 * (retention.ts). Held notifications: chat posts and emails held by quiet hours or waiting for their
 * email digest are rows with a `send_after` decided with the injected clock; a pass sends those that are due.
 * Passes run as a periodic job (engine/jobs/periodic.ts: one tick queued at a time however many instances share
 * the database); each channel's release claims its rows, which is what keeps a notice from going out twice. Tests
 * run passes by hand.
 */
import { periodicPass } from '../engine/jobs/periodic.ts';
import type { JobHandler } from '../engine/jobs/types.ts';
import type { Services } from '../engine/services.ts';
import { releaseHeldChat } from './chat/release.ts';
import { CHAT_ORPHANS } from './chat/send.ts';
import { rescueOrphans } from './deliveries/orphans.ts';
import { sweepDeliveries } from './deliveries/sweep.ts';
import { releaseDueEmail } from './email/release.ts';
import { pruneNotices } from './retention.ts';
import { pruneIdempotencyKeys } from '../engine/operations/idempotency.ts';

export const NOTIFY_TICK_QUEUE = 'notify.tick';

export interface NotifyOptions {
  /** seconds between release passes (wall time: a poll cadence; what is due is decided with the injected clock). 0: no passes. Default 30. */
  tickSeconds?: number;
}

declare module '../engine/config.ts' {
  interface ServiceConfig {
    /** the periodic release pass's cadence (`VIGIL_NOTIFY_TICK_SECONDS`); absent: 30 seconds */
    notify?: NotifyOptions;
  }
}

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
  await pruneIdempotencyKeys(services, now);
}

const releaser = periodicPass(NOTIFY_TICK_QUEUE, DEFAULT_TICK_SECONDS, async (services) => {
  await runNoticePass(services);
  await runHousekeeping(services);
});

/** The tick's job handler (its module.ts hands it to serve). */
export const notifyTickJob: JobHandler = releaser.job;

/** The outbound module's start-up hook (`onStart`): seeds the tick chain at this instance's cadence (`config.notify`). */
export function noticeReleaser(services: Services): Promise<void> {
  return releaser.seed(services, services.config.notify?.tickSeconds ?? DEFAULT_TICK_SECONDS);
}
