import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070056 extends Migration {

  override name = 'Migration20261122070056';

  override up(): void | Promise<void> {
    this.addSql(`create table "fix_requests" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "status" text not null, "description" text not null, "service" text null, "repo_requested" text null, "repo" text not null, "target_via" text not null, "dedup_key" text null, "ticket" text null, "revision" int not null, "reason" text null, "branch" text null, "pr_url" text null, "pr_number" int null, "pr_state" text null, "ai_provider" text null, "ai_model" text null, "worker_job" text null, "lease_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "fix_requests" add constraint "fix_requests_seq_unique" unique ("seq");`);
    this.addSql(`create index "fix_requests_organization_id_seq_index" on "fix_requests" ("organization_id", "seq");`);
    this.addSql(`create index "fix_requests_organization_id_repo_status_index" on "fix_requests" ("organization_id", "repo", "status");`);
    this.addSql(`alter table "fix_requests" add constraint "fix_requests_organization_id_dedup_key_unique" unique ("organization_id", "dedup_key");`);
    this.addSql(`alter table "fix_requests" add constraint "fix_requests_organization_id_ticket_unique" unique ("organization_id", "ticket");`);

    this.addSql(`create table "fix_request_events" ("seq" bigserial primary key, "organization_id" uuid not null, "request_id" uuid not null, "at" timestamptz not null, "step" text not null, "revision" int not null, "detail" jsonb not null);`);
    this.addSql(`create index "fix_request_events_request_id_seq_index" on "fix_request_events" ("request_id", "seq");`);

    this.addSql(`create table "notifications" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "kind" text not null, "dedup_key" text not null, "message" text not null, "detail" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "notifications" add constraint "notifications_seq_unique" unique ("seq");`);
    this.addSql(`create index "notifications_organization_id_seq_index" on "notifications" ("organization_id", "seq");`);
    this.addSql(`alter table "notifications" add constraint "notifications_organization_id_kind_dedup_key_unique" unique ("organization_id", "kind", "dedup_key");`);

    this.addSql(`create table "tracker_items" ("id" uuid not null, "organization_id" uuid not null, "provider" text not null, "external_id" text not null, "card_id" uuid not null, "identifier" text not null, "url" text null, "synced" jsonb not null, "version" int not null, "source_updated_at" timestamptz null, "last_event" text not null, "last_delivery_id" text null, "last_event_at" timestamptz not null, "removed_at" timestamptz null, "fix" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "tracker_items_card_id_index" on "tracker_items" ("card_id");`);
    this.addSql(`alter table "tracker_items" add constraint "tracker_items_organization_id_provider_external_id_unique" unique ("organization_id", "provider", "external_id");`);

    this.addSql(`alter table "ai_spend" add "provider" text null, add "model" text null, add "prompt_tokens" int not null default 0, add "completion_tokens" int not null default 0, add "note" text null;`);

    this.addSql(`alter table "cfg_ticket_integrations" add "signing_secret" text null;`);

    this.addSql(`alter table "investigations" add "started_at" timestamptz null, add "finished_at" timestamptz null, add "findings" jsonb null, add "failure_reason" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "fix_requests" cascade;`);
    this.addSql(`drop table if exists "fix_request_events" cascade;`);
    this.addSql(`drop table if exists "notifications" cascade;`);
    this.addSql(`drop table if exists "tracker_items" cascade;`);

    this.addSql(`alter table "ai_spend" drop column "provider", drop column "model", drop column "prompt_tokens", drop column "completion_tokens", drop column "note";`);

    this.addSql(`alter table "cfg_ticket_integrations" drop column "signing_secret";`);

    this.addSql(`alter table "investigations" drop column "started_at", drop column "finished_at", drop column "findings", drop column "failure_reason";`);
  }

}
