import { Migration } from '@mikro-orm/migrations';

export class Migration20261128221258 extends Migration {

  override name = 'Migration20261128221258';

  override up(): void | Promise<void> {
    this.addSql(`create table "paging_twilio_pages" ("id" text not null, "kind" text not null, "account_sid" text not null, "organization_id" uuid not null, "user_id" uuid not null, "bundle_id" uuid not null, "to_address" text not null, "alert_ids" jsonb not null, "reply_code" text null, "gather_token_hash" text null, "sid" text null, "created_at" timestamptz not null, "acted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "paging_twilio_pages_to_address_index" on "paging_twilio_pages" ("to_address");`);
    this.addSql(`alter table "paging_twilio_pages" add constraint "paging_twilio_pages_gather_token_hash_unique" unique ("gather_token_hash");`);
    this.addSql(`alter table "paging_twilio_pages" add constraint "paging_twilio_pages_sid_unique" unique ("sid");`);
    this.addSql(`create index "paging_twilio_pages_created_at_index" on "paging_twilio_pages" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "paging_twilio_pages" cascade;`);
  }

}
