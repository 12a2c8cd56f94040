/** The registry of every resource family the service serves. Adding a family is adding a line here. */
import type { FamilyDescriptor } from '../engine/descriptor.ts';
import type { DomainOperation } from '../engine/operations/domain.ts';
import ai_providers from './ai_providers.ts';
import ai_settings from './ai_settings.ts';
import alert_mutes from './alert_mutes.ts';
import cloud_external_id from './cloud_external_id.ts';
import code_host_settings from './code_host_settings.ts';
import compliance_periods from './compliance_periods.ts';
import deploy_policies from './deploy_policies.ts';
import organization_settings from './organization_settings.ts';
import service_bindings from './service_bindings.ts';
import slis from './slis.ts';
import slos from './slos.ts';
import status_page_components from './status_page_components.ts';
import ticket_import_rules from './ticket_import_rules.ts';
import ticket_integrations from './ticket_integrations.ts';
import { resolveServiceBindings } from './service_bindings_resolve.ts';
import { configureTicketIntegration } from './ticket_integrations_configure.ts';

export const families: FamilyDescriptor[] = [
  organization_settings,
  ai_providers,
  ai_settings,
  alert_mutes,
  cloud_external_id,
  compliance_periods,
  deploy_policies,
  service_bindings,
  slis,
  slos,
  status_page_components,
  ticket_integrations,
  code_host_settings,
  ticket_import_rules,
];

/** Agent tools (and REST routes, where declared) that belong to families but are not their CRUD. */
export const domainOperations: DomainOperation[] = [resolveServiceBindings, configureTicketIntegration];
