/**
 * What leaves the service, apart from chat and email (their own modules): outbound deliveries (tables, tools, the
 * delivery job), the announcement of configuration changes (an audit listener), and the periodic pass that releases
 * held notices and sweeps deliveries (`config.notify`: VIGIL_NOTIFY_TICK_SECONDS). Settings: net/config.ts.
 */
import type { Module } from '../engine/module.ts';
import { announceChange } from './changes.ts';
import { outboundDeliveryJob } from './deliveries/deliver.ts';
import { OUTBOUND_ENTITIES } from './deliveries/entities.ts';
import { OUTBOUND_OPERATIONS } from './deliveries/tools.ts';
import { noticeReleaser, notifyTickJob } from './tick.ts';
import outboundRules from '../resources/outbound_rules.ts';
import outboundConfigs from '../resources/outbound_configs.ts';
import notificationSettings from '../resources/notification_settings.ts';
import organizationSettings from '../resources/organization_settings.ts';
import chat from '../resources/chat.ts';
import alertRoutes from '../resources/alert_routes.ts';
import teams from '../resources/teams.ts';
import changeNotifications from '../resources/change_notifications.ts';

export const outboundModule: Module = {
  name: 'outbound', families: [outboundRules, outboundConfigs, notificationSettings, organizationSettings, chat, alertRoutes, teams, changeNotifications],
  entities: OUTBOUND_ENTITIES,
  operations: OUTBOUND_OPERATIONS,
  jobs: [outboundDeliveryJob, notifyTickJob],
  auditListeners: [announceChange],
  onStart: noticeReleaser,
};
