import { Migration } from '@mikro-orm/migrations';

export class Migration20261124232040 extends Migration {

  override name = 'Migration20261124232040';

  override up(): void | Promise<void> {
    this.addSql(`create table "chat_messages" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "event_id" uuid null, "event_type" text not null, "subject_id" text null, "method" text not null, "channel" text null, "fallback_channel" text null, "thread_of" uuid null, "after_id" uuid null, "text" text not null, "blocks" jsonb not null, "status" text not null, "attempts" int not null default 0, "job_id" uuid null, "send_after" timestamptz null, "next_attempt_at" timestamptz null, "posted_channel" text null, "ts" text null, "last_error_code" text null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "sent_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "chat_messages" add constraint "chat_messages_seq_unique" unique ("seq");`);
    this.addSql(`create index "chat_messages_organization_id_seq_index" on "chat_messages" ("organization_id", "seq");`);
    this.addSql(`create index "chat_messages_organization_id_subject_id_seq_index" on "chat_messages" ("organization_id", "subject_id", "seq");`);
    this.addSql(`create index "chat_messages_after_id_index" on "chat_messages" ("after_id");`);
    this.addSql(`create index "chat_messages_status_send_after_index" on "chat_messages" ("status", "send_after");`);

    this.addSql(`create table "chat_threads" ("alert_id" uuid not null, "organization_id" uuid not null, "message_id" uuid not null, "channel" text null, "ts" text null, "opened_at" timestamptz not null, "closed_at" timestamptz null, primary key ("alert_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "chat_messages" cascade;`);
    this.addSql(`drop table if exists "chat_threads" cascade;`);
  }

}
