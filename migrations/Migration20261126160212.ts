import { Migration } from '@mikro-orm/migrations';

export class Migration20261126160212 extends Migration {

  override name = 'Migration20261126160212';

  override up(): void | Promise<void> {
    this.addSql(`create table "incident_notes" ("id" uuid not null, "seq" bigserial, "organization_id" uuid not null, "incident_id" uuid not null, "author_kind" text not null, "author_id" text not null, "body" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "incident_notes" add constraint "incident_notes_seq_unique" unique ("seq");`);
    this.addSql(`create index "incident_notes_incident_id_seq_index" on "incident_notes" ("incident_id", "seq");`);

    this.addSql(`alter table "alerts" add "assignee_id" uuid null;`);
    this.addSql(`create index "alerts_organization_id_seq_index" on "alerts" ("organization_id", "seq");`);

    this.addSql(`create index "audit_log_organization_id_family_row_id_index" on "audit_log" ("organization_id", "family", "row_id");`);

    this.addSql(`alter table "incidents" add "acknowledged_at" timestamptz null, add "acknowledged_by" jsonb null, add "assignee_id" uuid null, add "resolved_by" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "incident_notes" cascade;`);

    this.addSql(`drop index "alerts_organization_id_seq_index";`);
    this.addSql(`alter table "alerts" drop column "assignee_id";`);

    this.addSql(`drop index "audit_log_organization_id_family_row_id_index";`);

    this.addSql(`alter table "incidents" drop column "acknowledged_at", drop column "acknowledged_by", drop column "assignee_id", drop column "resolved_by";`);
  }

}
