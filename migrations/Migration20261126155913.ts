import { Migration } from '@mikro-orm/migrations';

export class Migration20261126155913 extends Migration {

  override name = 'Migration20261126155913';

  override up(): void | Promise<void> {
    this.addSql(`alter table "audit_log" add "change_id" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "audit_log" drop column "change_id";`);
  }

}
