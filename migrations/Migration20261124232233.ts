import { Migration } from '@mikro-orm/migrations';

export class Migration20261124232233 extends Migration {

  override name = 'Migration20261124232233';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_notices" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "event_id" uuid not null, "event_type" text not null, "subject_id" text null, "payload" text not null, "created_at" timestamptz not null, "send_after" timestamptz not null, "batched" boolean not null default false, "status" text not null, "claim_id" uuid null, "claimed_at" timestamptz null, "sent_at" timestamptz null, "attempts" int not null default 0, "last_error" text null, primary key ("id"));`);
    this.addSql(`alter table "email_notices" add constraint "email_notices_seq_unique" unique ("seq");`);
    this.addSql(`create index "email_notices_status_send_after_index" on "email_notices" ("status", "send_after");`);
    this.addSql(`create index "email_notices_organization_id_status_send_after_index" on "email_notices" ("organization_id", "status", "send_after");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "email_notices" cascade;`);
  }

}
