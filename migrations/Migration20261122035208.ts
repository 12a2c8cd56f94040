import { Migration } from '@mikro-orm/migrations';

export class Migration20261122035208 extends Migration {

  override name = 'Migration20261122035208';

  override up(): void | Promise<void> {
    this.addSql(`create table "ai_spend" ("seq" bigserial primary key, "organization_id" uuid not null, "occurred_at" timestamptz not null, "cost_usd" numeric(14,6) not null, "purpose" text not null, "reference" text null);`);
    this.addSql(`create index "ai_spend_organization_id_occurred_at_index" on "ai_spend" ("organization_id", "occurred_at");`);

    this.addSql(`create table "alerts" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "fingerprint" text not null, "source" text not null, "title" text not null, "service" text null, "severity" text not null, "summary" text null, "labels" jsonb not null, "url" text null, "external_id" text null, "status" text not null, "started_at" timestamptz not null, "raised_at" timestamptz null, "acknowledged_at" timestamptz null, "resolved_at" timestamptz null, "last_received_at" timestamptz not null, "occurrences" int not null default 1, "chat_thread" boolean not null default false, "muted_by" uuid null, "storm_id" uuid null, "incident_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "alerts" add constraint "alerts_seq_unique" unique ("seq");`);
    // room on each page for repeat deliveries' updates to stay HOT (no index touched): written by hand, the entity cannot say it
    this.addSql(`alter table "alerts" set (fillfactor = 80);`);
    this.addSql(`create index "alerts_organization_id_raised_at_index" on "alerts" ("organization_id", "raised_at");`);
    this.addSql(`create index "alerts_incident_id_index" on "alerts" ("incident_id");`);
    this.addSql(`create index "alerts_storm_id_index" on "alerts" ("storm_id");`);
    this.addSql(`alter table "alerts" add constraint "alerts_organization_id_fingerprint_unique" unique ("organization_id", "fingerprint");`);

    this.addSql(`create table "alert_effects" ("seq" bigserial primary key, "organization_id" uuid not null, "alert_id" uuid not null, "at" timestamptz not null, "kind" text not null, "detail" jsonb not null);`);
    this.addSql(`create index "alert_effects_alert_id_seq_index" on "alert_effects" ("alert_id", "seq");`);

    this.addSql(`create table "alert_storms" ("id" uuid not null, "organization_id" uuid not null, "started_at" timestamptz not null, "incident_id" uuid null, primary key ("id"));`);
    this.addSql(`create index "alert_storms_organization_id_started_at_index" on "alert_storms" ("organization_id", "started_at");`);

    this.addSql(`create table "incidents" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "title" text not null, "severity" text not null, "status" text not null, "opened_at" timestamptz not null, "closed_at" timestamptz null, "storm_id" uuid null, primary key ("id"));`);
    this.addSql(`alter table "incidents" add constraint "incidents_seq_unique" unique ("seq");`);
    this.addSql(`create index "incidents_organization_id_seq_index" on "incidents" ("organization_id", "seq");`);

    this.addSql(`create table "investigations" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "alert_id" uuid null, "storm_id" uuid null, "trigger" text not null, "status" text not null, "requested_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "investigations" add constraint "investigations_seq_unique" unique ("seq");`);
    this.addSql(`create index "investigations_organization_id_alert_id_requested_at_index" on "investigations" ("organization_id", "alert_id", "requested_at");`);
    this.addSql(`create index "investigations_status_seq_index" on "investigations" ("status", "seq");`);

    // the delivery log keeps payloads as written (json, not jsonb): never queried into, cheaper on every delivery
    this.addSql(`alter table "webhook_deliveries" alter column "payload" type json using "payload"::json;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" alter column "payload" type jsonb using "payload"::jsonb;`);
    this.addSql(`drop table if exists "ai_spend" cascade;`);
    this.addSql(`drop table if exists "alerts" cascade;`);
    this.addSql(`drop table if exists "alert_effects" cascade;`);
    this.addSql(`drop table if exists "alert_storms" cascade;`);
    this.addSql(`drop table if exists "incidents" cascade;`);
    this.addSql(`drop table if exists "investigations" cascade;`);
  }

}
