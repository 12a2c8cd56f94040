/** The registry of every resource family the service serves. Adding a family is adding a line here. */
import type { FamilyDescriptor } from '../engine/descriptor.ts';
import ai_providers from './ai_providers.ts';
import ai_settings from './ai_settings.ts';
import alert_mutes from './alert_mutes.ts';
import alert_routes from './alert_routes.ts';
import certificate_monitors from './certificate_monitors.ts';
import change_notifications from './change_notifications.ts';
import chat from './chat.ts';
import cloud_external_id from './cloud_external_id.ts';
import code_host_settings from './code_host_settings.ts';
import contact_methods from './contact_methods.ts';
import compliance_periods from './compliance_periods.ts';
import connectors from './connectors.ts';
import data_sources from './data_sources.ts';
import deploy_policies from './deploy_policies.ts';
import heartbeats from './heartbeats.ts';
import image_targets from './image_targets.ts';
import notification_rules from './notification_rules.ts';
import paging_providers from './paging_providers.ts';
import notification_settings from './notification_settings.ts';
import organization_settings from './organization_settings.ts';
import outbound_configs from './outbound_configs.ts';
import outbound_rules from './outbound_rules.ts';
import overseer_settings from './overseer_settings.ts';
import prompt_templates from './prompt_templates.ts';
import repo_settings from './repo_settings.ts';
import request_signing from './request_signing.ts';
import schedule_overrides from './schedule_overrides.ts';
import schedules from './schedules.ts';
import escalation_policies from './escalation_policies.ts';
import service_bindings from './service_bindings.ts';
import slis from './slis.ts';
import sso_settings from './sso_settings.ts';
import slos from './slos.ts';
import status_page_components from './status_page_components.ts';
import status_page_incidents from './status_page_incidents.ts';
import status_page_maintenances from './status_page_maintenances.ts';
import status_page_settings from './status_page_settings.ts';
import synthetic_checks from './synthetic_checks.ts';
import team_members from './team_members.ts';
import teams from './teams.ts';
import ticket_import_rules from './ticket_import_rules.ts';
import ticket_integrations from './ticket_integrations.ts';

export const families: FamilyDescriptor[] = [
  organization_settings,
  ai_providers,
  ai_settings,
  alert_mutes,
  alert_routes,
  certificate_monitors,
  change_notifications,
  chat,
  cloud_external_id,
  code_host_settings,
  compliance_periods,
  connectors,
  data_sources,
  deploy_policies,
  heartbeats,
  image_targets,
  notification_settings,
  outbound_configs,
  outbound_rules,
  overseer_settings,
  prompt_templates,
  repo_settings,
  request_signing,
  service_bindings,
  slis,
  slos,
  status_page_components,
  status_page_incidents,
  status_page_maintenances,
  status_page_settings,
  synthetic_checks,
  team_members,
  teams,
  ticket_integrations,
  ticket_import_rules,
  // after team_members: their examples need members made first
  schedules,
  schedule_overrides,
  escalation_policies,
  contact_methods,
  notification_rules,
  paging_providers,
  sso_settings,
];
