import { Migration } from '@mikro-orm/migrations';

export class Migration20261128140448 extends Migration {

  override name = 'Migration20261128140448';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_schedule_overrides" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "schedule_id" text null, "start" timestamptz null, "end" timestamptz null, "email" text null, "replaces" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_schedules" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text null, "time_zone" text null, "team_id" text null, "layers" jsonb null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_schedules" add constraint "cfg_schedules_organization_id_name_unique" unique ("organization_id", "name");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_schedule_overrides" cascade;`);
    this.addSql(`drop table if exists "cfg_schedules" cascade;`);
  }

}
