import { Migration } from '@mikro-orm/migrations';

export class Migration20261125201339 extends Migration {

  override name = 'Migration20261125201339';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_keys" ("organization_id" uuid not null, "key" text not null, "fingerprint" text not null, "claim" uuid not null, "state" text not null, "result" text null, "created_at" timestamptz not null, primary key ("organization_id", "key"));`);
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
