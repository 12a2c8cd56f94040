/** Alerts and incidents: their tables, reads and actions. Their webhook handlers are wired by webhooks/ (one per alert source). */
import type { Module } from '../../engine/module.ts';
import { ALERT_ACTIONS } from './alert-actions.ts';
import { ALERT_ENTITIES } from './entities.ts';
import { INCIDENT_ACTIONS } from './incident-actions.ts';
import { listAttention } from './attention.ts';
import { getIncident, listIncidents } from './incidents.ts';
import { ALERT_OPERATIONS } from './tools.ts';
import organizationSettings from '../../resources/organization_settings.ts';
import alertMutes from '../../resources/alert_mutes.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import slos from '../../resources/slos.ts';
import slis from '../../resources/slis.ts';

export const alertsModule: Module = {
  name: 'alerts', families: [organizationSettings, alertMutes, statusPageMaintenances, statusPageComponents, slos, slis],
  entities: ALERT_ENTITIES,
  operations: [...ALERT_OPERATIONS, ...ALERT_ACTIONS, listIncidents, getIncident, ...INCIDENT_ACTIONS, listAttention],
};
