import { Migration } from '@mikro-orm/migrations';

export class Migration20261126165616 extends Migration {

  override name = 'Migration20261126165616';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_heartbeats" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "service" text null, "interval_seconds" int null, "grace_seconds" int null, "severity" text null, "last_ping_at" timestamptz null, "next_due_at" timestamptz null, "status" text null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_heartbeats" add constraint "cfg_heartbeats_organization_id_name_unique" unique ("organization_id", "name");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_heartbeats" cascade;`);
  }

}
