import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071535 extends Migration {

  override name = 'Migration20261122071535';

  override up(): void | Promise<void> {
    this.addSql(`create table "outbound_delivery_attempts" ("seq" bigserial primary key, "organization_id" uuid not null, "delivery_id" uuid not null, "attempt" int not null, "started_at" timestamptz not null, "status_code" int null, "latency_ms" int null, "error" text null, "response" text null, "outcome" text not null, "next_attempt_at" timestamptz null);`);
    this.addSql(`create index "outbound_delivery_attempts_delivery_id_seq_index" on "outbound_delivery_attempts" ("delivery_id", "seq");`);

    this.addSql(`create table "outbound_deliveries" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "event_id" uuid not null, "event_type" text not null, "subject_id" text null, "config_id" text not null, "rule_ids" jsonb not null, "payload" text not null, "status" text not null, "attempts" int not null default 0, "round_offset" int not null default 0, "job_id" uuid null, "next_attempt_at" timestamptz null, "last_status_code" int null, "last_error" text null, "last_latency_ms" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "delivered_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "outbound_deliveries" add constraint "outbound_deliveries_seq_unique" unique ("seq");`);
    this.addSql(`create index "outbound_deliveries_organization_id_seq_index" on "outbound_deliveries" ("organization_id", "seq");`);
    this.addSql(`create index "outbound_deliveries_organization_id_config_id_seq_index" on "outbound_deliveries" ("organization_id", "config_id", "seq");`);
    this.addSql(`create index "outbound_deliveries_created_at_index" on "outbound_deliveries" ("created_at");`);

    this.addSql(`alter table "alerts" add "severity_override" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "outbound_delivery_attempts" cascade;`);
    this.addSql(`drop table if exists "outbound_deliveries" cascade;`);

    this.addSql(`alter table "alerts" drop column "severity_override";`);
  }

}
