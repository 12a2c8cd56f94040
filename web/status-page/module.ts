/** The public status page: its routes, its feeds and its subscribe forms. Its subscribe limiter comes from bin/modules.ts. */
import type { CredentialLimiter } from '../../engine/http/rate-limit.ts';
import type { Module } from '../../engine/module.ts';
import type { Services } from '../../engine/services.ts';
import { statusPageRoutes } from './routes.ts';
import { subscribeRoutes } from './subscribe.ts';
import statusPageComponents from '../../resources/status_page_components.ts';
import statusPageIncidents from '../../resources/status_page_incidents.ts';
import statusPageMaintenances from '../../resources/status_page_maintenances.ts';
import statusPageSettings from '../../resources/status_page_settings.ts';

export interface StatusPageOptions {
  /** subscribe requests per client address (SUBSCRIBE_LIMIT), counted in the store the other limits use */
  subscribeLimiter?: (services: Services) => CredentialLimiter;
}

/** The forms post url-encoded bodies: their routes read them raw, before the API's JSON-only check. */
export function statusPageModule(options: StatusPageOptions = {}): Module {
  return {
    name: 'status-page', families: [statusPageComponents, statusPageIncidents, statusPageMaintenances, statusPageSettings],
    routes: [statusPageRoutes], rawRoutes: [(services) => subscribeRoutes(services, options.subscribeLimiter?.(services))],
  };
}
