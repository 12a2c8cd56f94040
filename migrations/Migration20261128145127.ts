import { Migration } from '@mikro-orm/migrations';

export class Migration20261128145127 extends Migration {

  override name = 'Migration20261128145127';

  override up(): void | Promise<void> {
    this.addSql(`create table "oncall_feeds" ("organization_id" uuid not null, "subject" text not null, "token_hash" text not null, "created_at" timestamptz not null, primary key ("organization_id", "subject"));`);
    this.addSql(`alter table "oncall_feeds" add constraint "oncall_feeds_token_hash_unique" unique ("token_hash");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "oncall_feeds" cascade;`);
  }

}
