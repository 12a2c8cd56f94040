import { Migration } from '@mikro-orm/migrations';

export class Migration20261122075400 extends Migration {

  override name = 'Migration20261122075400';

  override up(): void | Promise<void> {
    this.addSql(`create table "check_schedules" ("kind" text not null, "organization_id" uuid not null, "check_id" text not null, "next_run_at" timestamptz not null, "seen_version" int not null, "consecutive_failures" int not null default 0, "alerting" boolean not null default false, primary key ("kind", "organization_id", "check_id"));`);
    this.addSql(`create index "check_schedules_next_run_at_index" on "check_schedules" ("next_run_at");`);

    this.addSql(`create table "synthetic_results" ("seq" bigserial primary key, "organization_id" uuid not null, "check_id" uuid not null, "at" timestamptz not null, "ok" boolean not null, "latency_ms" int null, "status_code" int null, "error" text null);`);
    this.addSql(`create index "synthetic_results_organization_id_check_id_at_index" on "synthetic_results" ("organization_id", "check_id", "at");`);

    this.addSql(`alter table "cfg_deploy_policies" drop column "override_active";`);
    this.addSql(`alter table "cfg_deploy_policies" add "override_reason" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "check_schedules" cascade;`);
    this.addSql(`drop table if exists "synthetic_results" cascade;`);

    this.addSql(`alter table "cfg_deploy_policies" drop column "override_reason";`);
    this.addSql(`alter table "cfg_deploy_policies" add "override_active" bool null;`);
  }

}
