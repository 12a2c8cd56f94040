import { Migration } from '@mikro-orm/migrations';

export class Migration20261128172749 extends Migration {

  override name = 'Migration20261128172749';

  override up(): void | Promise<void> {
    this.addSql(`alter table "personal_tokens" add "last_used_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "personal_tokens" drop column "last_used_at";`);
  }

}
