import { Migration } from '@mikro-orm/migrations';

export class Migration20261128175256 extends Migration {

  override name = 'Migration20261128175256';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_escalation_policies" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text null, "steps" jsonb null, "repeat" int null, primary key ("organization_id", "id"));`);
    this.addSql(`alter table "cfg_escalation_policies" add constraint "cfg_escalation_policies_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(`create table "paging_escalations" ("id" uuid not null, "organization_id" uuid not null, "subject_kind" text not null, "subject_id" uuid not null, "alert_id" uuid not null, "team_id" text not null, "policy_id" text null, "policy" jsonb not null, "step" integer not null, "loop" integer not null, "next_at" timestamptz null, "state" text not null, "reason" text null, "started_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "paging_escalations_state_next_at_index" on "paging_escalations" ("state", "next_at");`);
    this.addSql(`create index "paging_escalations_organization_id_alert_id_index" on "paging_escalations" ("organization_id", "alert_id");`);
    this.addSql(`alter table "paging_escalations" add constraint "paging_escalations_organization_id_subject_id_team_id_unique" unique ("organization_id", "subject_id", "team_id");`);

    this.addSql(`create table "paging_notifications" ("escalation_id" uuid not null, "step" integer not null, "loop" integer not null, "email" text not null, "organization_id" uuid not null, "user_id" uuid null, "alert_id" uuid not null, "incident_id" uuid null, "urgency" text not null, "status" text not null, "reason" text null, "channel" text null, "send_after" timestamptz not null, "created_at" timestamptz not null, "sent_at" timestamptz null, "bundle_id" uuid null, primary key ("escalation_id", "step", "loop", "email"));`);
    this.addSql(`create index "paging_notifications_status_send_after_index" on "paging_notifications" ("status", "send_after");`);
    this.addSql(`create index "paging_notifications_organization_id_alert_id_index" on "paging_notifications" ("organization_id", "alert_id");`);

    this.addSql(`alter table "cfg_teams" add "escalation_policy_id" text null;`);

    // each team's old escalation list becomes a policy of the team's name: a step per email, the first at once, each next
    // 15 minutes after it (GoAlert's default step delay; docs/decisions.md), and the team pages through it
    this.addSql(`insert into "cfg_escalation_policies" ("organization_id", "id", "row_version", "created_at", "updated_at", "name", "description", "steps", "repeat")
      select t."organization_id", gen_random_uuid()::text, 1, now(), now(), t."name", 'made from the team''s escalation list',
             (select jsonb_agg(jsonb_build_object('delay_minutes', case when e.i = 1 then 0 else 15 end, 'targets', jsonb_build_array(jsonb_build_object('email', e.email))) order by e.i)
                from jsonb_array_elements_text(t."escalation") with ordinality as e(email, i)),
             0
        from "cfg_teams" t
       where t."escalation" is not null and jsonb_typeof(t."escalation") = 'array' and jsonb_array_length(t."escalation") > 0;`);
    this.addSql(`update "cfg_teams" t set "escalation_policy_id" = p."id"
      from "cfg_escalation_policies" p
     where p."organization_id" = t."organization_id" and p."name" = t."name"
       and t."escalation" is not null and jsonb_typeof(t."escalation") = 'array' and jsonb_array_length(t."escalation") > 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_escalation_policies" cascade;`);
    this.addSql(`drop table if exists "paging_escalations" cascade;`);
    this.addSql(`drop table if exists "paging_notifications" cascade;`);

    this.addSql(`alter table "cfg_teams" drop column "escalation_policy_id";`);
  }

}
