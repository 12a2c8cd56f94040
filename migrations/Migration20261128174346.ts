import { Migration } from '@mikro-orm/migrations';

export class Migration20261128174346 extends Migration {

  override name = 'Migration20261128174346';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_contact_methods" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "email" text null, "type" text null, "name" text null, "address" text null, "verified" boolean null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "cfg_notification_rules" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "email" text null, "contact_method_id" text null, "delay_minutes" int null, "urgency" text null, primary key ("organization_id", "id"));`);

    this.addSql(`create table "contact_verifications" ("organization_id" uuid not null, "contact_method_id" text not null, "address" text not null, "code_hash" text not null, "tries" int not null default 0, "sent_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("organization_id", "contact_method_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_contact_methods" cascade;`);
    this.addSql(`drop table if exists "cfg_notification_rules" cascade;`);
    this.addSql(`drop table if exists "contact_verifications" cascade;`);
  }

}
