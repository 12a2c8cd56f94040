import { Migration } from '@mikro-orm/migrations';

export class Migration20261128144642 extends Migration {

  override name = 'Migration20261128144642';

  override up(): void | Promise<void> {
    this.addSql(`alter table "alerts" add "links" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "alerts" drop column "links";`);
  }

}
