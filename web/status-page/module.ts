/** The public status page: its routes, its feeds and its subscribe forms. */
import type { Module } from '../../engine/module.ts';
import { statusPageRoutes } from './routes.ts';
import { subscribeRoutes } from './subscribe.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import statusPageIncidents from '../../resources/status_page_incidents.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import statusPageSettings from '../../resources/status_page_settings.ts';

/** The forms post url-encoded bodies: their routes read them raw, before the API's JSON-only check. */
export const statusPageModule: Module = { name: 'status-page', families: [statusPageComponents, statusPageIncidents, statusPageMaintenances, statusPageSettings], routes: [statusPageRoutes], rawRoutes: [subscribeRoutes] };
