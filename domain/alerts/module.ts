/** Alerts: their tables and agent tools. Their webhook handlers are wired by webhooks/ (one per alert source). */
import type { Module } from '../../engine/module.ts';
import { ALERT_ENTITIES } from './entities.ts';
import { ALERT_OPERATIONS } from './tools.ts';

export const alertsModule: Module = { name: 'alerts', entities: ALERT_ENTITIES, operations: ALERT_OPERATIONS };
