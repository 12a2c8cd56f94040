import { Migration } from '@mikro-orm/migrations';

export class Migration20261129013948_paging_notification_fallback extends Migration {

  override name = 'Migration20261129013948_paging_notification_fallback';

  override up(): void | Promise<void> {
    this.addSql(`alter table "paging_notifications" add "fallback" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "paging_notifications" drop column "fallback";`);
  }

}
