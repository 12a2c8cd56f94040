/**
 * What leaves the service, apart from chat and email (their own modules): outbound deliveries (tables, tools, the
 * delivery job), the announcement of configuration changes (an audit listener), and the periodic pass that releases
 * held notices and sweeps deliveries (`options`: VIGIL_NOTIFY_TICK_SECONDS). Settings: net/config.ts.
 */
import type { Module } from '../engine/module.ts';
import { announceChange } from './changes.ts';
import { outboundDeliveryJob } from './deliveries/deliver.ts';
import { OUTBOUND_ENTITIES } from './deliveries/entities.ts';
import { OUTBOUND_OPERATIONS } from './deliveries/tools.ts';
import { noticeReleaser, notifyTickJob, type NotifyOptions } from './tick.ts';

export function outboundModule(options: NotifyOptions = {}): Module {
  return {
    name: 'outbound',
    entities: OUTBOUND_ENTITIES,
    operations: OUTBOUND_OPERATIONS,
    jobs: [outboundDeliveryJob, notifyTickJob],
    auditListeners: [announceChange],
    onStart: noticeReleaser(options),
  };
}
