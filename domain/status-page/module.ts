/** The status page's subscribers: their table, the org admins' operations, and the notices that follow page changes. */
import type { Module } from '../../engine/module.ts';
import { STATUS_PAGE_ENTITIES } from './entities.ts';
import { notifySubscribers } from './notices.ts';
import { STATUS_PAGE_OPERATIONS } from './tools.ts';

export const statusPageSubscribersModule: Module = {
  name: 'status-page-subscribers',
  entities: STATUS_PAGE_ENTITIES,
  operations: STATUS_PAGE_OPERATIONS,
  auditListeners: [notifySubscribers],
};
