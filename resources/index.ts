/** The registry of every resource family the service serves. Adding a family is adding a line here. */
import type { FamilyDescriptor } from '../engine/descriptor.ts';
import ai_providers from './ai_providers.ts';
import alert_mutes from './alert_mutes.ts';
import code_host_settings from './code_host_settings.ts';
import organization_settings from './organization_settings.ts';
import service_bindings from './service_bindings.ts';
import slis from './slis.ts';
import slos from './slos.ts';
import status_page_components from './status_page_components.ts';
import ticket_import_rules from './ticket_import_rules.ts';
import ticket_integrations from './ticket_integrations.ts';

export const families: FamilyDescriptor[] = [
  organization_settings,
  ai_providers,
  alert_mutes,
  service_bindings,
  slis,
  slos,
  status_page_components,
  ticket_integrations,
  code_host_settings,
  ticket_import_rules,
];
