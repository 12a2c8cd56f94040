import { Migration } from '@mikro-orm/migrations';

export class Migration20261122014024 extends Migration {

  override name = 'Migration20261122014024';

  override up(): void | Promise<void> {
    this.addSql(`create table "api_keys" ("id" uuid not null, "organization_id" uuid not null, "name" text not null, "scopes" jsonb not null, "key_hash" text not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "api_keys_organization_id_index" on "api_keys" ("organization_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "audit_log" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "at" timestamptz not null, "actor_kind" text not null, "actor_id" text not null, "transport" text not null, "family" text not null, "row_id" text null, "action" text not null, "changes" jsonb not null, primary key ("id"));`);
    this.addSql(`alter table "audit_log" add constraint "audit_log_seq_unique" unique ("seq");`);
    this.addSql(`create index "audit_log_organization_id_seq_index" on "audit_log" ("organization_id", "seq");`);

    this.addSql(`create table "cfg_ai_providers" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "provider" text null, "api_key" text null, "base_url" text null, "model" text null, "model_overrides" jsonb null, "auto_upgrade_model" boolean null, "enabled" boolean null, "priority" int null, "max_tokens" int null, "temperature" double precision null, "timeout_ms" int null, "rate_limit_rpm" int null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_ai_providers" add constraint "cfg_ai_providers_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_ai_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "own_providers_only" boolean null, "anonymization_enabled" boolean null, "retry_budget" int null, "multi_agent_investigation" boolean null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_alert_mutes" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "pattern" text not null, "duration_minutes" int null, "reason" text null, "ends_at" timestamptz null, "created_by_user_id" text null, "created_via" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_alert_routes" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "position" int null, "enabled" boolean null, "matchers" jsonb null, "team_id" text null, "pages" boolean null, "severity_override" text null, "continue" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_alert_routes" add constraint "cfg_alert_routes_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_certificate_monitors" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "host" text not null, "port" int not null, "sni" text null, "warn_days" int null, "enabled" boolean null, "expires_at" timestamptz null, "last_checked_at" timestamptz null, "last_status" text null, "last_error" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_certificate_monitors" add constraint "cfg_certificate_monitors_organization_id_host_port_unique" unique ("organization_id", "host", "port");`);

    this.addSql(`create table "cfg_change_notifications" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "families" jsonb null, "actions" jsonb null, "destination_kind" text null, "chat_channel" text null, "outbound_config_id" text null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_change_notifications" add constraint "cfg_change_notifications_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_chat" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "workspace_id" text null, "default_channel" text null, "alert_channel_pattern" text null, "incident_channel_prefix" text null, "thread_per_alert" boolean null, "bot_token" text null, "signing_secret" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_cloud_external_id" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "external_id" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_code_host_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "installation_id" text null, "account" text null, "default_branch" text null, "fix_pr_draft" boolean null, "fix_pr_labels" jsonb null, "fix_pr_reviewers" jsonb null, "branch_prefix" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_compliance_periods" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "framework" text null, "starts_on" text null, "ends_on" text null, "export_top_hash" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_compliance_periods" add constraint "cfg_compliance_periods_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_connectors" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "kind" text null, "provider" text null, "settings" jsonb null, "credentials" text null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_connectors" add constraint "cfg_connectors_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_data_sources" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "account_id" text not null, "role_name" text null, "regions" jsonb null, "enabled" boolean null, "last_verified_at" timestamptz null, "last_error" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_data_sources" add constraint "cfg_data_sources_organization_id_account_id_unique" unique ("organization_id", "account_id");`);

    this.addSql(`create table "cfg_deploy_policies" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "service" text not null, "enabled" boolean null, "error_budget_threshold" double precision null, "burn_rate_block_enabled" boolean null, "incident_block_enabled" boolean null, "freeze_reason" text null, "freeze_until" timestamptz null, "override_active" boolean null, "override_allow" boolean null, "override_by" text null, "override_until" timestamptz null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_deploy_policies" add constraint "cfg_deploy_policies_organization_id_service_unique" unique ("organization_id", "service");`);

    this.addSql(`create table "cfg_image_targets" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "registry" text not null, "repository" text not null, "tag_pattern" text null, "service" text null, "environment" text null, "credentials" text null, "enabled" boolean null, "last_seen_tag" text null, "last_seen_at" timestamptz null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_image_targets" add constraint "cfg_image_targets_organization_id_registry_repository_unique" unique ("organization_id", "registry", "repository");`);

    this.addSql(`create table "cfg_notification_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "channels" jsonb null, "email_recipients" jsonb null, "quiet_hours" jsonb null, "digest" text null, "digest_hour" int null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_organization_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "timezone" text null, "alert_storm_threshold" int null, "alert_storm_window_seconds" int null, "alert_grouping_ai_enabled" boolean null, "alert_refire_cooldown_minutes" int null, "automation_approval_ttl_minutes" int null, "investigation_cooldown_minutes" int null, "investigation_paused" boolean null, "auto_open_incidents" boolean null, "auto_close_incidents" boolean null, "incident_severity_floor" text null, "monthly_ai_budget_usd" double precision null, "ai_budget_warn_percent" int null, "restrict_domain_signups" boolean null, "social_joins_enabled" boolean null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_outbound_configs" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "kind" text null, "url" text null, "headers" text null, "signing_secret" text null, "enabled" boolean null, "timeout_ms" int null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_outbound_configs" add constraint "cfg_outbound_configs_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_outbound_rules" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "events" jsonb null, "outbound_config_id" text null, "filters" jsonb null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_outbound_rules" add constraint "cfg_outbound_rules_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_overseer_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "mode" text null, "action_kinds_requiring_approval" jsonb null, "max_automated_actions_per_hour" int null, "notify_on_block" boolean null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_prompt_templates" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "purpose" text not null, "template" text null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_prompt_templates" add constraint "cfg_prompt_templates_organization_id_purpose_unique" unique ("organization_id", "purpose");`);

    this.addSql(`create table "cfg_repo_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "repo" text not null, "services" jsonb null, "default_branch" text null, "fix_pull_requests_enabled" boolean null, "reviewers" jsonb null, "labels" jsonb null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_repo_settings" add constraint "cfg_repo_settings_organization_id_repo_unique" unique ("organization_id", "repo");`);

    this.addSql(`create table "cfg_service_bindings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "service" text not null, "environment" text not null, "account_id" text null, "region" text null, "log_groups" jsonb null, "log_filter" text null, "trace_service_names" jsonb null, "metric_selectors" jsonb null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_service_bindings" add constraint "cfg_service_bindings_organization_id_service_environment_unique" unique ("organization_id", "service", "environment");`);

    this.addSql(`create table "cfg_slis" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "service" text null, "indicator" text null, "latency_threshold_ms" int null, "query" text null, "description" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_slis" add constraint "cfg_slis_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_slos" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "sli_id" text null, "target_percent" double precision null, "window_days" int null, "description" text null, "status" text null, "error_budget_remaining_percent" double precision null, "burn_rate" double precision null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_slos" add constraint "cfg_slos_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_status_page_components" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "display_name" text null, "description" text null, "slo_ids" jsonb null, "position" int null, "archived_at" timestamptz null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_status_page_incidents" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" text null, "status" text null, "impact" text null, "component_ids" jsonb null, "message" text null, "updates" jsonb null, "started_at" timestamptz null, "resolved_at" timestamptz null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_status_page_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" text null, "public" boolean null, "slug" text null, "support_url" text null, "history_days" jsonb null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_status_page_settings" add constraint "cfg_status_page_settings_slug_unique" unique ("slug");`);

    this.addSql(`create table "cfg_synthetic_checks" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "url" text null, "method" text null, "expected_status" int null, "body_contains" text null, "interval_seconds" int null, "timeout_ms" int null, "service" text null, "headers" text null, "enabled" boolean null, "last_run_at" timestamptz null, "last_status" text null, "last_latency_ms" int null, "last_error" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_synthetic_checks" add constraint "cfg_synthetic_checks_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_teams" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text null, "member_emails" jsonb null, "escalation" jsonb null, "timezone" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_teams" add constraint "cfg_teams_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "cfg_ticket_import_rules" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "provider" text not null, "config" jsonb null, "enabled" boolean null, "last_run_at" timestamptz null, "last_run_counts" jsonb null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_ticket_import_rules" add constraint "cfg_ticket_import_rules_organization_id_provider_unique" unique ("organization_id", "provider");`);

    this.addSql(`create table "cfg_ticket_integrations" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "provider" text not null, "base_url" text null, "account" text null, "api_token" text null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_ticket_integrations" add constraint "cfg_ticket_integrations_organization_id_provider_unique" unique ("organization_id", "provider");`);

    this.addSql(`create table "memberships" ("id" text not null, "organization_id" uuid not null, "user_id" uuid not null, "email" text not null, "role" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "memberships_organization_id_index" on "memberships" ("organization_id");`);
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_organization_id_user_id_unique" unique ("organization_id", "user_id");`);

    this.addSql(`create table "organizations" ("id" uuid not null, "name" text not null, "plan" text not null, "disabled" boolean not null default false, "features" jsonb not null default '{}', "flags" jsonb not null default '{}', "webhook_token_sealed" text not null, "webhook_token_hash" text not null, "previous_webhook_token_hash" text null, "previous_valid_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "organizations" add constraint "organizations_webhook_token_hash_unique" unique ("webhook_token_hash");`);
    this.addSql(`create index "organizations_previous_webhook_token_hash_index" on "organizations" ("previous_webhook_token_hash");`);

    this.addSql(`create table "personal_tokens" ("id" uuid not null, "user_id" uuid not null, "name" text not null, "organizations" jsonb not null, "max_role" text not null, "token_hash" text not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "personal_tokens_user_id_index" on "personal_tokens" ("user_id");`);
    this.addSql(`alter table "personal_tokens" add constraint "personal_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "system_settings" ("key" text not null, "value" text not null, primary key ("key"));`);

    this.addSql(`create table "users" ("id" uuid not null, "email" text not null, "name" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);
  }

}
