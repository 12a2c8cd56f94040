import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013600_sso_settings extends Migration {

  override name = 'Migration20261129013600_sso_settings';

  override up(): void | Promise<void> {
    this.addSql(`create table "cfg_sso_settings" ("organization_id" uuid not null, "id" text not null, "row_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "issuer" text null, "client_id" text null, "client_secret" text null, "provider_name" text null, "allowed_domains" jsonb null, "groups_claim" text null, "role_mappings" jsonb null, "default_role" text null, "password_sign_in" boolean null, primary key ("organization_id", "id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "cfg_sso_settings" cascade;`);
  }

}
