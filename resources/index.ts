/** The registry of every resource family the service serves. Adding a family is adding a line here. */
import type { FamilyDescriptor } from '../engine/descriptor.ts';
import ai_providers from './ai_providers.ts';
import alert_mutes from './alert_mutes.ts';
import organization_settings from './organization_settings.ts';
import slis from './slis.ts';
import slos from './slos.ts';
import status_page_components from './status_page_components.ts';

export const families: FamilyDescriptor[] = [
  organization_settings,
  ai_providers,
  alert_mutes,
  slis,
  slos,
  status_page_components,
];
