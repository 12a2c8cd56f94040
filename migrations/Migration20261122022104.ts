import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022104 extends Migration {

  override name = 'Migration20261122022104';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_request_signing" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "source" text not null, "secret" text null, "enabled" boolean null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_request_signing" add constraint "cfg_request_signing_organization_id_source_unique" unique ("organization_id", "source");`);

    this.addSql(`create table "webhook_deliveries" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "source" text not null, "received_at" timestamptz not null, "status" int not null, "outcome" text not null, "detail" text null, "size" int not null, "headers" jsonb not null, "payload" jsonb null, primary key ("id"));`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_seq_unique" unique ("seq");`);
    this.addSql(`create index "webhook_deliveries_organization_id_seq_index" on "webhook_deliveries" ("organization_id", "seq");`);
    this.addSql(`create index "webhook_deliveries_received_at_index" on "webhook_deliveries" ("received_at");`);

    this.addSql(`create table "webhook_rate_limits" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_request_signing" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_rate_limits" cascade;`);
  }

}
