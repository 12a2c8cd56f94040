/** The status page's subscribers: their table, the org admins' operations, the notices that follow page changes, and the pass that tells of maintenance starting and ending. */
import type { Module } from '../../engine/module.ts';
import { STATUS_PAGE_ENTITIES } from './entities.ts';
import { notifySubscribers } from './notices.ts';
import { STATUS_PAGE_OPERATIONS } from './tools.ts';
import { seedWindowNotices, windowNoticeJob, WindowNoticeEntity } from './window-notices.ts';
import statusPageSettings from '../../resources/status_page_settings.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import statusPageComponents from '../../resources/status_page_components.ts';

export const statusPageSubscribersModule: Module = {
  name: 'status-page-subscribers', families: [statusPageSettings, statusPageMaintenances, statusPageComponents],
  entities: [...STATUS_PAGE_ENTITIES, WindowNoticeEntity],
  operations: STATUS_PAGE_OPERATIONS,
  auditListeners: [notifySubscribers],
  jobs: [windowNoticeJob],
  onStart: seedWindowNotices,
};
