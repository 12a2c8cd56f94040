import { Migration } from '@mikro-orm/migrations';

export class Migration20261128214630 extends Migration {

  override name = 'Migration20261128214630';

  override up(): void | Promise<void> {
    this.addSql(`create table "paging_pushover_receipts" ("token_hash" text not null, "organization_id" uuid not null, "user_id" uuid not null, "bundle_id" uuid not null, "alert_ids" jsonb not null, "receipt" text null, "created_at" timestamptz not null, "acted_at" timestamptz null, primary key ("token_hash"));`);
    this.addSql(`alter table "paging_pushover_receipts" add constraint "paging_pushover_receipts_receipt_unique" unique ("receipt");`);
    this.addSql(`create index "paging_pushover_receipts_created_at_index" on "paging_pushover_receipts" ("created_at");`);

    this.addSql(`alter table "cfg_paging_providers" add "webhook_signing_secret" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "paging_pushover_receipts" cascade;`);

    this.addSql(`alter table "cfg_paging_providers" drop column "webhook_signing_secret";`);
  }

}
