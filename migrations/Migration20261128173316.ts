import { Migration } from '@mikro-orm/migrations';

export class Migration20261128173316 extends Migration {

  override name = 'Migration20261128173316';

  override up(): void | Promise<void> {
    this.addSql(`alter table "console_sessions" add column "sso" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "console_sessions" drop column "sso";`);
  }

}
