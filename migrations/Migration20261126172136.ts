import { Migration } from '@mikro-orm/migrations';

export class Migration20261126172136 extends Migration {

  override name = 'Migration20261126172136';

  override up(): void | Promise<void> {
    this.addSql(`create table "status_page_window_notices" ("window_id" text not null, "kind" text not null, "organization_id" uuid not null, "sent_at" timestamptz not null, primary key ("window_id", "kind"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "status_page_window_notices" cascade;`);
  }

}
