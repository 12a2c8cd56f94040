import { Migration } from '@mikro-orm/migrations';

export class Migration20261126171255 extends Migration {

  override name = 'Migration20261126171255';

  override up(): void | Promise<void> {
    this.addSql(`create table "heartbeat_removals" ("organization_id" uuid not null, "heartbeat_id" text not null, "removed_at" timestamptz not null, primary key ("organization_id", "heartbeat_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "heartbeat_removals" cascade;`);
  }

}
