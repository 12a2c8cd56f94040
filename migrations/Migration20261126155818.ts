import { Migration } from '@mikro-orm/migrations';

export class Migration20261126155818 extends Migration {

  override name = 'Migration20261126155818';

  override up(): void | Promise<void> {
    this.addSql(`create table "console_sessions" ("id" uuid not null, "user_id" uuid not null, "organization_id" uuid not null, "token_hash" text not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "console_sessions_user_id_index" on "console_sessions" ("user_id");`);
    this.addSql(`alter table "console_sessions" add constraint "console_sessions_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "sign_in_links" ("id" uuid not null, "user_id" uuid not null, "token_hash" text not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "sign_in_links_user_id_index" on "sign_in_links" ("user_id");`);
    this.addSql(`alter table "sign_in_links" add constraint "sign_in_links_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "users" add "password_hash" text null, add "password_changed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "console_sessions" cascade;`);
    this.addSql(`drop table if exists "sign_in_links" cascade;`);

    this.addSql(`alter table "users" drop column "password_hash", drop column "password_changed_at";`);
  }

}
