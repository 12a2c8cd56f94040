import { Migration } from '@mikro-orm/migrations';

export class Migration20261125033410 extends Migration {

  override name = 'Migration20261125033410';

  override up(): void | Promise<void> {
    this.addSql(`create index "alerts_storm_raised_at_index" on "alerts" ("organization_id", "raised_at") where "storm_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "alerts_storm_raised_at_index";`);
  }

}
