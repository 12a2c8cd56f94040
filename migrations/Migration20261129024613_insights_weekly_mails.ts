import { Migration } from '@mikro-orm/migrations';

export class Migration20261129024613_insights_weekly_mails extends Migration {

  override name = 'Migration20261129024613_insights_weekly_mails';

  override up(): void | Promise<void> {
    this.addSql(`create table "insights_weekly_mails" ("organization_id" uuid not null, "week" text not null, "sent_at" timestamptz not null, primary key ("organization_id", "week"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "insights_weekly_mails" cascade;`);
  }

}
