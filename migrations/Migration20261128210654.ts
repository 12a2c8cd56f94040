import { Migration } from '@mikro-orm/migrations';

export class Migration20261128210654 extends Migration {

  override name = 'Migration20261128210654';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_paging_providers" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "twilio_account_sid" text null, "twilio_auth_token" text null, "twilio_from" text null, "pushover_app_token" text null, "ntfy_server" text null, "ntfy_access_token" text null, primary key ("organization_id", "id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_paging_providers" cascade;`);
  }

}
