import { Migration } from '@mikro-orm/migrations';

export class Migration20261126165619 extends Migration {

  override name = 'Migration20261126165619';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_status_page_maintenances" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" text null, "message" text null, "component_ids" jsonb null, "starts_at" timestamptz null, "ends_at" timestamptz null, "mute_alerts" boolean null, primary key ("organization_id", "id"));`);

    this.addSql(`alter table "cfg_status_page_components" add "manual_status" text null, add "manual_status_until" timestamptz null, add "manual_status_note" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_status_page_maintenances" cascade;`);

    this.addSql(`alter table "cfg_status_page_components" drop column "manual_status", drop column "manual_status_until", drop column "manual_status_note";`);
  }

}
