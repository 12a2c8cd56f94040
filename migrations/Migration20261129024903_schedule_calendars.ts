import { Migration } from '@mikro-orm/migrations';

export class Migration20261129024903_schedule_calendars extends Migration {

  override name = 'Migration20261129024903_schedule_calendars';

  override up(): void | Promise<void> {
    this.addSql(`create table "schedule_calendars" ("organization_id" uuid not null, "schedule_id" text not null, "url" text not null, "checked_at" timestamptz null, "fetched_at" timestamptz null, "events" jsonb not null, "unmatched" jsonb not null, "error" text null, primary key ("organization_id", "schedule_id", "url"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "schedule_calendars" cascade;`);
  }

}
