import { Migration } from '@mikro-orm/migrations';

export class Migration20261126170816 extends Migration {

  override name = 'Migration20261126170816';

  override up(): void | Promise<void> {
    this.addSql(`create table "status_page_subscribers" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "email" text not null, "confirmed_at" timestamptz null, "confirm_hash" text null, "confirm_expires_at" timestamptz null, "confirmation_sent_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "status_page_subscribers" add constraint "status_page_subscribers_seq_unique" unique ("seq");`);
    this.addSql(`create index "status_page_subscribers_confirm_hash_index" on "status_page_subscribers" ("confirm_hash");`);
    this.addSql(`create index "status_page_subscribers_organization_id_seq_index" on "status_page_subscribers" ("organization_id", "seq");`);
    this.addSql(`alter table "status_page_subscribers" add constraint "status_page_subscribers_organization_id_email_unique" unique ("organization_id", "email");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "status_page_subscribers" cascade;`);
  }

}
