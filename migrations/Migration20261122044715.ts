import { Migration } from '@mikro-orm/migrations';

export class Migration20261122044715 extends Migration {

  override name = 'Migration20261122044715';

  override up(): void | Promise<void> {
    this.addSql(`create table "board_counters" ("organization_id" uuid not null, "prefix" text not null, "last_number" int not null, primary key ("organization_id"));`);

    this.addSql(`create table "cards" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "number" int not null, "key" text not null, "title" text not null, "description" text null, "priority" text not null, "labels" jsonb not null, "service" text null, "assignee_user_id" uuid null, "status" text not null, "archived_at" timestamptz null, "dedup_key" text null, "answer" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "cards" add constraint "cards_seq_unique" unique ("seq");`);
    this.addSql(`create index "cards_organization_id_status_index" on "cards" ("organization_id", "status");`);
    this.addSql(`create index "cards_organization_id_seq_index" on "cards" ("organization_id", "seq");`);
    this.addSql(`alter table "cards" add constraint "cards_organization_id_number_unique" unique ("organization_id", "number");`);
    this.addSql(`alter table "cards" add constraint "cards_organization_id_key_unique" unique ("organization_id", "key");`);
    this.addSql(`alter table "cards" add constraint "cards_organization_id_dedup_key_unique" unique ("organization_id", "dedup_key");`);

    this.addSql(`create table "card_comments" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "card_id" uuid not null, "body" text not null, "author" text null, "comment_id" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "card_comments" add constraint "card_comments_seq_unique" unique ("seq");`);
    this.addSql(`create index "card_comments_card_id_seq_index" on "card_comments" ("card_id", "seq");`);
    this.addSql(`alter table "card_comments" add constraint "card_comments_card_id_comment_id_unique" unique ("card_id", "comment_id");`);

    this.addSql(`create table "card_effects" ("seq" bigserial primary key, "organization_id" uuid not null, "card_id" uuid not null, "at" timestamptz not null, "kind" text not null, "detail" jsonb not null);`);
    this.addSql(`create index "card_effects_card_id_seq_index" on "card_effects" ("card_id", "seq");`);

    this.addSql(`create table "timeline_entries" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "source" text not null, "dedup_key" text null, "event_type" text not null, "status" text not null, "service" text not null, "environment" text null, "version" text null, "previous_version" text null, "deployed_by" text null, "description" text null, "commit_sha" text null, "repo_full_name" text null, "pr_url" text null, "compare_url" text null, "run_url" text null, "branch" text null, "author" text null, "started_at" timestamptz null, "completed_at" timestamptz null, "occurred_at" timestamptz not null, "details" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "timeline_entries" add constraint "timeline_entries_seq_unique" unique ("seq");`);
    this.addSql(`create index "timeline_entries_organization_id_occurred_at_index" on "timeline_entries" ("organization_id", "occurred_at");`);
    this.addSql(`create index "timeline_entries_organization_id_service_occurred_at_index" on "timeline_entries" ("organization_id", "service", "occurred_at");`);
    this.addSql(`alter table "timeline_entries" add constraint "timeline_entries_organization_id_source_dedup_key_unique" unique ("organization_id", "source", "dedup_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "board_counters" cascade;`);
    this.addSql(`drop table if exists "cards" cascade;`);
    this.addSql(`drop table if exists "card_comments" cascade;`);
    this.addSql(`drop table if exists "card_effects" cascade;`);
    this.addSql(`drop table if exists "timeline_entries" cascade;`);
  }

}
