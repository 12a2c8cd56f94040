import { Migration } from '@mikro-orm/migrations';

export class Migration20261128222101 extends Migration {

  override name = 'Migration20261128222101';

  override up(): void | Promise<void> {
    this.addSql(`create table "paging_bundles" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid null, "email" text not null, "method_key" text not null, "channel" text not null, "status" text not null, "reason" text null, "provider_id" text null, "delivery" text null, "summary" boolean not null default false, "sent_at" timestamptz not null, "acted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "paging_bundles_organization_id_email_method_key_sent_at_index" on "paging_bundles" ("organization_id", "email", "method_key", "sent_at");`);
    this.addSql(`create index "paging_bundles_channel_provider_id_index" on "paging_bundles" ("channel", "provider_id");`);
    this.addSql(`create index "paging_bundles_status_sent_at_index" on "paging_bundles" ("status", "sent_at");`);

    this.addSql(`alter table "paging_notifications" drop constraint "paging_notifications_pkey";`);
    this.addSql(`alter table "paging_notifications" add "method_key" text not null default 'account', add "contact_type" text not null default 'email', add "address" text null, add "method_name" text null;`);
    this.addSql(`create index "paging_notifications_bundle_id_index" on "paging_notifications" ("bundle_id");`);
    this.addSql(`alter table "paging_notifications" add primary key ("escalation_id", "step", "loop", "email", "method_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "paging_bundles" cascade;`);

    this.addSql(`drop index "paging_notifications_bundle_id_index";`);
    this.addSql(`alter table "paging_notifications" drop constraint "paging_notifications_pkey";`);
    this.addSql(`alter table "paging_notifications" drop column "method_key", drop column "contact_type", drop column "address", drop column "method_name";`);
    this.addSql(`alter table "paging_notifications" add primary key ("escalation_id", "step", "loop", "email");`);
  }

}
